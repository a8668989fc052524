"""A skill as ``/skill-name args`` (as Claude Code runs one), and its ``allowed-tools`` as the
session's allow rules once it is loaded: the runtime ``lull`` builds, a scripted model, real
tools and files."""

from __future__ import annotations

from pathlib import Path

from lull.commands import run_command
from lull.engine.calls.approvals import DenyApprover
from lull.model.events import ToolFinished
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from lull.runtime import Runtime
from lull.settings.workspaces import trust
from tests.support import demo_runtime
from tests.unit.commands.support import drive
from tests.unit.commands.test_custom_run import project_command
from tests.unit.tools.skills.test_library import skill

RELEASE = (
    "---\ndescription: Cut a release\nallowed-tools: Bash(echo:*), Write\nmodel: opus\n---\n"
    "Tag version $ARGUMENTS and write the notes."
)


def _runtime(workspace: Path, *replies: ScriptedReply) -> tuple[Runtime, ScriptedProvider]:
    provider = ScriptedProvider(list(replies))
    runtime = demo_runtime(workspace, provider, env={})
    runtime.agent.tools.mode = "default"
    runtime.agent.set_approver(DenyApprover("nobody to ask"))
    return runtime, provider


def _echo() -> ScriptedReply:
    return ScriptedReply(tool_calls=(ScriptedCall("run_shell_command", {"command": "echo x"}),))


def _done() -> ScriptedReply:
    return ScriptedReply(text="done")


async def test_slash_skill_sends_its_instructions_and_allows_its_tools(workspace: Path) -> None:
    skill(Path.home() / ".claude" / "skills", "release", RELEASE)
    runtime, provider = _runtime(workspace, _echo(), _done())
    note = "model 'opus' is not used: a skill runs on the session's model"
    assert any(note in line for line in runtime.start_notes)
    events = await drive(run_command(runtime, "/release 1.2"))
    assert "Tag version 1.2 and write the notes." in provider.requests[0].messages[-1].text
    [echoed] = [e for e in events if isinstance(e, ToolFinished)]
    assert not echoed.denied and echoed.result.content.endswith("x")  # allowed, not asked
    rules = [r for r in runtime.agent.tools.rules.session if r.source.startswith("skill release")]
    assert [r.text for r in rules] == ["Bash(echo:*)", "Write"]


async def test_a_projects_skill_allows_its_tools_only_once_trusted(workspace: Path) -> None:
    skill(workspace / ".claude" / "skills", "release", RELEASE)
    runtime, _ = _runtime(workspace, _echo(), _done(), _echo(), _done())
    events = await drive(run_command(runtime, "/release 1.2"))
    [refused] = [e for e in events if isinstance(e, ToolFinished)]
    assert refused.denied
    trust(workspace)
    runtime.workspace_trusted()
    events = await drive(run_command(runtime, "/release 1.3"))
    [echoed] = [e for e in events if isinstance(e, ToolFinished)]
    assert not echoed.denied and echoed.result.content.endswith("x")


async def test_the_model_loading_a_skill_allows_its_tools(workspace: Path) -> None:
    skill(Path.home() / ".claude" / "skills", "release", RELEASE)
    load = ScriptedReply(tool_calls=(ScriptedCall("skill", {"skill": "release"}),))
    runtime, _ = _runtime(workspace, _echo(), load, _echo(), _done())
    events = [e async for e in runtime.agent.run_turn("release it")]
    first, loaded, second = [e for e in events if isinstance(e, ToolFinished)]
    assert first.denied and not loaded.denied and not second.denied


async def test_a_custom_command_wins_over_a_skill_of_its_name(workspace: Path) -> None:
    skill(Path.home() / ".claude" / "skills", "release", RELEASE)
    project_command(workspace, "release", "The command's own body.")
    runtime, provider = _runtime(workspace, _done())
    await drive(run_command(runtime, "/release"))
    sent = provider.requests[0].messages[-1].text
    assert "The command's own body." in sent and "Tag version" not in sent
