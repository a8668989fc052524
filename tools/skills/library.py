"""Finding skills: every ``<root>/<name>/SKILL.md`` of the user's and the project's skill
folders, read into :class:`Skill` (name, description, folder).

``SKILL.md`` starts with front matter (``name``: lower-case letters, digits and ``-``, at most
64 characters; ``description``: what it does and when to use it, at most 1024 characters); the
body is the instructions. The first root that defines a name wins (the user's folders come
before the project's, lull's before Claude Code's). A broken file is skipped with a note that
names it, and so is a project's skill whose folder or ``SKILL.md`` links outside its skills
folder (a repository may not make lull read beyond it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lull.model.front_matter import split_front_matter

SKILL_FILE = "SKILL.md"
MAX_NAME = 64
MAX_DESCRIPTION = 1024
_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")


@dataclass(frozen=True, slots=True)
class Skill:
    """One skill: its ``name``, ``description`` (what the model chooses it by), its folder,
    and whether a project (not the user) defined it."""

    name: str
    description: str
    folder: Path
    project: bool = False

    @property
    def instructions(self) -> Path:
        """The ``SKILL.md`` file."""
        return self.folder / SKILL_FILE


@dataclass
class SkillLibrary:
    """The skills found, by name in the order found, and a note per folder skipped."""

    skills: dict[str, Skill] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def parse_skill(text: str, folder: Path, project: bool = False) -> Skill:
    """The skill ``SKILL.md``'s text defines; raises ValueError saying what is wrong."""
    fields, body = split_front_matter(text)
    if not fields:
        raise ValueError("no front matter (the file must start with a --- line)")
    name = fields.get("name") or folder.name
    if len(name) > MAX_NAME or not _NAME.fullmatch(name):
        raise ValueError(f"name: expected lower-case letters, digits and '-' (got {name!r})")
    description = fields.get("description", "").strip()
    if not description:
        raise ValueError("description: missing (the model chooses skills by it)")
    if len(description) > MAX_DESCRIPTION:
        raise ValueError(f"description: at most {MAX_DESCRIPTION} characters")
    if not body.strip():
        raise ValueError("the body (the skill's instructions) is empty")
    return Skill(name, " ".join(description.split()), folder, project)


def find_skills(roots: Iterable[tuple[Path, bool]]) -> SkillLibrary:
    """Every skill under ``roots`` (each a folder of skill folders, and whether it is a
    project's), the first of a name winning."""
    library = SkillLibrary()
    for root, project in roots:
        try:
            folders = sorted(p for p in root.iterdir() if (p / SKILL_FILE).is_file())
        except OSError:
            continue  # no such folder: no skills there
        for folder in folders:
            path = folder / SKILL_FILE
            if project and not path.resolve().is_relative_to(root.resolve()):
                library.notes.append(f"{path}: skipped: it leads outside {root} (a link)")
                continue  # a repository's link must not read beyond it
            try:
                skill = parse_skill(path.read_text(encoding="utf-8", errors="replace"), folder)
            except (OSError, ValueError) as error:
                library.notes.append(f"{path}: skipped: {error}")
                continue
            if skill.name not in library.skills:
                library.skills[skill.name] = Skill(skill.name, skill.description, folder, project)
    return library
