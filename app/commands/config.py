"""/model (show or switch the model) and /settings (effective values and their sources)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lull.catalog.cache_policy import ttl_warnings
from lull.commands.base import CommandResult, hint, say

if TYPE_CHECKING:
    from lull.runtime import Runtime

VALUE_WIDTH = 60


def model_command(runtime: Runtime, arg: str) -> CommandResult:
    """/model shows the model; /model NAME switches to it, keeping the session."""
    from lull.runtime import SwitchError

    name = arg.strip()
    config = runtime.provider_config
    if not name:
        return say(
            f"model: {config.model} (provider {config.provider}, vendor {config.vendor}, "
            f"{config.effective_base_url}); switch with /model NAME"
        )
    if name == config.model:
        return say(f"already using {name}")
    try:
        runtime.use_model(name)
    except SwitchError as error:
        return hint(str(error))
    return say(f"model: {name} from the next request on (same session, same provider settings)")


def settings_command(runtime: Runtime, arg: str) -> CommandResult:
    """/settings [PREFIX]: every effective value and where it came from."""
    from lull.settings.describe import effective_rows

    prefix = arg.strip()
    rows = [r for r in effective_rows(runtime.loaded) if r[0].startswith(prefix)]
    if not rows:
        return hint(f"no setting starts with {prefix!r}; try /settings or /settings model")
    width = max(len(key) for key, _, _ in rows)
    lines = [f"{key:<{width}}  {_short(value)}  ({source})" for key, value, source in rows]
    lines.extend(f"{d.level}: {d.message}" for d in runtime.loaded.diagnostics)
    lines.extend(f"warning: {w}" for w in ttl_warnings(runtime.cache_setup()))
    return CommandResult(tuple(lines))


def _short(value: str) -> str:
    return value if len(value) <= VALUE_WIDTH else value[: VALUE_WIDTH - 1] + "…"
