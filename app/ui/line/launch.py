"""Starting the line mode: build the runtime, or explain how to configure a provider."""

from __future__ import annotations

from lull.runtime import RunOptions, Runtime
from lull.ui.shared.startup import open_runtime, setup_hints

FULL_UI_NOTE = "`lull` without --plain walks you through this and finds local servers."


def configure_help() -> str:
    """How to configure a provider: the env variables and the settings keys."""
    from lull.settings.paths import user_settings_path

    return "\n".join([*setup_hints(user_settings_path()), FULL_UI_NOTE])


def open_line_runtime(options: RunOptions) -> tuple[Runtime | None, int]:
    """The runtime, or None and the exit code after saying (on stderr) why it cannot start."""
    return open_runtime(options, setup_help=configure_help)
