"""Shared start-up for every front end: build the runtime, report problems in one line."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from lull.model.text import terminal_text
from lull.runtime import RunOptions, Runtime, StartupError, build_runtime
from lull.settings.errors import SettingsError


def open_runtime(
    options: RunOptions, setup_help: Callable[[], str] | None = None
) -> tuple[Runtime | None, int]:
    """The runtime, or None and the exit code after printing (on stderr) why it could not
    start; ``setup_help`` follows when no provider is configured yet."""
    try:
        runtime = build_runtime(options)
    except SettingsError as error:
        _say(str(error))
        return None, 2
    except StartupError as error:
        _say(f"error: {error}")
        if setup_help is not None and error.needs_setup:
            print(setup_help(), file=sys.stderr)
        return None, 1
    for diagnostic in runtime.loaded.diagnostics:
        _say(f"{diagnostic.level}: {diagnostic.message}")
    for note in runtime.start_notes:
        _say(note)
    for note in [*runtime.cache_warnings(), *runtime.session_notes()]:
        _say(f"warning: {note}")
    for note in runtime.mcp_notes():
        _say(f"warning: {note}")
    return runtime, 0


def _say(text: str) -> None:
    """One ``lull: …`` line on stderr; what a settings file or a server put in it (a key, a
    name) is shown, never obeyed by the terminal (:func:`terminal_text`)."""
    print(f"lull: {terminal_text(text)}", file=sys.stderr)


def with_local_server(options: RunOptions, base_url: str, model: str | None) -> RunOptions:
    """``options`` pointed at a local OpenAI-compatible server (and one of its models)."""
    return replace(options, provider="openai", base_url=base_url, model=model or options.model)


def setup_hints(settings_file: Path) -> list[str]:
    """How to configure a provider: environment variables, then settings keys."""
    return [
        "Set one of these in your shell, then start lull again:",
        "  ANTHROPIC_API_KEY=sk-ant-...        Claude (Anthropic)",
        "  OPENAI_API_KEY=sk-...               OpenAI",
        "  OPENAI_BASE_URL=https://host/v1     an OpenAI-compatible server (DeepSeek, Kimi,",
        "                                      Qwen, vLLM, Ollama, LM Studio; add",
        "                                      OPENAI_API_KEY if it needs one)",
        f"or set model.provider, model.baseUrl and model.name in {settings_file}:",
        '  {"model": {"provider": "openai", "baseUrl": "http://127.0.0.1:11434/v1",',
        '             "name": "qwen3-coder"}}',
        "or try lull first without a key: lull --demo (a built-in scripted model, no network)",
    ]
