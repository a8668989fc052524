"""The composition root: settings + provider + tools + session -> a ready :class:`Agent`.

Front ends call :func:`build_runtime` once and then work through the :class:`Runtime`: it
is the only place that knows how every part is put together, and its methods
(:meth:`Runtime.new_session`, :meth:`Runtime.resume`, :meth:`Runtime.use_model`) are the
only way to switch the session or the model. Front ends and slash commands always reach the
agent through ``runtime.agent`` (never a saved copy), since a switch replaces it.

``options`` holds the run options and errors, ``wiring`` turns settings into the engine's
parts, ``runtime`` is the :class:`Runtime` itself and ``build`` puts one together.
"""

from __future__ import annotations

from lull.runtime.build import build_runtime
from lull.runtime.options import (
    RunOptions,
    StartupError,
    SwitchError,
    cli_overrides,
    locked_message,
)
from lull.runtime.runtime import Runtime
from lull.runtime.wiring import (
    ENVIRONMENT_REUSE_SECONDS,
    ProviderFactory,
    agent_config,
    allowed_paths,
    hooks_for_session,
    session_environment,
    summary_provider,
    thinking_config,
    tool_context,
)

__all__ = [
    "ENVIRONMENT_REUSE_SECONDS",
    "ProviderFactory",
    "RunOptions",
    "Runtime",
    "StartupError",
    "SwitchError",
    "agent_config",
    "allowed_paths",
    "build_runtime",
    "cli_overrides",
    "hooks_for_session",
    "locked_message",
    "session_environment",
    "summary_provider",
    "thinking_config",
    "tool_context",
]
