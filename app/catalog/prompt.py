"""The system prompt: a static part (byte-identical always) and an environment part.

The static part never contains anything that changes between requests,
sessions or processes, so it is always served from the provider's cache.
Facts that vary (workspace, platform, date, git status, project instructions)
go in the environment part, computed once when a session starts.
"""

from __future__ import annotations

import datetime as dt
import platform
import subprocess
from pathlib import Path

from lull.catalog.instructions import project_instructions

__all__ = ["STATIC_SYSTEM_PROMPT", "environment_prompt", "git_status", "project_instructions"]

MAX_GIT_STATUS_LINES = 40

STATIC_SYSTEM_PROMPT = """\
You are lull, a coding assistant working in the user's terminal, inside one workspace (a directory,
usually a git repository). You help with software engineering tasks: reading and explaining code,
fixing bugs, adding features, refactoring, running tests and commands.

# How to work
- Understand before you change: read the relevant files (read_file, grep_search, glob,
  list_directory) instead of guessing their content. Look at neighbouring code, tests and
  configuration to follow the project's conventions, libraries and style.
- Make the smallest change that fully solves the task. Use `edit` for changes to existing files
  (old_string must match the file exactly, including indentation, and be unique unless you set
  replace_all) and `write_file` for new files or complete rewrites.
- Verify your work: run the project's tests, linters or the program itself with
  run_shell_command, and fix what fails. Never claim something works without checking it.
- Prefer calling independent tools in parallel (for example, reading several files at once).
- Paths may be relative to the workspace or absolute inside it. Files outside the workspace are
  refused unless the user allowed them.
- Do not run commands that wait for interactive input, start long-running servers in the
  foreground, or change things outside the workspace unless the user asked for it.
- If a tool call is denied, do not retry the same call: adjust your approach or ask the user.
- Never reveal or write API keys, passwords or other secrets into files or output.

# How to answer
- Be concise and direct; the user reads your answers in a terminal. Use GitHub-flavoured
  Markdown for code and lists. Refer to code as `path:line`.
- When the task is done, say briefly what you changed and how you verified it.
- If something is ambiguous or risky (deleting data, large rewrites), ask before acting.
- Some old tool results may read "[Old tool result content cleared — recall id <id>]": their
  content was removed to save context; call `recall` with that id to get it back (a summary of
  earlier messages names a recall id too).
"""


def environment_prompt(
    workspace: Path, today: dt.date | None = None, *, trusted: bool = False
) -> str:
    """The per-session environment block: workspace, platform, date, git status, instructions
    (``trusted``: the workspace's files may import files outside it)."""
    today = today or dt.date.today()
    lines = [
        "# Environment",
        f"- Workspace: {workspace}",
        f"- Platform: {platform.system()} {platform.release()} ({platform.machine()})",
        f"- Today's date: {today.isoformat()}",
    ]
    git = git_status(workspace)
    lines.append(f"- Git: {git}" if git else "- Git: not a git repository")
    sections = ["\n".join(lines)]
    instructions = project_instructions(workspace, trusted=trusted)
    if instructions:
        sections.append(instructions)
    return "\n\n".join(sections)


def git_status(workspace: Path) -> str:
    """Branch and short status of the workspace's repository ('' if none or git is missing)."""
    try:
        result = subprocess.run(
            ["git", "status", "--short", "--branch"],
            cwd=workspace,
            capture_output=True,
            text=True,
            timeout=3,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    if result.returncode != 0:
        return ""
    lines = result.stdout.splitlines()
    if not lines:
        return ""
    branch = lines[0].removeprefix("## ")
    changes = lines[1 : 1 + MAX_GIT_STATUS_LINES]
    more = len(lines) - 1 - len(changes)
    text = f"branch {branch}"
    if changes:
        text += "; changes:\n" + "\n".join(f"    {c}" for c in changes)
        if more > 0:
            text += f"\n    ... and {more} more"
    else:
        text += "; clean"
    return text
