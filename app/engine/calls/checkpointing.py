"""The checkpoint recorder: what files held before a batch of calls changed them.

An edit's file is captured just before the call runs (:meth:`CheckpointRecorder.capture`) and
its change finished after the batch, whatever became of it; a batch's shell commands, in the
modes that run them without asking, have a git work tree's dirty files snapshotted before and
compared after (:meth:`before_shell`, :meth:`after_shell`). A checkpoint that cannot be written
is said (the ``warn`` callback) and the call runs anyway: ``/undo`` cannot restore that one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from lull.engine.calls.scope import SHELL_TOOL
from lull.engine.checkpoints.files import CheckpointStore, SessionCheckpoints
from lull.engine.checkpoints.shell import GitSnapshot, record_changes, snapshot
from lull.engine.sessions.session import Session
from lull.model.approvals import ApprovalMode
from lull.model.events import Notice
from lull.model.messages import ToolCall
from lull.tools.base import ToolContext, ToolError
from lull.tools.files.paths import resolve_in_workspace, root_of
from lull.tools.permissions.policy import EDIT_TOOLS

ShellBefore = tuple[str, GitSnapshot]
"""The first shell call's id and the work tree before the batch's shell commands."""


class CheckpointRecorder:
    """Records file checkpoints for one session's calls (``store``: where contents go, None
    when checkpoints are off; ``log``: the current turn's record)."""

    def __init__(self, warn: Callable[[Notice], None]) -> None:
        self.store: CheckpointStore | None = None
        self.log: SessionCheckpoints | None = None
        self.owns_turns = True
        """False for a sub-agent's recorder: its changes belong to the parent's turn."""
        self._warn = warn

    def child(self, warn: Callable[[Notice], None]) -> CheckpointRecorder:
        """A sub-agent's recorder: it writes into the parent's current turn."""
        recorder = CheckpointRecorder(warn)
        recorder.log = self.log
        recorder.owns_turns = False
        return recorder

    def begin_turn(self, session: Session) -> None:
        """A user prompt was added to ``session``: file changes from now on are its turn's."""
        if self.store is None or not self.owns_turns:
            return
        prompts = [m for m in session.transcript if m.role == "user" and m.origin == "user"]
        self.log = self.store.session(session.id)
        self.log.begin_turn(len(prompts), prompts[-1].id if prompts else "")

    async def before_shell(
        self, calls: Iterable[ToolCall], mode: ApprovalMode, workspace: Path
    ) -> ShellBefore | None:
        """In ``auto-edit`` and ``yolo`` mode, a git work tree's dirty files before the
        batch's shell commands (their changes are recorded as the first one's)."""
        shells = [call for call in calls if call.name == SHELL_TOOL]
        if not shells or self.log is None or mode not in ("auto-edit", "yolo"):
            return None
        try:
            found = await snapshot(workspace, self.log)
        except OSError as error:
            self.failed("the work tree before a shell command", error)
            return None
        return None if found is None else (shells[0].id, found)

    async def after_shell(self, before: ShellBefore | None) -> None:
        """What the batch's shell commands changed since :meth:`before_shell`."""
        if before is None or self.log is None:
            return
        try:
            await record_changes(before[1], self.log, before[0])
        except OSError as error:
            self.failed("the shell command's changes", error)

    def capture(self, call: ToolCall, args: Any, context: ToolContext) -> list[str]:
        """Checkpoint the file a file-changing call is about to change (ids of the changes)."""
        log = self.log
        if log is None or call.name not in EDIT_TOOLS or not isinstance(args, Mapping):
            return []
        try:
            path = resolve_in_workspace(str(args.get("path", "")), context)
        except ToolError:
            return []  # the tool refuses it too
        try:
            return [log.capture(call.id, path, root_of(path, context))]
        except OSError as error:
            self.failed(f"{path}", error)
            return []

    def finish(self, changes: Iterable[str]) -> None:
        """Record what each captured file holds now (an unfinished change: a restore asks
        before it overwrites)."""
        if self.log is None:
            return
        for change in changes:
            with contextlib.suppress(OSError):
                self.log.finish(change)

    def failed(self, what: str, error: OSError) -> None:
        """Say that a checkpoint could not be written."""
        self._warn(
            Notice("warning", f"could not checkpoint {what} ({error}); /undo cannot restore it")
        )
