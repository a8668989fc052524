"""The task tool on the scripted provider: only the sub-agent's answer reaches the parent,
the child session is saved, linked and resumable on its own, usage adds up, runs go in
parallel, and custom agents come from Markdown files."""

from __future__ import annotations

from pathlib import Path

import pytest

from lull.engine.loop.agent import Agent
from lull.engine.loop.config import AgentConfig
from lull.engine.sessions.load import load_session
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.engine.subagents.profiles import load_profiles, parse_profile
from lull.engine.subagents.task import SUBAGENT_PROMPT, SubagentSetup, TaskTool
from lull.model.events import SubagentUpdate, TurnFinished
from lull.model.provider import ModelRequest
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply, last_user_text
from tests.support import AgentFactory


def _with_task(agent: Agent, provider: ScriptedProvider, store: SessionStore) -> None:
    setup = SubagentSetup(store, lambda model: provider, AgentConfig(system="parent"), max_turns=5)
    agent.tools.registry.add(TaskTool(setup, lambda: agent.tools, lambda: agent.session))


async def test_the_parent_sees_only_the_answer_and_the_child_session_stands_alone(
    make_agent: AgentFactory, provider: ScriptedProvider, store: SessionStore, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("the secret is 42\n")
    provider.script(
        ScriptedReply(
            tool_calls=[
                ScriptedCall("task", {"description": "find it", "prompt": "find the secret"})
            ]
        ),
        ScriptedReply(tool_calls=[ScriptedCall("read_file", {"path": "notes.txt"})]),
        ScriptedReply(text="FINDINGS: the secret is 42 (notes.txt:1)"),
        ScriptedReply(text="It is 42."),
    )
    agent = make_agent(mode="default")  # the task tool itself needs no approval
    _with_task(agent, provider, store)
    events = [e async for e in agent.run_turn("what is the secret?")]
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "It is 42."
    child_request, last = provider.requests[1], provider.requests[3]
    assert child_request.system == SUBAGENT_PROMPT and "task" not in [
        t.name for t in child_request.tools
    ]
    results = [r for m in last.messages for r in m.tool_results]
    assert [r.content for r in results] == ["FINDINGS: the secret is 42 (notes.txt:1)"]
    assert "the secret is 42\n" not in str(last.messages)  # the file's text stayed in the child
    steps = [e.step for e in events if isinstance(e, SubagentUpdate)]
    assert steps[0] == "started" and "tool" in steps and steps[-1] == "finished"

    run = agent.session.record.subagents[0]
    child_path = store.path_for(run.session_id)
    child = load_session(child_path)
    assert child.parent_id == agent.session.id and child.agent == "general-purpose"
    assert sum(u.output for u in run.usage_by_model.values()) == child.usage.output > 0
    parent_again = load_session(store.path_for(agent.session.id))
    assert parent_again.subagents[0].session_id == run.session_id  # the link is saved
    assert store.latest().stem == agent.session.id  # -c continues the parent, not the child
    agent.session.close()
    resumed = Session.resume(store, child_path)  # the child resumes on its own
    assert [m.role for m in resumed.transcript][:2] == ["user", "assistant"]
    resumed.close()


async def test_several_sub_agents_run_in_parallel(
    make_agent: AgentFactory, store: SessionStore
) -> None:
    def respond(request: ModelRequest) -> ScriptedReply:
        if request.system == SUBAGENT_PROMPT:
            return ScriptedReply(text=f"answer to {last_user_text(request)}", delay=0.01)
        if request.messages[-1].tool_results:
            return ScriptedReply(text="both done")
        calls = [ScriptedCall("task", {"description": d, "prompt": d}) for d in ("alpha", "beta")]
        return ScriptedReply(tool_calls=calls)

    provider = ScriptedProvider(respond=respond)
    agent = make_agent()
    agent.provider = provider
    agent.fitter.provider = provider
    _with_task(agent, provider, store)
    [e async for e in agent.run_turn("go")]
    results = [r.content for m in agent.session.transcript for r in m.tool_results]
    assert results == ["answer to alpha", "answer to beta"]
    assert len(agent.session.record.subagents) == 2


def test_custom_agents_from_markdown(tmp_path: Path) -> None:
    user, project = tmp_path / "user", tmp_path / "project"
    user.mkdir()
    project.mkdir()
    (user / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews a diff\ntools: read_file, grep_search\n"
        "model: cheap-model\n---\nYou review code.\n"
    )
    (project / "tester.md").write_text(
        "---\nname: tester\ndescription: Runs tests\nmodel: pricey\n---\nRun the tests.\n"
    )
    (project / "broken.md").write_text("no front matter here")
    loaded = load_profiles(user, project)
    by_name = {p.name: p for p in loaded.profiles}
    assert list(by_name) == ["general-purpose", "reviewer", "tester"]
    assert by_name["reviewer"].tools == ("read_file", "grep_search")
    assert by_name["reviewer"].model == "cheap-model" and by_name["tester"].model is None
    assert any("broken.md: skipped: no front matter" in n for n in loaded.notes)
    assert any("model 'pricey' ignored until you /trust" in n for n in loaded.notes)
    with pytest.raises(ValueError, match="description"):
        parse_profile("---\nname: x\n---\nbody", "x.md")


def test_a_profile_can_name_the_parents_mcp_tools() -> None:
    from collections.abc import Mapping
    from typing import Any

    from lull.engine.subagents.task import child_registry
    from lull.tools.base import Tool, ToolContext, ToolOutput

    class Remote(Tool):
        """A stand-in for a connected MCP server's tool."""

        parameters: Mapping[str, Any] = {"type": "object", "properties": {}}
        description = "remote"

        def __init__(self, name: str) -> None:
            self.name = name

        async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
            return ToolOutput("ok")

    parent = [Remote("mcp__github__issues"), Remote("mcp__github__prs"), Remote("mcp__db__query")]
    assert "mcp__github__issues" not in child_registry(None, parent).names()
    chosen = child_registry(("read_file", "mcp__github__*", "task"), parent).names()
    assert chosen == ["read_file", "mcp__github__issues", "mcp__github__prs"]
