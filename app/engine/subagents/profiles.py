"""Custom sub-agents from Markdown files: ``.lull/agents/*.md`` (the project) and
``<config>/lull/agents/*.md`` (the user), in the format Claude Code uses, and Claude Code's
``~/.claude/agents/`` and ``.claude/agents/`` read in place (lull's folder wins a name both
define).

A file starts with front matter between ``---`` lines: ``name``, ``description``, ``tools``
(a comma-separated list or a ``[a, b]`` list of built-in tool names; omitted: the read-only
ones) and ``model``; the body is the sub-agent's system prompt. A user's agent wins over a
project's of the same name. A project is untrusted, so its agents' ``model`` (which decides
what a run costs) applies only in a trusted workspace. A broken file is skipped with a
one-line note naming it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from lull.engine.subagents.task import GENERAL, AgentProfile
from lull.model.front_matter import FENCE, split_front_matter


@dataclass
class LoadedProfiles:
    """The profiles found (the built-in one first) and a note per file that was skipped."""

    profiles: list[AgentProfile] = field(default_factory=lambda: [GENERAL])
    notes: list[str] = field(default_factory=list)


def parse_profile(text: str, source: str) -> AgentProfile:
    """The profile a Markdown file defines; raises ValueError saying what is wrong."""
    if text.lstrip("\ufeff").split("\n", 1)[0].strip() != FENCE:
        raise ValueError("no front matter (the file must start with a --- line)")
    fields, body = split_front_matter(text)
    name = fields.get("name", "")
    if not name or not all(c.isalnum() or c in "-_" for c in name):
        raise ValueError("name: expected letters, digits, '-' or '_'")
    description = fields.get("description", "")
    if not description:
        raise ValueError("description: missing (the model chooses sub-agents by it)")
    prompt = body.strip()
    if not prompt:
        raise ValueError("the body (the sub-agent's system prompt) is empty")
    tools = None
    if fields.get("tools"):
        tools = tuple(t.strip() for t in fields["tools"].strip("[]").split(",") if t.strip())
    return AgentProfile(name, description, prompt, tools, fields.get("model") or None, source)


def load_profiles(
    user_dir: Path,
    project_dir: Path,
    *,
    project_trusted: bool = False,
    claude_dirs: tuple[Path, Path] | None = None,
) -> LoadedProfiles:
    """Every profile of the directories: the user's, Claude Code's user folder, the
    project's, Claude Code's project folder (``claude_dirs``: user, project); a name defined
    twice keeps the first."""
    loaded = LoadedProfiles()
    taken = {p.name for p in loaded.profiles}
    folders = [(user_dir, False), (project_dir, True)]
    if claude_dirs is not None:
        folders = [(user_dir, False), (claude_dirs[0], False), (project_dir, True)]
        folders.append((claude_dirs[1], True))
    for directory, is_project in folders:
        try:
            paths = sorted(directory.glob("*.md"))
        except OSError:
            continue
        for path in paths:
            try:
                profile = parse_profile(path.read_text("utf-8", errors="replace"), str(path))
            except (OSError, ValueError) as problem:
                loaded.notes.append(f"{path}: skipped: {problem}")
                continue
            if profile.name in taken:
                loaded.notes.append(f"{path}: skipped: a sub-agent {profile.name!r} exists")
                continue
            if is_project and profile.model and not project_trusted:
                loaded.notes.append(
                    f"{path}: model {profile.model!r} ignored until you /trust this workspace "
                    "(a project may not choose what a run costs)"
                )
                profile = replace(profile, model=None)
            taken.add(profile.name)
            loaded.profiles.append(profile)
    return loaded
