"""/model (show or switch the model) and /settings (effective values and their sources)."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace

from app.catalog.cache_policy import ttl_warnings
from app.commands.base import (
    CommandContext,
    CommandResult,
    hint,
    needs_runtime,
    replace_agent,
    say,
)
from app.model.provider import Provider

log = logging.getLogger("lull.commands")

VALUE_WIDTH = 60
_closing: set[asyncio.Task[None]] = set()


def model_command(ctx: CommandContext, arg: str) -> CommandResult:
    """/model shows the model; /model NAME switches to it, keeping the session."""
    name = arg.strip()
    runtime = ctx.runtime
    if not name:
        if runtime is None:
            return say(f"model: {ctx.model}")
        config = runtime.provider_config
        return say(
            f"model: {config.model} (provider {config.provider}, vendor {config.vendor}, "
            f"{config.effective_base_url}); switch with /model NAME"
        )
    if len(name.split()) > 1:
        return hint(f"a model name has no spaces (got {name!r}); usage: /model NAME")
    if runtime is None:
        return needs_runtime("model")
    if name == runtime.provider_config.model:
        return say(f"already using {name}")
    from app.providers.config import create_provider

    config = replace(runtime.provider_config, model=name)
    old = ctx.agent.provider
    replace_agent(runtime, provider=create_provider(config))
    runtime.provider_config = config
    _close_later(old)
    return say(f"model: {name} from the next request on (same session, same provider settings)")


def _close_later(provider: Provider) -> None:
    """Release the old client's connections if an event loop runs; else leave it to GC."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    task = loop.create_task(provider.aclose())
    _closing.add(task)
    task.add_done_callback(_closing.discard)


def settings_command(ctx: CommandContext, arg: str) -> CommandResult:
    """/settings [PREFIX]: every effective value and where it came from."""
    runtime = ctx.runtime
    if runtime is None:
        return needs_runtime("settings")
    from settings.describe import effective_rows

    prefix = arg.strip()
    rows = [r for r in effective_rows(runtime.loaded) if r[0].startswith(prefix)]
    if not rows:
        return hint(f"no setting starts with {prefix!r}; try /settings or /settings model")
    width = max(len(key) for key, _, _ in rows)
    lines = [f"{key:<{width}}  {_short(value)}  ({source})" for key, value, source in rows]
    lines.extend(f"{d.level}: {d.message}" for d in runtime.loaded.diagnostics)
    lines.extend(f"warning: {w}" for w in ttl_warnings(runtime.loaded.settings))
    return CommandResult(tuple(lines))


def _short(value: str) -> str:
    return value if len(value) <= VALUE_WIDTH else value[: VALUE_WIDTH - 1] + "…"
