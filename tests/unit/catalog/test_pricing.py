"""Prices per model family, overrides from settings, and the cost of usage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lull.catalog.pricing import cost_usd, price_for
from lull.model.provider import Usage
from lull.settings.loader import load_settings

MILLION = 1_000_000


@pytest.mark.parametrize(
    ("model", "rates"),
    [
        ("claude-sonnet-4-5-20250929", (3, 15, 0.30, 3.75, 6)),
        ("claude-sonnet-5", (2, 10, 0.20, 2.50, 4)),
        ("claude-sonnet-5-5", (2, 10, 0.10, 2.50, 4)),
        ("claude-opus-4-1-20250805", (15, 75, 1.50, 18.75, 30)),
        ("claude-opus-4-6", (5, 25, 0.50, 6.25, 10)),
        ("claude-opus-5-5", (4, 20, 0.20, 5, 8)),
        ("claude-haiku-4-5-20251001", (1, 5, 0.10, 1.25, 2)),
        ("claude-3-5-haiku-20241022", (0.80, 4, 0.08, 1, 1.6)),
        ("gpt-5", (1.25, 10, 0.125, 1.25, 1.25)),
        ("gpt-5-mini-2025-08-07", (0.25, 2, 0.025, 0.25, 0.25)),
        ("gpt-5.4-mini", (0.75, 4.50, 0.075, 0.75, 0.75)),
        ("GPT-5.5", (5, 30, 0.50, 5, 5)),
        ("deepseek-chat", (0.28, 0.42, 0.028, 0.28, 0.28)),
        ("kimi-k2-thinking", (0.60, 2.50, 0.15, 0.60, 0.60)),
        ("qwen3-coder-plus", (1, 5, 0.20, 1, 1)),
    ],
)
def test_model_families_are_priced(model: str, rates: tuple[float, ...]) -> None:
    found = price_for(model)
    assert found is not None
    got = (found.input, found.output, found.cache_read, found.cache_write, found.cache_write_1h)
    assert got == pytest.approx(rates)


@pytest.mark.parametrize("model", ["gpt-5.3-codex", "llama3.1:8b", "claude-test", "kimi-k2.5"])
def test_unknown_models_have_no_cost(model: str) -> None:
    assert price_for(model) is None
    assert cost_usd(Usage(input=1000, output=10), model) is None


def test_cost_adds_every_kind_of_token_at_its_own_price() -> None:
    usage = Usage(
        input=MILLION,
        output=MILLION,
        cache_read=MILLION,
        cache_write=3 * MILLION,
        cache_write_1h=MILLION,
        reasoning=500_000,  # part of output, not billed twice
    )
    expected = 3 + 15 + 0.30 + 2 * 3.75 + 6
    assert cost_usd(usage, "claude-sonnet-4-5") == pytest.approx(expected)


def test_session_cost_is_the_sum_of_request_costs() -> None:
    requests = [Usage(input=120, output=900, cache_write=40_000), Usage(cache_read=40_000)]
    each = sum(cost_usd(u, "claude-sonnet-4-5") or 0.0 for u in requests)
    assert cost_usd(requests[0] + requests[1], "claude-sonnet-4-5") == pytest.approx(each)


def test_overrides_win_and_fill_missing_cache_prices() -> None:
    overrides = ("claude-sonnet=1/2", "my-local-model=0.5/1/0.05/0.5/0.5")
    sonnet = price_for("claude-sonnet-4-5", overrides)
    assert sonnet is not None
    assert (sonnet.cache_read, sonnet.cache_write, sonnet.cache_write_1h) == (0.1, 1.25, 2.0)
    assert cost_usd(Usage(input=MILLION), "my-local-model:q4", overrides) == pytest.approx(0.5)
    assert cost_usd(Usage(input=MILLION), "gpt-5", overrides) == pytest.approx(1.25)


def test_the_pricing_setting_reaches_the_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    user = tmp_path / "config" / "lull"  # prices are the user's: a project file cannot set them
    user.mkdir(parents=True)
    (user / "settings.json").write_text(json.dumps({"pricing": ["llama3=0.2/0.6"]}))
    loaded = load_settings(tmp_path, env={})
    assert loaded.diagnostics == []
    usage = Usage(input=MILLION, output=MILLION)
    assert cost_usd(usage, "llama3:70b", loaded.settings.pricing) == pytest.approx(0.8)


def test_a_bad_price_entry_is_reported_with_where_and_what(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    user = tmp_path / "config" / "lull"
    user.mkdir(parents=True)
    (user / "settings.json").write_text(json.dumps({"pricing": ["ok=1/2", "gpt-x=cheap"]}))
    loaded = load_settings(tmp_path, env={})
    [problem] = loaded.diagnostics
    assert "settings.json: pricing: expected" in problem.message
    assert "MODEL=INPUT/OUTPUT" in problem.message
    assert "entry 1 ('gpt-x=cheap')" in problem.message
    assert loaded.settings.pricing == ()


def test_an_unpriced_model_on_a_local_endpoint_is_free() -> None:
    usage = Usage(input=MILLION, output=MILLION)
    assert cost_usd(usage, "llama3.1:8b", local=True) == 0.0
    assert cost_usd(usage, "llama3.1:8b") is None
    # a local server may answer under a known API name (llama-server says "gpt-3.5-turbo"):
    # still the user's own hardware; a proxy to a paid API is priced by an override
    assert cost_usd(usage, "gpt-3.5-turbo", local=True) == 0.0
    assert cost_usd(usage, "claude-sonnet-4-5", local=True) == 0.0
    assert cost_usd(usage, "claude-sonnet-4-5") == pytest.approx(18)
    proxy = ("claude-sonnet-4-5=3/15",)
    assert cost_usd(usage, "claude-sonnet-4-5", proxy, local=True) == pytest.approx(18)
    assert cost_usd(usage, "llama3.1:8b", ("llama3.1=0.1/0.2",), local=True) == pytest.approx(0.3)
