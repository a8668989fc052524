"""Skills through the official SDKs against the strict fake: the ``skill`` tool's schema is
accepted on both wires, only the skills' names and descriptions are in the first request, and
a skill's instructions reach the model only after it loads the skill."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lull.tools.skills.library import find_skills
from lull.tools.skills.tool import SkillTool
from tests.fakes import FakeServer, Reply, ToolUse
from tests.support import AgentFactory, run
from tests.unit.tools.skills.test_library import skill

BODY = "Release steps: bump the version in pyproject.toml, then tag vX.Y.Z."


@pytest.mark.parametrize("vendor", ["anthropic", "openai"])
async def test_a_skill_is_offered_by_name_and_loaded_on_use(
    make_agent: AgentFactory, fake: FakeServer, vendor: str, workspace: Path
) -> None:
    root = workspace / ".claude" / "skills"
    skill(root, "release", f"---\nname: release\ndescription: Cut a release\n---\n{BODY}")
    agent = make_agent(vendor)
    agent.tools.registry.add(SkillTool(find_skills([(root, True)]).skills))
    fake.script(
        Reply(tool_calls=[ToolUse("skill", {"skill": "release"})]),
        Reply(text="bumped and tagged"),
    )
    await run(agent, "cut a release")
    first, second = (json.dumps(body) for body in fake.requests[-2:])
    assert "Cut a release" in first and BODY not in first
    assert BODY in second
