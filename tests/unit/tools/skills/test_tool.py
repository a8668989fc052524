"""The skill tool: only names and descriptions are offered; loading gives the instructions
and the list of the skill's files, a file by name, never one outside the skill's folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from lull.tools.base import ToolContext
from lull.tools.registry import ToolRegistry
from lull.tools.skills.library import find_skills
from lull.tools.skills.tool import SkillTool
from tests.unit.tools.skills.test_library import skill

BODY = "To fill a form, run `python scripts/fill.py FORM` and check with reference.md."


@pytest.fixture
def tool(tmp_path: Path) -> SkillTool:
    folder = skill(
        tmp_path / "skills", "pdf", f"---\nname: pdf\ndescription: PDF forms\n---\n{BODY}"
    )
    (folder / "scripts").mkdir()
    (folder / "scripts" / "fill.py").write_text("print('filled')\n")
    (folder / "reference.md").write_text("Field names are case-sensitive.\n")
    (tmp_path / "secret.txt").write_text("token")
    return SkillTool(find_skills([(tmp_path / "skills", False)]).skills)


def test_only_names_and_descriptions_are_offered(tool: SkillTool) -> None:
    assert "- pdf: PDF forms" in tool.description
    assert BODY not in tool.description
    assert tool.parameters["properties"]["skill"]["enum"] == ["pdf"]


async def test_loading_gives_the_instructions_and_the_skills_files(
    tool: SkillTool, ctx: ToolContext
) -> None:
    output = await tool.run({"skill": "pdf"}, ctx)
    assert BODY in output.content and "name: pdf" not in output.content
    assert output.content.endswith("reference.md\nscripts/fill.py")
    reference = await tool.run({"skill": "pdf", "file": "reference.md"}, ctx)
    assert reference.content == "Field names are case-sensitive.\n"


async def test_nothing_outside_the_skill_and_no_unknown_skill(
    tool: SkillTool, ctx: ToolContext
) -> None:
    registry = ToolRegistry([tool])
    outside = await registry.execute("skill", {"skill": "pdf", "file": "../../secret.txt"}, ctx)
    assert outside.is_error and "not inside the pdf skill's folder" in outside.content
    unknown = await registry.execute("skill", {"skill": "docx"}, ctx)
    assert unknown.is_error and "docx" in unknown.content
