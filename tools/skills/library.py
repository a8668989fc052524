"""Finding skills: every ``<root>/<name>/SKILL.md`` of the user's and the project's skill
folders, read into :class:`Skill` (name, description, folder).

``SKILL.md`` starts with front matter (``name``: lower-case letters, digits and ``-``, at most
64 characters; ``description``: what it does and when to use it, at most 1024 characters;
optionally ``allowed-tools``: permission rules, ``Read, Bash(git add:*)``, that run without
asking once the skill is loaded; ``model`` is not used: a skill runs on the session's model,
and a note says so); the body is the instructions. The first root that defines a name wins
(the user's folders come before the project's, lull's before Claude Code's). A broken file
is skipped with a note that names it, and so is a project's skill whose folder or
``SKILL.md`` links outside its skills folder (a repository may not make lull read beyond
it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from lull.model.front_matter import split_front_matter
from lull.model.permissions import parse_rule, split_rules

SKILL_FILE = "SKILL.md"
MAX_NAME = 64
MAX_DESCRIPTION = 1024
_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")


@dataclass(frozen=True, slots=True)
class Skill:
    """One skill: its ``name``, ``description`` (what the model chooses it by), its folder,
    whether a project (not the user) defined it, the permission rules its ``allowed-tools``
    allows while it is loaded, and the ``model`` it names (not used)."""

    name: str
    description: str
    folder: Path
    project: bool = False
    allowed_tools: tuple[str, ...] = ()
    model: str | None = None

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
    allowed = tuple(split_rules(fields.get("allowed-tools", "")))
    for rule in allowed:
        try:
            parse_rule(rule)
        except ValueError as problem:
            raise ValueError(f"allowed-tools: {problem}") from None
    model = fields.get("model", "").strip() or None
    return Skill(name, " ".join(description.split()), folder, project, allowed, model)


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
            if skill.name in library.skills:
                continue
            library.skills[skill.name] = replace(skill, project=project)
            if skill.model is not None:
                library.notes.append(
                    f"{path}: model {skill.model!r} is not used: a skill runs on the session's "
                    "model"
                )
    return library
