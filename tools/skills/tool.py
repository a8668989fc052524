"""The ``skill`` tool (Claude Code's ``Skill``): the model loads a skill's instructions when a
task needs it, and any other file of the skill's folder by name.

Only the skills' names and descriptions are in the tool's description, which stays the same
for the whole session, so the cached prefix is small and stable; a skill's body reaches the
context only when the model asks for it (progressive disclosure). Loading reads files and
runs nothing: a skill's scripts run through ``run_shell_command``, asked about like any
command, unless the skill's ``allowed-tools`` allows them: once a skill is loaded (by the
model, or by the user's ``/skill-name``), ``on_load`` makes those rules the session's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lull.model.front_matter import split_front_matter
from lull.tools.base import ToolContext, ToolError, ToolOutput, TypedTool
from lull.tools.params import doc, params_schema
from lull.tools.skills.library import SKILL_FILE, Skill

SKILL_TOOL = "skill"
MAX_LISTED_FILES = 50
MAX_FILE_BYTES = 256 * 1024


@dataclass(frozen=True, slots=True)
class SkillParams:
    """The arguments of ``skill``."""

    skill: str = field(metadata=doc("The skill's name, as listed."))
    file: str | None = field(
        default=None,
        metadata=doc("A file of the skill's folder to read instead (one its instructions name)."),
    )


class SkillTool(TypedTool[SkillParams]):
    """``skill``: a skill's instructions (or one of its files) as the result."""

    name = SKILL_TOOL
    params = SkillParams
    read_only = True

    def __init__(
        self, skills: Mapping[str, Skill], on_load: Callable[[Skill], None] | None = None
    ) -> None:
        self.skills = dict(skills)
        self.on_load = on_load
        self.description = skill_description(list(self.skills.values()))
        self.parameters = params_schema(SkillParams, enums={"skill": sorted(self.skills)})

    def describe_call(self, args: Mapping[str, Any]) -> str:
        """The skill (and file) being loaded."""
        name, file = str(args.get("skill", "")), args.get("file")
        return f"{name}: {file}" if file else name

    async def call(self, params: SkillParams, ctx: ToolContext) -> ToolOutput:
        """The skill's instructions with the list of its other files, or the file asked for."""
        skill = self.skills.get(params.skill)
        if skill is None:
            known = ", ".join(sorted(self.skills))
            raise ToolError(f"skill: no skill named {params.skill!r}; the skills are {known}")
        if params.file:
            return ToolOutput(_read_file(skill, params.file))
        return ToolOutput(self.load(skill))

    def load(self, skill: Skill) -> str:
        """The skill's instructions (with the list of its other files), its ``allowed-tools``
        now in force for the session; raises ToolError when they cannot be read."""
        text = _instructions(skill)
        if self.on_load is not None:
            self.on_load(skill)
        return text


def skill_description(skills: list[Skill]) -> str:
    """What the model is told about the tool: when to use it and every skill's description."""
    listed = "\n".join(f"- {s.name}: {s.description}" for s in sorted(skills, key=lambda s: s.name))
    return (
        "Load a skill: instructions (and scripts or reference files) for a kind of task. When "
        "a task matches a skill's description, load the skill first and follow it; load a "
        "file it names with `file`.\nSkills:\n" + listed
    )


def _instructions(skill: Skill) -> str:
    try:
        text = skill.instructions.read_text(encoding="utf-8", errors="replace")
        _, body = split_front_matter(text)
    except (OSError, ValueError) as error:
        raise ToolError(f"skill: cannot read {skill.instructions}: {error}") from None
    files = _other_files(skill.folder)
    lines = [f"Skill {skill.name} (folder: {skill.folder})", "", body.strip()]
    if files:
        lines += ["", "Other files of this skill (load one with `file`):", *files]
    return "\n".join(lines)


def _other_files(folder: Path) -> list[str]:
    found: list[str] = []
    try:
        paths = sorted(folder.rglob("*"))
    except OSError:
        return found
    for path in paths:
        relative = path.relative_to(folder)
        if any(part.startswith(".") for part in relative.parts) or not path.is_file():
            continue
        if relative.as_posix() != SKILL_FILE:
            found.append(relative.as_posix())
        if len(found) >= MAX_LISTED_FILES:
            found.append("…")
            break
    return found


def _read_file(skill: Skill, name: str) -> str:
    folder = skill.folder.resolve()
    path = (folder / name).resolve()
    if not path.is_relative_to(folder):
        raise ToolError(f"skill: {name!r} is not inside the {skill.name} skill's folder")
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise ToolError(f"skill: {name!r} is a folder of the {skill.name} skill") from None
    except OSError as error:
        raise ToolError(f"skill: cannot read {name!r} of {skill.name}: {error}") from None
    if len(data) > MAX_FILE_BYTES:
        raise ToolError(f"skill: {name!r} is {len(data)} bytes; read it with read_file at {path}")
    if b"\0" in data[:8192]:
        raise ToolError(f"skill: {name!r} is not text; it is at {path}")
    return data.decode("utf-8", errors="replace")
