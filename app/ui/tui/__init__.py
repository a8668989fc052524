"""The Textual TUI (``lull`` on a terminal): a full-screen chat that consumes engine events.

Importing this package is cheap: Textual and the app are imported by
:func:`run_tui` only.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lull.runtime import RunOptions


def run_tui(options: RunOptions) -> int:
    """Run the full-screen chat until the user quits (or the terminal goes away: 129);
    returns the exit code. The session file is closed either way."""
    from lull.ui.shared.hangup import HANGUP_EXIT
    from lull.ui.shared.history import History
    from lull.ui.tui.app import LullApp, bench_file_from_env

    app = LullApp(options, history=History(), bench_file=bench_file_from_env())
    app.run()
    resume_id = app.close_session()
    if app.leave_terminal():
        return HANGUP_EXIT
    if app.fatal is not None:
        print(app.fatal.message, file=sys.stderr)
        return app.fatal.code
    if resume_id:
        print(f"resume with: lull --resume {resume_id}")
    return app.return_code or 0
