"""Idle thresholds against the prompt-cache TTL: warnings only when cleanup breaks a warm cache."""

from __future__ import annotations

from typing import Literal

from lull.catalog.cache_policy import CacheSetup, cache_ttl_minutes, ttl_warnings
from lull.model.provider import ProviderName


def configured(
    thinking: float = 5.0,
    tools: float = 60.0,
    ttl: Literal["5m", "1h"] = "5m",
    provider: ProviderName | None = None,
    caching: bool = True,
) -> CacheSetup:
    return CacheSetup(provider, caching, ttl, thinking, tools)


def test_the_defaults_line_up_with_the_default_ttl() -> None:
    assert ttl_warnings(CacheSetup()) == []
    assert cache_ttl_minutes(CacheSetup()) == 5


def test_a_threshold_under_the_ttl_is_named_with_the_fix() -> None:
    [line] = ttl_warnings(configured(thinking=2))
    assert line.startswith("context.clearContextOnIdle.thinkingThresholdMinutes is 2 min")
    assert "shorter than the 5 min prompt-cache lifetime" in line
    assert "set it to 5 or more" in line


def test_one_hour_ttl_warns_about_both_default_thresholds_under_an_hour() -> None:
    lines = ttl_warnings(configured(ttl="1h", tools=30))
    assert len(lines) == 2
    assert all("60 min prompt-cache lifetime" in line for line in lines)
    assert ttl_warnings(configured(ttl="1h", thinking=60, tools=90)) == []


def test_disabled_thresholds_never_warn() -> None:
    assert ttl_warnings(configured(thinking=-1, tools=-1, ttl="1h")) == []


def test_openai_caches_are_not_configurable() -> None:
    assert cache_ttl_minutes(configured(ttl="1h", provider="openai")) == 5
    assert ttl_warnings(configured(ttl="1h", provider="openai")) == []


def test_no_warnings_when_prompt_caching_is_off() -> None:
    assert ttl_warnings(configured(thinking=1, tools=2, caching=False)) == []


def test_a_threshold_the_user_set_is_applied_and_its_cost_said() -> None:
    setup = CacheSetup(tool_results_minutes=0.1, tool_results_explicit=True)
    [line] = ttl_warnings(setup)
    assert line.startswith("context.clearContextOnIdle.toolResultsThresholdMinutes is 0.1 min")
    assert "runs after 0.1 idle minutes even while the cache is warm" in line
    assert "pays to write the cache again" in line
