"""Finding skills: SKILL.md folders under each root, the first of a name winning, a broken
one skipped with a note that names its file."""

from __future__ import annotations

from pathlib import Path

from lull.tools.skills.library import find_skills


def skill(root: Path, folder: str, text: str) -> Path:
    """A skill folder with ``SKILL.md``; returns the folder."""
    path = root / folder
    path.mkdir(parents=True)
    (path / "SKILL.md").write_text(text)
    return path


def test_skills_of_every_root_with_the_users_winning(tmp_path: Path) -> None:
    user, project = tmp_path / "user", tmp_path / "project"
    skill(user, "pdf", "---\nname: pdf\ndescription: the user's PDF skill\n---\nUse pypdf.")
    skill(project, "pdf", "---\nname: pdf\ndescription: the project's\n---\nOther.")
    folder = skill(project, "release", "---\ndescription: Cut a release\n---\nTag it.")
    library = find_skills([(user, False), (tmp_path / "missing", False), (project, True)])
    assert list(library.skills) == ["pdf", "release"]
    assert library.skills["pdf"].description == "the user's PDF skill"
    assert not library.skills["pdf"].project
    assert library.skills["release"].folder == folder and library.skills["release"].project
    assert library.notes == []


def test_a_broken_skill_is_skipped_with_its_file_named(tmp_path: Path) -> None:
    skill(tmp_path, "bad", "---\nname: Bad Name\ndescription: x\n---\nbody")
    skill(tmp_path, "empty", "---\nname: empty\ndescription: nothing inside\n---\n")
    skill(tmp_path, "plain", "no front matter")
    library = find_skills([(tmp_path, True)])
    assert library.skills == {}
    assert sorted(library.notes) == [
        f"{tmp_path / 'bad' / 'SKILL.md'}: skipped: name: expected lower-case letters, digits "
        "and '-' (got 'Bad Name')",
        f"{tmp_path / 'empty' / 'SKILL.md'}: skipped: the body (the skill's instructions) is empty",
        f"{tmp_path / 'plain' / 'SKILL.md'}: skipped: no front matter (the file must start "
        "with a --- line)",
    ]


def test_a_projects_skill_that_links_outside_is_skipped(tmp_path: Path) -> None:
    outside = skill(tmp_path / "elsewhere", "secrets", "---\ndescription: x\n---\nbody")
    root = tmp_path / "project"
    root.mkdir()
    (root / "secrets").symlink_to(outside)
    library = find_skills([(root, True)])
    assert library.skills == {}
    assert library.notes == [
        f"{root / 'secrets' / 'SKILL.md'}: skipped: it leads outside {root} (a link)"
    ]
    assert list(find_skills([(root, False)]).skills) == ["secrets"]  # the user's own may link


def test_allowed_tools_are_read_as_rules_and_a_bad_one_skips_the_skill(tmp_path: Path) -> None:
    skill(
        tmp_path,
        "ship",
        '---\ndescription: Ship\nallowed-tools: [Read, "Bash(git add:*)", Edit]\n---\nShip it.',
    )
    skill(tmp_path, "bad", "---\ndescription: Bad\nallowed-tools: Bash(git add\n---\nx")
    library = find_skills([(tmp_path, False)])
    assert library.skills["ship"].allowed_tools == ("Read", "Bash(git add:*)", "Edit")
    assert library.notes == [
        f"{tmp_path / 'bad' / 'SKILL.md'}: skipped: allowed-tools: rule 'Bash(git add' has no "
        "closing parenthesis; write TOOL(PATTERN)"
    ]
