"""The status line's wording and how it fits narrow terminals."""

from __future__ import annotations

from dataclasses import replace

from lull.ui.shared.status import (
    StatusFacts,
    context_warning,
    duration,
    fit,
    money,
    status_line,
    status_parts,
    tokens,
    warning_span,
)

NOW = 1_700_000_000.0


def facts(**changes: object) -> StatusFacts:
    base: dict[str, object] = {
        "state": "ready",
        "provider": "anthropic",
        "model": "claude-sonnet-4-6",
        "context_tokens": 12_345,
        "context_window": 200_000,
        "last_response_at": NOW - 60,
        "cost_usd": 0.0123,
    }
    base.update(changes)
    last = base["last_response_at"]
    if "cache_warm_until" not in base and isinstance(last, float):
        base["cache_warm_until"] = last + 300  # the cache clock's 5-minute entry
    return StatusFacts(**base)  # type: ignore[arg-type]


def test_numbers_read_like_people_write_them() -> None:
    assert [tokens(n) for n in (950, 12_345, 200_000, 1_500_000)] == [
        "950",
        "12.3k",
        "200k",
        "1.5M",
    ]
    assert [duration(s) for s in (45, 240, 3900)] == ["45s", "4m", "1h05m"]
    assert money(0.0123) == "$0.012" and money(0.00042) == "$0.0004"


def test_a_wide_line_shows_everything() -> None:
    line = status_line(facts(), NOW, 200)
    assert line == (
        "ready │ anthropic · claude-sonnet-4-6 │ ctx 12.3k/200k 6% │ cache warm 4m │ "
        "tidy in 4m │ $0.012"
    )


def test_cache_goes_cold_after_the_ttl_and_idle_cleanup_is_announced() -> None:
    soon = status_line(facts(last_response_at=NOW - 200), NOW, 200)
    assert "cache warm 1m" in soon and "tidy in 1m" in soon
    thinking_due = status_line(facts(last_response_at=NOW - 400), NOW, 200)
    assert "cache cold" in thinking_due and "tidy on next message" in thinking_due
    only_tools = facts(last_response_at=NOW - 400, thinking_minutes=-1, tool_results_minutes=60)
    assert "tidy in 53m" in status_line(only_tools, NOW, 200)
    later = status_line(facts(last_response_at=NOW - 3700), NOW, 200)
    assert "tidy on next message" in later
    handled = status_line(facts(last_response_at=NOW - 3700, idle_handled=True), NOW, 200)
    assert "tidied" in handled


def test_disabled_thresholds_mean_no_countdown() -> None:
    line = status_line(facts(thinking_minutes=-1, tool_results_minutes=-1), NOW, 200)
    assert "tidy" not in line


def test_one_hour_cache_ttl() -> None:
    one_hour = facts(last_response_at=NOW - 600, cache_warm_until=NOW - 600 + 3600)
    line = status_line(one_hour, NOW, 200)
    assert "cache warm 50m" in line
    assert "tidy in 50m" in line  # the cleanup waits for the cache clock, not its 5 minutes


def test_no_cache_entry_reads_cold() -> None:
    line = status_line(facts(last_response_at=NOW - 60, cache_warm_until=None), NOW, 200)
    assert "cache cold" in line and "tidy in 4m" in line  # the threshold still applies


def test_prompt_caching_off_is_shown_instead_of_a_countdown() -> None:
    line = status_line(facts(last_response_at=NOW - 60, prompt_caching=False), NOW, 200)
    assert "cache off" in line and "warm" not in line


def test_the_session_cache_hit_ratio_is_shown_while_caching_is_on() -> None:
    assert "│ hit 97% │" in status_line(facts(cache_hit_ratio=0.971), NOW, 200)
    assert "hit" not in status_line(facts(cache_hit_ratio=0.971), NOW, 80)
    assert "hit" not in status_line(facts(cache_hit_ratio=None), NOW, 200)
    off = status_line(facts(cache_hit_ratio=0.0, prompt_caching=False), NOW, 200)
    assert "hit" not in off


def test_narrow_lines_shorten_then_drop_the_least_important() -> None:
    parts = status_parts(facts(), NOW)
    at_60 = fit(parts, 60)
    assert len(at_60) <= 60 and "claude-sonnet-4-6" in at_60 and "anthropic ·" not in at_60
    at_30 = fit(parts, 30)
    assert len(at_30) <= 30 and at_30.startswith("ready │ claude-sonnet-4-6")


def test_before_the_runtime_exists_only_the_state_shows() -> None:
    assert status_line(StatusFacts(state="starting"), NOW, 80) == "starting"


def test_waiting_replaces_the_state_and_counts_seconds() -> None:
    line = status_line(facts(state="waiting for the model", waiting_since=NOW - 42), NOW, 200)
    assert line.startswith("waiting 42s │ anthropic · claude-sonnet-4-6")
    narrow = status_line(facts(waiting_since=NOW - 75), NOW, 30)
    assert narrow.startswith("waiting 1m")


def test_a_noticeable_time_to_first_token_shows_after_the_wait() -> None:
    shown = facts(first_token_seconds=12.34)
    wide = status_line(shown, NOW, 200)
    assert "│ first token 12.3s │" in wide
    assert "first token" not in status_line(replace(shown, waiting_since=NOW), NOW, 200)
    assert "first token" not in status_line(facts(first_token_seconds=0.4), NOW, 200)
    narrower = status_line(shown, NOW, len(wide) - 1)
    assert "first token" not in narrower and "tidy in" in narrower and "$0.012" in narrower


def test_the_context_is_a_warning_from_the_watch_line() -> None:
    below = facts(context_tokens=79_999)
    assert not context_warning(below) and warning_span(below, status_line(below, NOW, 200)) is None
    at = facts(context_tokens=80_000)  # 40% of 200k: the default watch line
    line = status_line(at, NOW, 200)
    span = warning_span(at, line)
    assert span is not None and line[span[0] : span[1]] == "ctx 80k/200k 40%"
    narrow = status_line(at, NOW, 40)
    span = warning_span(at, narrow)
    assert span is None or narrow[span[0] : span[1]] in ("80k 40%", "ctx 80k/200k 40%")
    assert context_warning(facts(context_tokens=20_000, watch_fraction=0.1))


def test_a_model_name_a_server_sent_shows_its_escapes() -> None:
    """A local server picks the model name (the only one it lists): its escape sequences are
    shown in the status line, never sent."""
    line = status_line(facts(model="m\x1b]0;owned\x07"), NOW, 200)
    assert "\x1b" not in line and "\x07" not in line
    assert "m␛]0;owned␇" in line
