"""The key catalogue: covers the model, maps keys to attributes, suggests near misses."""

from __future__ import annotations

import dataclasses

import pytest

from lull.settings.fields import ENV_FIELDS, FIELDS, get_value, suggest, with_value
from lull.settings.model import Settings


def test_catalogue_env_vars_are_the_documented_ones() -> None:
    assert {name: f.key for name, f in ENV_FIELDS.items()} == {
        "LULL_MODEL": "model.name",
        "LULL_APPROVAL_MODE": "tools.approvalMode",
        "LULL_ALLOW_PRIVATE_NETWORK": "tools.allowPrivateNetwork",
        "LULL_THINKING_THRESHOLD_MINUTES": "context.clearContextOnIdle.thinkingThresholdMinutes",
        "LULL_TOOL_RESULTS_THRESHOLD_MINUTES": (
            "context.clearContextOnIdle.toolResultsThresholdMinutes"
        ),
        "LULL_TOOL_RESULTS_NUM_TO_KEEP": "context.clearContextOnIdle.toolResultsNumToKeep",
        "LULL_PROMPT_CACHING": "context.cache.enabled",
        "LULL_TIMEOUT_SECONDS": "model.timeoutSeconds",
        "LULL_MEDIA_KEEP": "context.media.keep",
        "LULL_SANDBOX": "sandbox.enabled",
        "ENABLE_TOOL_SEARCH": "tools.toolSearch",  # Claude Code's name, with its values
        "MCP_TIMEOUT": "mcp.startTimeoutSeconds",  # Claude Code's, in milliseconds
        "MCP_TOOL_TIMEOUT": "mcp.toolTimeoutSeconds",  # Claude Code's, in milliseconds
    }


def test_every_key_reads_and_writes_its_own_attribute() -> None:
    base = Settings()
    for key in FIELDS:
        marker = object()
        changed = with_value(base, key, marker)
        assert get_value(changed, key) is marker
        assert base == Settings(), "with_value must not mutate"
        assert changed != base


def test_with_value_keeps_sibling_values() -> None:
    s = with_value(Settings(), "context.compression.model", "small")
    s = with_value(s, "context.compression.threshold", 0.5)
    assert dataclasses.astuple(s.context.compression) == (0.5, 0.3, "small", 0.4, 0.5, 0.9, 0.5)


@pytest.mark.parametrize(
    ("typo", "meant"),
    [
        ("tools.aprovalMode", "tools.approvalMode"),
        ("tools.approval_mode", "tools.approvalMode"),
        ("MaxTurns", "maxTurns"),
        ("context.clearContextOnIdle.toolResultsNumToKept", (
            "context.clearContextOnIdle.toolResultsNumToKeep")),
        ("model.contextWindow.size", "model.contextWindow"),
        ("context.compresion", "context.compression"),
        ("keepRecentFraction", "context.compression.keepRecentFraction"),
        ("telemetry", None),
    ],
)  # fmt: skip
def test_suggest(typo: str, meant: str | None) -> None:
    assert suggest(typo) == meant
