"""Claude Code's model aliases become the model ids the Anthropic API knows."""

from __future__ import annotations

import pytest

from lull.catalog.aliases import is_alias, resolve_alias
from lull.catalog.pricing import price_for


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("haiku", "claude-haiku-5-5"),
        ("Sonnet", "claude-sonnet-5-5"),
        ("opus", "claude-opus-5-5"),
        ("sonnet[1m]", "claude-sonnet-5-5"),
        ("opusplan", "claude-sonnet-5-5"),
        ("inherit", None),
        ("default", None),
        ("claude-opus-4-6", "claude-opus-4-6"),
        (" gpt-5.5 ", "gpt-5.5"),
    ],
)
def test_an_alias_is_the_newest_model_of_its_family(name: str, expected: str | None) -> None:
    assert resolve_alias(name) == expected


def test_the_environment_names_another_model_for_an_alias() -> None:
    env = {"ANTHROPIC_DEFAULT_HAIKU_MODEL": "claude-haiku-4-5", "ANTHROPIC_DEFAULT_OPUS_MODEL": ""}
    assert resolve_alias("haiku", env) == "claude-haiku-4-5"
    assert resolve_alias("opus", env) == "claude-opus-5-5"  # empty: the alias's own model


def test_every_alias_is_a_priced_model() -> None:
    for alias in ("sonnet", "opus", "haiku", "fable", "best", "opusplan"):
        model = resolve_alias(alias)
        assert model is not None and is_alias(alias)
        assert price_for(model, local=False) is not None, alias
    assert not is_alias("claude-haiku-5-5")
