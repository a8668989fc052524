"""/init: the model studies the repository and writes (or improves) AGENTS.md."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lull.commands.base import CommandResult

if TYPE_CHECKING:
    from lull.runtime import Runtime

AGENTS_FILE = "AGENTS.md"

INIT_PROMPT = """\
Please study this repository and write {action} an {file} file at its root: the instructions \
a coding assistant (you, in a later session) needs to work here well. Keep it short and \
specific to this repository; no generic advice.

Include:
1. The commands to build, lint, type-check and test, including how to run one test.
2. The layout: the main folders and modules and what each is for, and how the pieces fit \
(the big picture that takes reading several files to see).
3. The conventions: code style, naming, error handling, test patterns, and any rules the \
repository states (README, CONTRIBUTING, CLAUDE.md, .cursorrules, .github/copilot-instructions.md).

Read what is there first (README, build files, CI configuration, a few representative \
modules). {existing}Then write the file with write_file (or edit it with edit) and say in one \
or two lines what you wrote."""

EXISTING = (
    "{file} already exists: read it, keep what is still right, correct what is wrong and add "
    "what is missing; do not start over. "
)


def init_prompt(exists: bool, focus: str = "") -> str:
    """The prompt /init sends (``exists``: improve the file rather than write it afresh)."""
    prompt = INIT_PROMPT.format(
        action="(or improve)" if exists else "",
        file=AGENTS_FILE,
        existing=EXISTING.format(file=AGENTS_FILE) if exists else "",
    ).replace("write  an", "write an")
    if focus.strip():
        prompt += f"\n\nThe user adds: {focus.strip()}"
    return prompt


def init_command(runtime: Runtime, arg: str) -> CommandResult:
    """/init [notes]: a turn asking the model to write or improve AGENTS.md."""
    exists = (runtime.workspace / AGENTS_FILE).is_file()
    line = f"improving {AGENTS_FILE}…" if exists else f"writing {AGENTS_FILE}…"
    return CommandResult((line,), stream=runtime.agent.run_turn(init_prompt(exists, arg)))
