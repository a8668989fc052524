"""Claude Code's model aliases (``sonnet``, ``opus``, ``haiku``, ``fable``, ``opusplan``, with
an optional ``[1m]``) as the model ids the Anthropic API knows.

Claude Code resolves an alias to the newest model of the family, and lets
``ANTHROPIC_DEFAULT_{OPUS,SONNET,HAIKU}_MODEL`` name another one; lull does the same, so an
agent file or a command written for Claude Code (``model: haiku``) sends a real model id, not
``haiku``. ``inherit`` (a sub-agent's ``model: inherit``) and ``default`` mean "the model the
session already uses" and resolve to None.
"""

from __future__ import annotations

from collections.abc import Mapping

ALIASES: dict[str, str] = {
    "sonnet": "claude-sonnet-5-5",
    "opus": "claude-opus-5-5",
    "haiku": "claude-haiku-5-5",
    "fable": "claude-fable-5-1",
    "best": "claude-opus-5-5",
    "opusplan": "claude-sonnet-5-5",  # lull has one model per session: Sonnet does the work
}
"""Each alias's model as Claude Code resolves it today (first-party API)."""
ALIAS_ENV: dict[str, str] = {
    "sonnet": "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "opusplan": "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "opus": "ANTHROPIC_DEFAULT_OPUS_MODEL",
    "best": "ANTHROPIC_DEFAULT_OPUS_MODEL",
    "haiku": "ANTHROPIC_DEFAULT_HAIKU_MODEL",
}
"""The environment variable that names another model for an alias, as in Claude Code."""
SAME_MODEL = frozenset({"inherit", "default"})
"""Names that mean the model the session already uses."""
ONE_MILLION_SUFFIX = "[1m]"


def is_alias(name: str) -> bool:
    """Whether ``name`` is one of Claude Code's aliases (``[1m]`` included) or ``inherit``."""
    key = name.strip().lower().removesuffix(ONE_MILLION_SUFFIX)
    return key in ALIASES or key in SAME_MODEL


def resolve_alias(name: str, env: Mapping[str, str] | None = None) -> str | None:
    """The model id ``name`` stands for: an alias's model (or the model its environment
    variable names), None for ``inherit``/``default``, any other name unchanged.

    ``[1m]`` (Claude Code's one-million-token context) is dropped: lull sends the id, and the
    window is the model's own.
    """
    stripped = name.strip()
    key = stripped.lower().removesuffix(ONE_MILLION_SUFFIX)
    if key in SAME_MODEL:
        return None
    if key not in ALIASES:
        return stripped
    variable = ALIAS_ENV.get(key)
    chosen = (env or {}).get(variable, "").strip() if variable else ""
    return chosen or ALIASES[key]
