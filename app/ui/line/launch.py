"""Starting the line mode: build the runtime, or explain how to configure a provider."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.runtime import Runtime, StartupError, build_runtime
from app.ui.startup import needs_setup, options_from_args, setup_hints
from settings.errors import SettingsError

FULL_UI_NOTE = "`lull` without --plain walks you through this and finds local servers."


def configure_help() -> str:
    """How to configure a provider: the env variables and the settings keys."""
    from settings.paths import user_settings_path

    return "\n".join([*setup_hints(user_settings_path()), FULL_UI_NOTE])


def open_line_runtime(args: argparse.Namespace, workspace: Path) -> tuple[Runtime | None, int]:
    """The runtime, or None and the exit code after saying (on stderr) why it cannot start."""
    try:
        runtime = build_runtime(options_from_args(args, workspace))
    except SettingsError as error:
        print(f"lull: {error}", file=sys.stderr)
        return None, 2
    except StartupError as error:
        print(f"lull: error: {error}", file=sys.stderr)
        if needs_setup(error):
            print(configure_help(), file=sys.stderr)
        return None, 1
    for diagnostic in runtime.loaded.diagnostics:
        print(f"lull: {diagnostic.level}: {diagnostic.message}", file=sys.stderr)
    skipped = runtime.agent.session.record.skipped_lines
    if skipped:
        print(
            f"lull: warning: skipped {skipped} unreadable line(s) in the session file "
            "(a torn write from a crash); everything before is kept",
            file=sys.stderr,
        )
    return runtime, 0
