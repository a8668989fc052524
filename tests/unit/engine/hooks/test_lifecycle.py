"""Each hook event end to end on the scripted provider, with real scripts: PreToolUse blocks
a call or changes its input, PostToolUse adds to what the model sees, UserPromptSubmit adds
context or blocks the prompt, Stop makes the model go on, SessionStart adds context once,
PreCompact runs before a summary, Notification runs when lull asks for permission; a
project's hook does not run in an untrusted workspace."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from lull.engine.hooks.runner import HookRunner
from lull.model.approvals import Approval
from lull.model.events import Notice, ToolFinished, TurnFailed, TurnFinished
from lull.model.hooks import HookCommand, HookEvent
from lull.model.messages import ToolCall
from lull.model.provider import ModelRequest
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply, last_user_text
from tests.support import AgentFactory, run, summary_of


def script(tmp_path: Path, name: str, body: str) -> str:
    """A real executable bash script; returns its path (the command)."""
    path = tmp_path / name
    path.write_text("#!/usr/bin/env bash\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def hooks(workspace: Path, *entries: tuple[HookEvent, str, str]) -> HookRunner:
    commands = [HookCommand(event, command, matcher) for event, command, matcher in entries]
    return HookRunner(commands, workspace=workspace)


def write(path: str, content: str) -> ScriptedReply:
    call = ScriptedCall("write_file", {"path": path, "content": content})
    return ScriptedReply(tool_calls=(call,))


def _results(events: list[object]) -> list[str]:
    return [e.result.content for e in events if isinstance(e, ToolFinished)]


def _notices(events: list[object]) -> list[str]:
    return [e.text for e in events if isinstance(e, Notice)]


async def test_pre_tool_use_exit_2_refuses_the_call_and_tells_the_model(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "seen.json"
    guard = script(tmp_path, "guard.sh", f'cat > "{seen}"\necho "no writes to .env" >&2\nexit 2\n')
    agent = make_agent(mode="yolo")
    agent.tools.hooks = hooks(workspace, ("PreToolUse", guard, "Write|Edit"))
    provider.script(write(".env", "KEY=1"), ScriptedReply(text="ok"))
    (result,) = _results(await run(agent, "set a key"))
    assert not (workspace / ".env").exists()
    assert result == "write_file was not run: a PreToolUse hook blocked it: no writes to .env"
    payload = json.loads(seen.read_text())
    assert payload["tool_name"] == "Write" and payload["lull_tool_name"] == "write_file"
    assert payload["hook_event_name"] == "PreToolUse"
    assert payload["tool_input"]["file_path"] == str(workspace / ".env")
    assert payload["session_id"] == agent.session.id


async def test_pre_tool_use_json_changes_the_input_and_allows_without_asking(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"file_path": str(workspace / "safe.txt"), "content": "hello"},
        }
    }
    redirect = script(tmp_path, "redirect.sh", f"cat <<'END'\n{json.dumps(answer)}\nEND\n")
    agent = make_agent(mode="default")  # would ask for a write; the hook allows it
    agent.tools.hooks = hooks(workspace, ("PreToolUse", redirect, "write_file"))
    provider.script(write("other.txt", "bye"), ScriptedReply(text="ok"))
    await run(agent, "write")
    assert (workspace / "safe.txt").read_text() == "hello"
    assert not (workspace / "other.txt").exists()


async def test_a_hooks_allow_does_not_beat_a_deny_rule(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    from lull.model.permissions import PermissionRule
    from lull.tools.permissions.rules import RuleBook

    allow = script(tmp_path, "allow.sh", 'echo \'{"decision": "approve"}\'\n')
    agent = make_agent(mode="yolo")
    agent.tools.hooks = hooks(workspace, ("PreToolUse", allow, ""))
    agent.tools.rules = RuleBook([PermissionRule("deny", "write_file", "/u/settings.json")])
    provider.script(write("a.txt", "x"), ScriptedReply(text="ok"))
    (result,) = _results(await run(agent, "write"))
    assert not (workspace / "a.txt").exists() and 'deny rule "write_file"' in result


async def test_post_tool_use_reason_and_context_reach_the_model(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    lint = script(
        tmp_path,
        "lint.sh",
        'echo \'{"decision": "block", "reason": "line 1: trailing space", '
        '"hookSpecificOutput": {"additionalContext": "run the formatter"}}\'\n',
    )
    agent = make_agent(mode="yolo")
    agent.tools.hooks = hooks(workspace, ("PostToolUse", lint, "Write"))
    provider.script(write("a.py", "x = 1 \n"), ScriptedReply(text="ok"))
    (result,) = _results(await run(agent, "write"))
    assert (workspace / "a.py").exists()
    assert "[PostToolUse hook: line 1: trailing space]" in result
    assert "[PostToolUse hook context: run the formatter]" in result
    tool_message = provider.requests[1].messages[-1]
    assert "trailing space" in tool_message.tool_results[0].content


async def test_user_prompt_submit_adds_context_or_blocks_the_prompt(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    gate = script(
        tmp_path,
        "gate.sh",
        'prompt=$(jq -r .prompt)\nif [[ $prompt == *secret* ]]; then echo "no secrets" >&2; '
        'exit 2; fi\necho "today is Monday"\n',
    )
    agent = make_agent()
    agent.tools.hooks = hooks(workspace, ("UserPromptSubmit", gate, ""))
    events = await run(agent, "what day is it")
    assert any(isinstance(e, TurnFinished) for e in events)
    sent = provider.requests[-1].messages
    assert sent[-1].text == "<user-prompt-submit-hook>\ntoday is Monday\n</user-prompt-submit-hook>"
    asked = len(provider.requests)
    blocked = await run(agent, "tell me the secret")
    (failure,) = [e for e in blocked if isinstance(e, TurnFailed)]
    assert failure.message == "the prompt was blocked by a UserPromptSubmit hook: no secrets"
    assert len(provider.requests) == asked  # never sent
    assert all("secret" not in m.text for m in agent.session.transcript)


async def test_stop_exit_2_makes_the_model_go_on_once(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    check = script(
        tmp_path,
        "check.sh",
        'if [ "$(jq .stop_hook_active)" = true ]; then exit 0; fi\n'
        'echo "the tests were not run" >&2\nexit 2\n',
    )
    agent = make_agent()
    agent.tools.hooks = hooks(workspace, ("Stop", check, ""))
    provider.script(ScriptedReply(text="done"), ScriptedReply(text="ran the tests, done"))
    events = await run(agent, "fix it")
    (finished,) = [e for e in events if isinstance(e, TurnFinished)]
    assert finished.text == "ran the tests, done"
    assert "<stop-hook>\nthe tests were not run\n</stop-hook>" in last_user_text(
        provider.requests[1]
    )
    assert "a Stop hook asks the model to go on: the tests were not run" in _notices(events)


async def test_session_start_context_comes_once_per_session(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "sources"
    start = script(tmp_path, "start.sh", f'jq -r .source >> "{seen}"\necho "use pytest"\n')
    agent = make_agent()
    agent.tools.hooks = hooks(workspace, ("SessionStart", start, "startup|resume"))
    await run(agent, "one")
    await run(agent, "two")
    assert seen.read_text() == "startup\n"
    texts = [m.text for m in provider.requests[-1].messages]
    assert texts.count("<session-start-hook>\nuse pytest\n</session-start-hook>") == 1


async def test_session_start_runs_as_the_session_opens_and_its_context_joins_the_first_prompt(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "sources"
    start = script(tmp_path, "start.sh", f'jq -r .source >> "{seen}"\necho "use pytest"\n')
    agent = make_agent()
    assert not agent.lifecycle.start_pending  # no hooks: nothing to start
    agent.tools.hooks = hooks(workspace, ("SessionStart", start, "startup"))
    assert agent.lifecycle.start_pending
    events = [event async for event in agent.start_session()]
    assert seen.read_text() == "startup\n" and not _notices(events)
    assert agent.session.transcript == []  # a session opened and left stays empty
    assert not agent.lifecycle.start_pending
    assert [event async for event in agent.start_session()] == []
    await run(agent, "one")
    assert seen.read_text() == "startup\n"  # once
    texts = [m.text for m in provider.requests[-1].messages]
    assert texts == ["<session-start-hook>\nuse pytest\n</session-start-hook>", "one"]


async def test_pre_compact_runs_before_a_summary_with_its_trigger(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "compact.json"
    pre = script(tmp_path, "pre.sh", f'cat > "{seen}"\n')

    def respond(request: ModelRequest) -> ScriptedReply:
        if "summary" in last_user_text(request).lower():
            return ScriptedReply(text=summary_of("Talk."))
        return ScriptedReply(text="fine " * 200)

    provider.respond = respond
    agent = make_agent()
    agent.tools.hooks = hooks(workspace, ("PreCompact", pre, "manual"))
    for i in range(4):
        await run(agent, f"message {i} " + "words " * 200)
    [e async for e in agent.compact("keep the plan")]
    payload = json.loads(seen.read_text())
    assert payload["hook_event_name"] == "PreCompact"
    assert payload["trigger"] == "manual" and payload["custom_instructions"] == "keep the plan"


class Ask:
    """An approver that allows and records that it was asked."""

    def __init__(self) -> None:
        self.asked = 0

    async def ask(self, call: ToolCall, summary: str, rules: tuple[str, ...] = ()) -> Approval:
        self.asked += 1
        return Approval("allow")


async def test_notification_runs_when_lull_asks_for_permission(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "note.json"
    note = script(tmp_path, "note.sh", f'cat > "{seen}"\n')
    agent = make_agent(mode="default")
    agent.tools.hooks = hooks(workspace, ("Notification", note, ""))
    ask = Ask()
    agent.set_approver(ask)
    provider.script(write("a.txt", "x"), ScriptedReply(text="ok"))
    await run(agent, "write")
    await agent.tools.drain_background()
    assert ask.asked == 1
    payload = json.loads(seen.read_text())
    assert payload["hook_event_name"] == "Notification"
    assert payload["message"] == "lull needs your permission to use write_file"


async def test_an_untrusted_projects_hook_does_not_run(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "pwned"
    evil = script(tmp_path, "evil.sh", f'touch "{marker}"\nexit 2\n')
    agent = make_agent()
    source = "/repo/.lull/settings.json"
    command = HookCommand("UserPromptSubmit", evil, source=source, project=True)
    agent.tools.hooks = HookRunner([command], workspace=workspace, trusted=lambda: False)
    events = await run(agent, "hello")
    assert any(isinstance(e, TurnFinished) for e in events)
    assert not marker.exists()


async def test_a_stop_hook_that_always_blocks_ends_after_a_few_rounds(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    from lull.engine.hooks.lifecycle import MAX_STOP_CONTINUATIONS

    stubborn = script(tmp_path, "stubborn.sh", 'echo "not yet" >&2\nexit 2\n')
    agent = make_agent()
    agent.tools.hooks = hooks(workspace, ("Stop", stubborn, ""))
    events = await run(agent, "work")
    assert len(provider.requests) == MAX_STOP_CONTINUATIONS + 1
    assert any(isinstance(e, TurnFinished) for e in events)
    assert any("kept the turn going 5 times" in n for n in _notices(events))


async def test_a_claude_code_bash_guard_script_works_unchanged(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    guard = script(
        tmp_path,
        "bash-guard.sh",
        "input=$(cat)\n"
        'tool=$(echo "$input" | jq -r .tool_name)\n'
        'command=$(echo "$input" | jq -r .tool_input.command)\n'
        'if [ "$tool" = Bash ] && [[ $command == *"rm -rf"* ]]; then\n'
        '  echo "Blocked: rm -rf is not allowed" >&2; exit 2\nfi\n',
    )
    (workspace / "keep").mkdir()
    agent = make_agent(mode="yolo")
    agent.tools.hooks = hooks(workspace, ("PreToolUse", guard, "Bash"))
    calls = [ScriptedCall("run_shell_command", {"command": c}) for c in ("rm -rf keep", "ls")]
    provider.script(ScriptedReply(tool_calls=calls), ScriptedReply(text="ok"))
    blocked, listed = _results(await run(agent, "clean"))
    assert (workspace / "keep").is_dir()
    assert blocked.endswith("a PreToolUse hook blocked it: Blocked: rm -rf is not allowed")
    assert "keep" in listed


async def test_a_hooks_allow_does_not_lift_plan_mode_and_its_ask_asks_in_yolo(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    allow = script(tmp_path, "allow.sh", 'echo \'{"decision": "approve"}\'\n')
    planning = make_agent(mode="plan")
    planning.tools.hooks = hooks(workspace, ("PreToolUse", allow, ""))
    provider.script(write("a.txt", "x"), ScriptedReply(text="ok"))
    await run(planning, "write")
    assert not (workspace / "a.txt").exists()

    ask = script(
        tmp_path, "ask.sh", 'echo \'{"hookSpecificOutput": {"permissionDecision": "ask"}}\'\n'
    )
    agent = make_agent(mode="yolo")
    agent.tools.hooks = hooks(workspace, ("PreToolUse", ask, ""))
    approver = Ask()
    agent.set_approver(approver)
    provider.script(write("b.txt", "x"), ScriptedReply(text="ok"))
    await run(agent, "write")
    assert approver.asked == 1 and (workspace / "b.txt").exists()
