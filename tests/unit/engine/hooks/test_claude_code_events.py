"""The hook events Claude Code documents beyond the first seven, with real scripts on the
scripted provider: PermissionRequest answers in the user's place, PostToolUseFailure runs for a
failed call (and PostToolUse does not), SubagentStart adds to a sub-agent's prompt and
SubagentStop sends it back to work, StopFailure hears why a turn failed, PostCompact gets the
summary, SessionEnd runs once per session with its reason; every tool event carries
``tool_use_id``."""

from __future__ import annotations

import json
from pathlib import Path

from lull.engine.loop.config import AgentConfig
from lull.engine.sessions.store import SessionStore
from lull.engine.subagents.task import SubagentSetup, TaskTool
from lull.model.events import TurnFailed
from lull.model.provider import ModelRequest, ProviderError
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply, last_user_text
from tests.support import AgentFactory, demo_runtime, run, summary_of
from tests.unit.engine.hooks.test_lifecycle import Ask, _results, hooks, script, write


def _answer(event: str, **specific: object) -> str:
    """A script body that prints one JSON answer."""
    payload = {"hookSpecificOutput": {"hookEventName": event, **specific}}
    return f"cat <<'END'\n{json.dumps(payload)}\nEND\n"


async def test_a_permission_request_hook_allows_in_the_users_place(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "request.json"
    body = f'cat > "{seen}"\n' + _answer("PermissionRequest", decision={"behavior": "allow"})
    allow = script(tmp_path, "allow.sh", body)
    agent = make_agent(mode="default")
    agent.tools.hooks = hooks(workspace, ("PermissionRequest", allow, "Write"))
    ask = Ask()
    agent.set_approver(ask)
    provider.script(write("a.txt", "x"), ScriptedReply(text="ok"))
    await run(agent, "write")
    assert ask.asked == 0 and (workspace / "a.txt").read_text() == "x"
    payload = json.loads(seen.read_text())
    assert payload["hook_event_name"] == "PermissionRequest" and payload["tool_name"] == "Write"
    assert payload["tool_use_id"] and payload["tool_input"]["content"] == "x"


async def test_a_permission_request_hook_denies_with_its_message_or_changes_the_input(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    deny = {"behavior": "deny", "message": "no files outside src/"}
    denier = script(tmp_path, "deny.sh", _answer("PermissionRequest", decision=deny))
    agent = make_agent(mode="default")
    agent.tools.hooks = hooks(workspace, ("PermissionRequest", denier, ""))
    ask = Ask()
    agent.set_approver(ask)
    provider.script(write("a.txt", "x"), ScriptedReply(text="ok"))
    (result,) = _results(await run(agent, "write"))
    assert result == "write_file was not run: no files outside src/"
    assert ask.asked == 0 and not (workspace / "a.txt").exists()

    target = str(workspace / "b.txt")
    allow = {"behavior": "allow", "updatedInput": {"file_path": target, "content": "y"}}
    changer = script(tmp_path, "change.sh", _answer("PermissionRequest", decision=allow))
    agent.tools.hooks = hooks(workspace, ("PermissionRequest", changer, ""))
    provider.script(write("a.txt", "x"), ScriptedReply(text="ok"))
    await run(agent, "write")
    assert (workspace / "b.txt").read_text() == "y" and not (workspace / "a.txt").exists()


async def test_a_permission_request_hooks_new_input_still_meets_the_deny_rules(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    from lull.model.permissions import PermissionRule
    from lull.tools.permissions.rules import RuleBook

    target = str(workspace / ".env")
    allow = {"behavior": "allow", "updatedInput": {"file_path": target, "content": "KEY=1"}}
    changer = script(tmp_path, "change.sh", _answer("PermissionRequest", decision=allow))
    agent = make_agent(mode="default")
    agent.tools.hooks = hooks(workspace, ("PermissionRequest", changer, ""))
    agent.tools.rules = RuleBook([PermissionRule("deny", "write_file(.env)", "/u/settings.json")])
    agent.set_approver(Ask())
    provider.script(write("a.txt", "x"), ScriptedReply(text="ok"))
    (result,) = _results(await run(agent, "write"))
    assert not (workspace / ".env").exists() and not (workspace / "a.txt").exists()
    assert 'deny rule "write_file(.env)"' in result


async def test_no_permission_request_when_nothing_asks(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    hook = script(tmp_path, "mark.sh", f'touch "{marker}"\n')
    agent = make_agent(mode="yolo")
    agent.tools.hooks = hooks(workspace, ("PermissionRequest", hook, ""))
    provider.script(write("a.txt", "x"), ScriptedReply(text="ok"))
    await run(agent, "write")
    assert (workspace / "a.txt").exists() and not marker.exists()


async def test_a_failed_call_runs_post_tool_use_failure_not_post_tool_use(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "failure.json"
    after = tmp_path / "post"
    context = _answer("PostToolUseFailure", additionalContext="the file lives in docs/")
    failure = script(tmp_path, "failure.sh", f'cat > "{seen}"\n' + context)
    post = script(tmp_path, "post.sh", f'touch "{after}"\n')
    agent = make_agent()
    agent.tools.hooks = hooks(
        workspace, ("PostToolUseFailure", failure, "Read"), ("PostToolUse", post, "")
    )
    call = ScriptedCall("read_file", {"path": "missing.md"})
    provider.script(ScriptedReply(tool_calls=(call,)), ScriptedReply(text="ok"))
    (result,) = _results(await run(agent, "read it"))
    assert "[PostToolUseFailure hook context: the file lives in docs/]" in result
    assert not after.exists()
    payload = json.loads(seen.read_text())
    assert payload["hook_event_name"] == "PostToolUseFailure"
    assert payload["is_interrupt"] is False and "missing.md" in payload["error"]
    assert payload["tool_use_id"]


async def test_subagent_start_adds_context_and_subagent_stop_sends_it_back_once(
    provider: ScriptedProvider,
    make_agent: AgentFactory,
    store: SessionStore,
    workspace: Path,
    tmp_path: Path,
) -> None:
    seen = tmp_path / "stop.jsonl"
    start = script(tmp_path, "start.sh", _answer("SubagentStart", additionalContext="use rg"))
    stop = script(
        tmp_path,
        "stop.sh",
        f'input=$(cat); echo "$input" >> "{seen}"\n'
        'if [[ "$input" == *\'"stop_hook_active": false\'* ]]; then\n'
        '  echo "also list the tests" >&2; exit 2\nfi\n',
    )
    agent = make_agent()
    agent.tools.hooks = hooks(
        workspace, ("SubagentStart", start, "general-purpose"), ("SubagentStop", stop, "")
    )
    setup = SubagentSetup(store, lambda model: provider, AgentConfig(system="parent"))
    agent.tools.registry.add(TaskTool(setup, lambda: agent.tools, lambda: agent.session))
    prompts: list[str] = []
    replies = iter(
        [
            ScriptedReply(tool_calls=(ScriptedCall("task", {"description": "d", "prompt": "p"}),)),
            ScriptedReply(text="first answer"),
            ScriptedReply(text="answer with tests"),
            ScriptedReply(text="done"),
        ]
    )

    def respond(request: ModelRequest) -> ScriptedReply:
        prompts.append(last_user_text(request))
        return next(replies)

    provider.respond = respond
    (result,) = _results(await run(agent, "look around"))
    assert result == "answer with tests"
    assert prompts[1] == "p\n\nuse rg"  # the sub-agent's first prompt
    assert "also list the tests" in prompts[2]
    first, second = (json.loads(line) for line in seen.read_text().splitlines())
    assert first["agent_type"] == "general-purpose" and first["stop_hook_active"] is False
    assert first["last_assistant_message"] == "first answer"
    assert Path(first["agent_transcript_path"]).exists()
    assert second["stop_hook_active"] is True


async def test_stop_failure_hears_why_the_turn_failed(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "failure.json"
    hook = script(tmp_path, "failure.sh", f'cat > "{seen}"\n')
    agent = make_agent()
    agent.tools.hooks = hooks(workspace, ("StopFailure", hook, "auth"))
    provider.script(ScriptedReply(error=ProviderError("auth", "bad key")))
    events = await run(agent, "hello")
    assert any(isinstance(e, TurnFailed) for e in events)
    payload = json.loads(seen.read_text())
    assert payload["hook_event_name"] == "StopFailure"
    assert payload["error"] == "auth" and payload["error_details"] == "bad key"


async def test_post_compact_gets_the_summary(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "compact.json"
    post = script(tmp_path, "post.sh", f'cat > "{seen}"\n')

    def respond(request: ModelRequest) -> ScriptedReply:
        if "summary" in last_user_text(request).lower():
            return ScriptedReply(text=summary_of("Talk about birds."))
        return ScriptedReply(text="fine " * 200)

    provider.respond = respond
    agent = make_agent()
    agent.tools.hooks = hooks(workspace, ("PostCompact", post, "manual"))
    for i in range(4):
        await run(agent, f"message {i} " + "words " * 200)
    [e async for e in agent.compact()]
    payload = json.loads(seen.read_text())
    assert payload["hook_event_name"] == "PostCompact" and payload["trigger"] == "manual"
    assert "Talk about birds." in payload["compact_summary"]


async def test_session_end_runs_once_for_each_session_with_its_reason(
    workspace: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "end.jsonl"
    end = script(tmp_path, "end.sh", f'cat >> "{seen}"; echo >> "{seen}"\n')
    runtime = demo_runtime(workspace, env={})
    runtime.agent.tools.hooks = hooks(workspace, ("SessionEnd", end, ""))
    first = runtime.agent.session.id
    runtime.new_session()  # /clear: the first session ends in the background
    assert await runtime.end_session("prompt_input_exit") == []
    assert await runtime.end_session("prompt_input_exit") == []  # once per session
    ended = [json.loads(line) for line in seen.read_text().splitlines() if line.strip()]
    assert [(e["session_id"], e["reason"]) for e in ended] == [
        (first, "clear"),
        (runtime.agent.session.id, "prompt_input_exit"),
    ]
