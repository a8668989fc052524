"""What both front ends say about an approval: what an "always" answer would allow."""

from __future__ import annotations

from lull.model.messages import ToolCall


def always_legend(call: ToolCall, rules: tuple[str, ...]) -> str:
    """What "allow always" keeps: the suggested allow rules, or this exact call when no rule
    can describe it (a shell line with substitutions or redirections to files)."""
    if not rules:
        return f"always: this exact {call.name} call (no rule can describe it)"
    return "always: allow " + ", ".join(rules)
