"""-p attempts on the scripted provider: failure summary, fresh session, answer pool."""

from __future__ import annotations

from lull.engine.loop.agent import Agent
from lull.engine.loop.attempts import (
    PREVIOUS_HEADER,
    AttemptUnavailable,
    parse_summary,
    run_attempts,
)
from lull.engine.sessions.load import load_session
from lull.model.events import (
    AttemptFinished,
    AttemptStarted,
    Event,
    GuardrailTriggered,
    Notice,
    RequestFinished,
)
from lull.model.provider import ProviderError
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from tests.support import AgentFactory

SUMMARY = (
    "Failure type: misdirected\nWhat happened: searched the tests instead of the parser.\n"
    "Useful findings: the bug is in parse.py line 12."
)


def working(text: str = "") -> ScriptedReply:
    """A step that is not an answer yet (a tool call, maybe with text)."""
    return ScriptedReply(text=text, tool_calls=(ScriptedCall("glob", {"pattern": "*.py"}),))


async def collect(events: object) -> list[Event]:
    return [event async for event in events]  # type: ignore[attr-defined]


async def test_a_failed_attempt_is_summarised_and_the_task_starts_afresh(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(working(), ScriptedReply(text=SUMMARY), ScriptedReply(text="Fixed parse.py."))
    first = make_agent(max_turns=1)
    agents: list[Agent] = [first]

    def fresh() -> Agent:
        agents.append(make_agent(max_turns=1))
        return agents[-1]

    events = await collect(run_attempts(first, fresh, "fix the parser", 2))
    started = [e for e in events if isinstance(e, AttemptStarted)]
    finished = [e for e in events if isinstance(e, AttemptFinished)]
    assert [(e.number, e.total) for e in started] == [(1, 2), (2, 2)]
    assert [e.session_id for e in started] == [a.session.id for a in agents]
    assert agents[0].session.id != agents[1].session.id
    assert [(e.outcome, e.failure_type) for e in finished] == [
        ("max_turns", "misdirected"),
        ("answered", None),
    ]
    assert "the bug is in parse.py line 12" in finished[0].summary

    summary_request = provider.requests[1]
    assert summary_request.tool_choice == "none" and summary_request.tools
    assert "Do NOT call any tools" in summary_request.messages[-1].text
    assert "maxTurns" in summary_request.messages[-1].text
    assert any(isinstance(e, RequestFinished) and e.purpose == "failure_summary" for e in events)
    assert [e.kind for e in events if isinstance(e, GuardrailTriggered)] == ["attempt"]

    second = provider.requests[2]
    assert len(second.messages) == 1
    prompt = second.messages[0].text
    assert prompt.startswith("fix the parser\n\n" + PREVIOUS_HEADER)
    assert "[Attempt 1: misdirected]" in prompt and "parse.py line 12" in prompt
    assert "This is the last attempt: give your best answer now" in prompt

    failed = agents[0].session
    assert all("failure report" not in m.text for m in failed.transcript)
    assert all("parse.py line 12" not in m.text for m in failed.transcript)
    assert failed.path is not None
    failed.close()
    saved = load_session(failed.path)
    assert saved.messages[0].text == "fix the parser"


async def test_the_pool_keeps_each_attempts_last_answer_text(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(
        working("The answer is probably 41."),
        ScriptedReply(text=SUMMARY),
        working("The answer is 42, checking once more."),
    )
    first = make_agent(max_turns=1)
    events = await collect(run_attempts(first, lambda: make_agent(max_turns=1), "q", 2))
    finished = [e for e in events if isinstance(e, AttemptFinished)]
    assert [e.answer for e in finished] == [
        "The answer is probably 41.",
        "The answer is 42, checking once more.",
    ]
    assert [e.outcome for e in finished] == ["max_turns", "max_turns"]
    assert finished[-1].failure_type == "incomplete" and finished[-1].summary == ""


async def test_an_answered_or_failed_attempt_is_not_retried(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(ScriptedReply(error=ProviderError("auth", "bad key")))
    events = await collect(run_attempts(make_agent(), make_agent, "q", 3))
    finished = [e for e in events if isinstance(e, AttemptFinished)]
    assert [(e.number, e.outcome) for e in finished] == [(1, "failed")]
    assert len(provider.requests) == 1


async def test_a_failed_summary_request_still_gives_a_summary(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    down = ProviderError("overloaded", "the provider is overloaded")
    provider.script(working(), ScriptedReply(error=down), ScriptedReply(text="done"))
    events = await collect(run_attempts(make_agent(max_turns=1), make_agent, "q", 2))
    finished = [e for e in events if isinstance(e, AttemptFinished)]
    assert finished[0].failure_type == "incomplete" and "maxTurns" in finished[0].summary
    assert any(isinstance(e, Notice) and "overloaded" in e.text for e in events)
    assert finished[-1].outcome == "answered"


async def test_no_fresh_session_ends_the_attempts_with_a_notice(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    def unavailable() -> Agent:
        raise AttemptUnavailable("cannot save sessions in /nowhere")

    provider.script(working(), ScriptedReply(text=SUMMARY))
    events = await collect(run_attempts(make_agent(max_turns=1), unavailable, "q", 2))
    assert isinstance(events[-1], Notice) and "cannot start attempt 2" in events[-1].text


def test_a_summary_without_its_structure_keeps_what_it_says() -> None:
    parsed = parse_summary("**Failure type:** BLOCKED\n**What happened:** tests hang", "incomplete")
    assert parsed.failure_type == "blocked" and parsed.what_happened.startswith("tests hang")
    loose = parse_summary("It did not work out.", "incomplete")
    assert loose.failure_type == "incomplete" and loose.what_happened == "It did not work out."
