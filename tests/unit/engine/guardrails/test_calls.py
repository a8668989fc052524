"""Duplicate calls, doom loops and failures in a row, on the scripted provider."""

from __future__ import annotations

from pathlib import Path

from lull.engine.calls.approvals import AllowApprover
from lull.engine.guardrails.calls import CallLedger
from lull.engine.guardrails.policy import GuardrailPolicy
from lull.model.approvals import Approval, Decision
from lull.model.events import GuardrailTriggered, ToolFinished, ToolStarted, TurnFinished
from lull.model.messages import ToolCall, ToolResult, unanswered_calls
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from lull.tools.registry import default_registry
from tests.support import AgentFactory, run


def calls(*pairs: tuple[str, dict[str, object]]) -> ScriptedReply:
    """A reply making these calls (name, arguments)."""
    return ScriptedReply(tool_calls=tuple(ScriptedCall(name, args) for name, args in pairs))


class Asked:
    """An approver that answers with one decision and remembers the questions."""

    def __init__(self, decision: Decision) -> None:
        self.decision: Decision = decision
        self.questions: list[tuple[ToolCall, str]] = []

    async def ask(self, call: ToolCall, summary: str) -> Approval:
        self.questions.append((call, summary))
        return Approval(self.decision)


async def test_a_repeated_read_gets_a_pointer_not_a_second_copy(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha " * 500)
    provider.script(
        calls(("read_file", {"path": "a.txt"})),
        calls(("glob", {"pattern": "*.txt"})),
        calls(("read_file", {"path": "a.txt"})),
        ScriptedReply(text="done"),
    )
    agent = make_agent()
    events = await run(agent, "read it")
    results = [e.result for e in events if isinstance(e, ToolFinished)]
    first, pointer = results[0], results[2]
    assert "alpha" in first.content and not pointer.is_error
    assert "alpha" not in pointer.content and len(pointer.content) < 200
    assert first.call_id in pointer.content and "step 1" in pointer.content
    started = [e.call.name for e in events if isinstance(e, ToolStarted)]
    assert started == ["read_file", "glob"]  # the duplicate did not run
    assert [e.kind for e in events if isinstance(e, GuardrailTriggered)] == ["duplicate"]
    assert provider.requests[-1].messages[-1].tool_results[0].content == pointer.content


async def test_a_write_or_a_command_in_between_makes_the_read_run_again(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("old")
    provider.script(
        calls(("read_file", {"path": "a.txt"})),
        calls(("write_file", {"path": "a.txt", "content": "new"})),
        calls(("read_file", {"path": "a.txt"})),
        calls(("run_shell_command", {"command": "true"})),
        calls(("read_file", {"path": "a.txt"})),
        ScriptedReply(text="done"),
    )
    events = await run(make_agent(), "edit it")
    reads = [e.result.content for e in events if isinstance(e, ToolFinished)][::2]
    assert "old" in reads[0] and "new" in reads[1] and "new" in reads[2]
    assert not any(isinstance(e, GuardrailTriggered) for e in events)


async def test_a_different_range_of_the_same_file_is_another_call(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("\n".join(f"line {n}" for n in range(50)))
    provider.script(
        calls(("read_file", {"path": "a.txt", "offset": 1, "limit": 10})),
        calls(("read_file", {"path": "a.txt", "offset": 11, "limit": 10})),
        ScriptedReply(text="done"),
    )
    events = await run(make_agent(), "read")
    assert sum(isinstance(e, ToolStarted) for e in events) == 2


async def test_the_same_call_three_times_in_a_row_ends_the_turn_without_asker(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(*[calls(("run_shell_command", {"command": "make test"}))] * 4)
    agent = make_agent()  # nobody to ask: like -p
    events = await run(agent, "fix it")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.stop_reason == "doom_loop"
    assert "run_shell_command(make test)" in finished.detail
    assert "3 times in a row" in finished.detail
    assert sum(isinstance(e, ToolStarted) for e in events) == 2
    assert len(provider.requests) == 3
    assert not unanswered_calls(agent.session.transcript)  # the stopped call got its result
    last = agent.session.transcript[-1].tool_results[0]
    assert last.is_error and last.content.startswith("not run: stopped a loop")


async def test_the_user_is_asked_and_may_let_the_loop_go_on(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    loop = calls(("glob", {"pattern": "*.py"}))
    provider.script(*[loop] * 4, ScriptedReply(text="finally"))
    agent = make_agent()
    asked = Asked("allow")
    agent.set_approver(asked)
    events = await run(agent, "look")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.text == "finally"
    assert len(asked.questions) == 1  # asked at the 3rd; the 3rd counts afresh as the 1st
    call, question = asked.questions[0]
    assert call.name == "glob" and "3 times in a row" in question
    assert "deny to stop" in question


async def test_denying_at_the_question_stops_the_loop(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(*[calls(("glob", {"pattern": "*.py"}))] * 3)
    agent = make_agent()
    agent.set_approver(Asked("deny"))
    events = await run(agent, "look")
    assert isinstance(events[-1], TurnFinished) and events[-1].stop_reason == "doom_loop"


async def test_failures_in_a_row_stop_the_loop(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(
        *[calls(("read_file", {"path": f"missing{n}.txt"})) for n in range(4)],
        ScriptedReply(text="unreached"),
    )
    agent = make_agent(guardrails=GuardrailPolicy(max_tool_failures=3))
    events = await run(agent, "read")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.stop_reason == "tool_failures"
    assert "the last 3 tool calls failed" in finished.detail
    assert "missing2.txt" in finished.detail


async def test_with_the_guards_off_duplicates_run_and_loops_go_on(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(*[calls(("glob", {"pattern": "*"}))] * 4, ScriptedReply(text="ok"))
    policy = GuardrailPolicy(duplicate_calls=False, doom_loop=False)
    agent = make_agent(guardrails=policy)
    agent.set_approver(AllowApprover())
    events = await run(agent, "look")
    assert sum(isinstance(e, ToolStarted) for e in events) == 4
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "ok"


def test_fingerprints_follow_each_tools_key_arguments() -> None:
    ledger = CallLedger(default_registry(), GuardrailPolicy())

    def mark(name: str, **args: object) -> str:
        return ledger.fingerprint(ToolCall("c", name, args))

    assert mark("run_shell_command", command="ls", timeout_seconds=5) == mark(
        "run_shell_command", command="ls"
    )
    assert mark("web_fetch", url="https://a") != mark("web_fetch", url="https://b")
    assert mark("grep_search", pattern="x", glob="*.py") != mark("grep_search", pattern="x")
    assert mark("read_file", path="a", offset=1) != mark("read_file", path="a", offset=2)


def test_a_failed_read_is_not_pointed_to() -> None:
    ledger = CallLedger(default_registry(), GuardrailPolicy())
    call = ToolCall("c1", "read_file", {"path": "gone.txt"})
    ledger.ran(call, call.arguments, ToolResult("c1", "read_file", "no such file", True), 1)
    assert (
        ledger.duplicate(ToolCall("c2", "read_file", {"path": "gone.txt"}), call.arguments) is None
    )
