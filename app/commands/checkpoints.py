"""/undo and /rewind: put files back from the session's checkpoints (and, for /rewind, the
conversation too, as a recorded context edit).

``/undo [force]`` reverts the file changes of the last turn that changed files. ``/rewind``
lists the session's prompts (a picker in the front ends); ``/rewind N`` asks what to restore;
``/rewind N code|conversation|both [force]`` restores the state before prompt N. Both say
which files they changed and refuse, naming the files, when one was changed outside lull
since, unless ``force`` is given (the refusal offers it). A file whose path now leads
elsewhere (a directory on the way swapped for a symlink) is never touched, forced or not: it
is named with where it leads, and the other files are restored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, get_args

from lull.commands.base import CommandResult, FollowUp, hint, say
from lull.engine.checkpoints.files import RestoreReport, SessionCheckpoints
from lull.model.messages import Message

if TYPE_CHECKING:
    from lull.runtime import Runtime

RewindPart = Literal["code", "conversation", "both"]
REWIND_USAGE = "/rewind, or /rewind N [code|conversation|both] [force]"
PARTS: dict[str, str] = {
    "both": "restore the code and the conversation",
    "conversation": "restore the conversation (files stay as they are)",
    "code": "restore the code (the conversation stays)",
}
NOT_TRACKED = (
    "shell commands' file changes are tracked only in a git work tree in auto-edit or yolo "
    "mode (not ignored files); check `git status` for the others"
)


def _log(runtime: Runtime) -> SessionCheckpoints | None:
    store = runtime.agent.tools.checkpoints
    return None if store is None else store.session(runtime.agent.session.id)


def prompts(runtime: Runtime) -> list[Message]:
    """The session's user prompts, in order (number N is ``prompts[N - 1]``)."""
    return [m for m in runtime.agent.session.transcript if m.role == "user" and m.origin == "user"]


def undo_command(runtime: Runtime, arg: str) -> CommandResult:
    """``/undo [force]``: revert the file changes of the last turn that changed files."""
    words = arg.strip().lower().split()
    if words not in ([], ["force"]):
        return hint(f"unknown /undo argument {arg.strip()!r}; /undo, or /undo force")
    log = _log(runtime)
    if log is None or not log.turns():
        return say(f"nothing to undo: no file changes by lull in this session ({NOT_TRACKED})")
    turn = log.turns()[-1]
    report = log.undo_last(force=bool(words))
    return _reported(report, f"/undo (the changes of prompt {turn})", "/undo force")


def rewind_command(runtime: Runtime, arg: str) -> CommandResult:
    """``/rewind`` lists the prompts; ``/rewind N [code|conversation|both] [force]`` restores
    the state before prompt N."""
    words = arg.strip().split()
    log = _log(runtime)
    asked = prompts(runtime)
    if not words:
        return _listing(asked, log)
    if not words[0].isdigit() or not 1 <= int(words[0]) <= len(asked):
        numbers = f"1-{len(asked)}" if asked else "none yet"
        return hint(f"/rewind: {words[0]!r} is not a prompt number ({numbers}); {REWIND_USAGE}")
    number, rest = int(words[0]), [w.lower() for w in words[1:]]
    force = "force" in rest
    rest = [w for w in rest if w != "force"]
    parts: tuple[RewindPart, ...] = get_args(RewindPart)
    if len(rest) > 1 or (rest and rest[0] not in parts):
        return hint(f"/rewind: unknown argument {' '.join(rest)!r}; {REWIND_USAGE}")
    if not rest:
        return _ask_part(number, asked[number - 1], log)
    part: RewindPart = rest[0]  # type: ignore[assignment]
    lines: list[str] = []
    if part in ("code", "both"):
        if log is None:
            lines.append("no checkpoints in this session: files were not touched")
        else:
            report = log.rewind(number, force=force)
            result = _reported(report, f"/rewind {number}", f"/rewind {number} {part} force")
            if report.refused:
                return result
            lines.extend(result.lines)
    if part in ("conversation", "both"):
        problem = runtime.rewind_conversation(asked[number - 1])
        if problem is not None:
            return CommandResult((*lines, problem), error=not lines)
        lines.append(
            f"the conversation is back to before prompt {number} (the session file keeps "
            "everything; the model no longer sees it)"
        )
        lines.append(f"prompt {number} was: {_first_line(asked[number - 1].text)}")
    prefill = asked[number - 1].text if part != "code" else ""
    return CommandResult(tuple(lines), session_changed=part != "code", prefill=prefill)


def _ask_part(number: int, prompt: Message, log: SessionCheckpoints | None) -> CommandResult:
    """``/rewind N``: what to restore, as choices."""
    files = {c.path for c in log.changes() if c.turn >= number} if log is not None else set()
    lines = (
        f"rewind to before prompt {number}: {_first_line(prompt.text)}",
        f"lull changed {len(files)} file(s) since; {NOT_TRACKED}",
    )
    choices = tuple(FollowUp(label, f"/rewind {number} {part}") for part, label in PARTS.items())
    return CommandResult(lines, follow_ups=choices, question="Restore what?")


def _listing(asked: list[Message], log: SessionCheckpoints | None) -> CommandResult:
    if not asked:
        return say("nothing to rewind: no prompts in this session yet")
    counts: dict[int, set[str]] = {}
    for change in log.changes() if log is not None else ():
        counts.setdefault(change.turn, set()).add(change.path)
    lines = ["prompts of this session (/rewind N [code|conversation|both] [force]):"]
    for number, message in enumerate(asked, 1):
        files = len(counts.get(number, ()))
        changed = f"  [{files} file(s) changed]" if files else ""
        lines.append(f"  {number:>3}. {_first_line(message.text)}{changed}")
    lines.append(NOT_TRACKED)
    choices = tuple(
        FollowUp(f"{number}. {_first_line(message.text)}", f"/rewind {number}")
        for number, message in enumerate(asked, 1)
    )
    question = "Rewind to before which prompt?"
    return CommandResult(tuple(lines), follow_ups=choices, question=question)


def _reported(report: RestoreReport, what: str, forced: str) -> CommandResult:
    """What a restore did, or why it refused; a file whose path now leads elsewhere (a
    symlink swapped in) is named with where it leads, and left as it is."""
    escaped = [f"  not restored: {path} {why}; left as it is" for path, why in report.escaped]
    if report.refused:
        files = ", ".join(report.conflicts)
        line = f"{what} refused: changed outside lull since: {files}; {forced} overwrites them"
        overwrite = FollowUp("overwrite the outside changes", forced)
        return CommandResult(
            (line, *escaped), error=True, follow_ups=(overwrite,), question="Overwrite?"
        )
    if not report.changed and not escaped:
        return say(f"{what}: no file changes to revert")
    lines = [f"{what}: {len(report.changed)} file(s):"]
    lines += [f"  {action} {path}" for path, action in report.changed]
    lines += escaped
    if report.conflicts:
        lines.append(f"  (overwrote outside changes to {', '.join(report.conflicts)})")
    lines.append(NOT_TRACKED)
    return CommandResult(tuple(lines))


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= 70 else line[:69] + "…"
