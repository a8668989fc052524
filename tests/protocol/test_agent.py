"""The agent loop over the wire: real providers via the official SDKs, real tools, strict fake.

Engine behaviour that does not depend on the wire is tested on the scripted provider
(``tests/unit/engine``); these tests guard what each protocol carries.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lull.engine.calls.approvals import DenyApprover
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.model.events import (
    AssistantText,
    Notice,
    RequestFinished,
    ToolFinished,
    TurnFailed,
    TurnFinished,
)
from lull.model.messages import Thinking, unanswered_calls
from lull.providers.usage_probe import PROBE_EVERY
from tests.fakes import FakeServer, Reply, ToolUse
from tests.fakes.quirks import ServerQuirks
from tests.support import AgentFactory, run

PROVIDERS = ["anthropic", "openai"]


def _tool_results(body: dict) -> list[tuple[str, bool]]:
    """(content, is_error) of every tool result in a request body, either protocol."""
    found: list[tuple[str, bool]] = []
    for message in body["messages"]:
        if message["role"] == "tool":
            found.append((message["content"], message["content"].startswith("Error")))
        content = message.get("content")
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    text = block["content"]
                    if isinstance(text, list):
                        text = "".join(b.get("text", "") for b in text)
                    found.append((text, bool(block.get("is_error"))))
    return found


@pytest.mark.parametrize("vendor", PROVIDERS)
async def test_multi_step_task_touches_every_tool(
    vendor: str, fake: FakeServer, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    fake.script(
        Reply(tool_calls=[ToolUse("list_directory", {}), ToolUse("glob", {"pattern": "*.py"})]),
        Reply(
            tool_calls=[
                ToolUse("read_file", {"path": "calc.py"}),
                ToolUse("grep_search", {"pattern": "return"}),
            ]
        ),
        Reply(
            tool_calls=[
                ToolUse("edit", {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"})
            ]
        ),
        Reply(
            tool_calls=[
                ToolUse(
                    "write_file",
                    {"path": "main.py", "content": "from calc import add\nprint(add(2, 3))\n"},
                )
            ]
        ),
        Reply(tool_calls=[ToolUse("run_shell_command", {"command": "python3 main.py"})]),
        Reply(tool_calls=[ToolUse("web_fetch", {"url": "http://127.0.0.1:9/"})]),
        Reply(text="Fixed: add now adds."),
    )
    agent = make_agent(vendor)
    events = await run(agent, "fix calc.py")

    assert isinstance(events[-1], TurnFinished)
    assert events[-1].text == "Fixed: add now adds."
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    finished = {e.call.name: e.result for e in events if isinstance(e, ToolFinished)}
    assert set(finished) == {
        "list_directory",
        "glob",
        "read_file",
        "grep_search",
        "edit",
        "write_file",
        "run_shell_command",
        "web_fetch",
    }
    assert "5" in finished["run_shell_command"].content
    assert finished["web_fetch"].is_error
    last = fake.requests[-1]
    results = _tool_results(last)
    assert len(results) == 8
    if vendor == "anthropic":
        assert results[-1][1] is True  # the error result is fed back as an error
    assert sum(isinstance(e, RequestFinished) for e in events) == 7
    assert not unanswered_calls(agent.session.transcript)


@pytest.mark.parametrize("vendor", PROVIDERS)
async def test_parallel_calls_get_one_result_each_in_one_message(
    vendor: str, fake: FakeServer, make_agent: AgentFactory, workspace: Path
) -> None:
    for name in "abc":
        (workspace / f"{name}.txt").write_text(name * 3)
    fake.script(
        Reply(tool_calls=[ToolUse("read_file", {"path": f"{n}.txt"}) for n in "abc"]),
        Reply(text="read three"),
    )
    agent = make_agent(vendor)
    await run(agent, "read all")
    results_message = agent.session.transcript[2]
    assert [r.content.split("\t")[-1].strip() for r in results_message.tool_results] == [
        "aaa",
        "bbb",
        "ccc",
    ]
    assert len(_tool_results(fake.requests[-1])) == 3


async def test_thinking_signatures_round_trip_unmodified(
    fake: FakeServer, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "x.py").write_text("x = 1\n")
    fake.script(
        Reply(
            thinking="I should read x.py first.",
            tool_calls=[ToolUse("read_file", {"path": "x.py"})],
        ),
        Reply(thinking="Now answer.", text="x is 1"),
        Reply(text="second turn"),
    )
    agent = make_agent("anthropic")
    await run(agent, "what is x?")
    await run(agent, "and now?")  # strict fake re-validates every signature
    assert fake.journal[-1].status == 200
    sent = [
        b
        for m in fake.requests[1]["messages"]
        for b in (m["content"] if isinstance(m["content"], list) else [])
        if b.get("type") == "thinking"
    ]
    stored = [p for p in agent.session.transcript[1].parts if isinstance(p, Thinking)]
    assert sent[0]["thinking"] == stored[0].text and sent[0]["signature"] == stored[0].signature


@pytest.mark.parametrize("vendor", PROVIDERS)
async def test_denied_call_gets_a_result_the_model_sees(
    vendor: str, fake: FakeServer, make_agent: AgentFactory, workspace: Path
) -> None:
    fake.script(
        Reply(tool_calls=[ToolUse("write_file", {"path": "evil.txt", "content": "x"})]),
        Reply(text="ok, not writing"),
    )
    agent = make_agent(vendor, mode="default")
    agent.set_approver(DenyApprover("denied: no terminal to ask"))
    events = await run(agent, "write it")
    assert not (workspace / "evil.txt").exists()
    denial = next(e for e in events if isinstance(e, ToolFinished))
    assert denial.result.is_error and "no terminal" in denial.result.content
    assert any("no terminal" in text for text, _ in _tool_results(fake.requests[-1]))


@pytest.mark.parametrize("vendor", PROVIDERS)
async def test_resume_sends_the_same_history(
    vendor: str, fake: FakeServer, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "f.txt").write_text("hello")
    fake.script(
        Reply(tool_calls=[ToolUse("read_file", {"path": "f.txt"})]),
        Reply(text="it says hello"),
        Reply(text="still hello"),
    )
    agent = make_agent(vendor)
    await run(agent, "read f")
    agent.session.close()
    store = SessionStore(tmp_path / "sessions", workspace)
    resumed = make_agent(vendor, session=Session.resume(store, store.latest()))
    await run(resumed, "again?")
    before = fake.requests[1]["messages"]
    after = fake.requests[2]["messages"]
    strip = _without_cache_markers
    assert strip(after[: len(before)])[:-1] == strip(before)[:-1]


def _without_cache_markers(messages: list[dict]) -> list[dict]:
    clean = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            content = [{k: v for k, v in b.items() if k != "cache_control"} for b in content]
        clean.append({**message, "content": content})
    return clean


@pytest.mark.parametrize("vendor", PROVIDERS)
async def test_rate_limit_then_success(
    vendor: str, fake: FakeServer, make_agent: AgentFactory
) -> None:
    fake.fail_next(status=429, retry_after_ms=10)
    fake.script(Reply(text="made it"))
    events = await run(make_agent(vendor), "hi")
    assert [e.text for e in events if isinstance(e, TurnFinished)] == ["made it"]
    assert [e.status for e in fake.journal] == [429, 200]


@pytest.mark.parametrize("vendor", PROVIDERS)
async def test_cut_stream_is_retried_once_then_reported(
    vendor: str, fake: FakeServer, make_agent: AgentFactory
) -> None:
    fake.cut_next_stream(after_events=3)
    fake.script(Reply(text="a long answer, the first try of which is cut"))
    agent = make_agent(vendor)
    events = await run(agent, "hi")
    assert any(isinstance(e, Notice) and "retrying" in e.text for e in events)
    assert isinstance(events[-1], TurnFinished)
    assert events[-1].text == "a long answer, the first try of which is cut"
    assert len(agent.session.transcript) == 2  # the cut attempt left nothing behind

    fake.cut_next_stream(after_events=3)
    fake.cut_next_stream(after_events=3)
    fake.script(Reply(text="cut again " * 10))
    events = await run(agent, "more")
    failed = events[-1]
    assert isinstance(failed, TurnFailed) and failed.kind == "stream_cut"
    assert "dropped" in failed.message
    # the session is still valid: the last message is the user's, no partial answer
    assert agent.session.transcript[-1].role == "user"
    fake.script(Reply(text="fine now"))
    events = await run(agent, "retry")
    assert isinstance(events[-1], TurnFinished)
    assert not any(isinstance(e, AssistantText) and "cut again" in e.text for e in events)


async def test_a_server_that_leaves_the_tools_out_is_said_once(
    fake: FakeServer, make_agent: AgentFactory
) -> None:
    fake.quirks = ServerQuirks(ignore_tools=True)
    fake.script(Reply(text="I cannot read files."), Reply(text="Still no tools."))
    agent = make_agent("vllm")
    first = await run(agent, "read main.py")
    second = await run(agent, "try again")
    said = [e.text for e in first if isinstance(e, Notice) and "leave out the tool" in e.text]
    assert len(said) == 1 and "--enable-auto-tool-choice" in said[0]
    assert not [e for e in second if isinstance(e, Notice) and "leave out the tool" in e.text]


async def test_a_server_without_streamed_usage_is_asked_for_it_once_in_a_while(
    fake: FakeServer, make_agent: AgentFactory
) -> None:
    """llama-cpp-python streams no usage: a one-token plain copy of the request tells the
    prompt size, so the counts calibrate and a server leaving the tools out is noticed."""
    fake.quirks = ServerQuirks.llama_cpp_python()
    fake.quirks.ignore_tools = True
    fake.script(*(Reply(text=f"answer {n}") for n in range(PROBE_EVERY + 1)))
    agent = make_agent("vllm")
    first = await run(agent, "read main.py")
    said = [e.text for e in first if isinstance(e, Notice) and "leave out the tool" in e.text]
    assert len(said) == 1 and "chat_format" in said[0]
    assert agent.fitter.calibration.calibrated
    [finished] = [e for e in first if isinstance(e, RequestFinished)]
    assert finished.usage.reported and finished.usage.prompt_tokens > 0
    probes = [r for r in fake.requests if not r.get("stream")]
    assert len(probes) == 1 and probes[0]["max_tokens"] == 1
    assert probes[0]["messages"] == fake.requests[0]["messages"]
    for n in range(1, PROBE_EVERY + 1):
        await run(agent, f"prompt {n}")
    probes = [r for r in fake.requests if not r.get("stream")]
    assert len(probes) == 2  # the first answer without usage, then every PROBE_EVERY-th


async def test_a_server_that_renders_the_tools_gets_no_such_notice(
    fake: FakeServer, make_agent: AgentFactory
) -> None:
    fake.script(Reply(text="ok"))
    events = await run(make_agent("vllm"), "hello")
    assert not [e for e in events if isinstance(e, Notice) and "leave out the tool" in e.text]
