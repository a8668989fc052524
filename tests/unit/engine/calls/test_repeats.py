"""Repeated results across turns, on the scripted provider: a read of an unchanged file or a
repeated query whose output the model still has gets a pointer; anything else, the content."""

from __future__ import annotations

from pathlib import Path

from lull.context.repeats import REPEAT_PREFIX, is_pointer
from lull.engine.loop.agent import Agent
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.model.edits import ClearToolResults
from lull.model.events import ToolFinished
from lull.model.messages import ToolResult
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from tests.support import AgentFactory, run

LINES = "".join(f"line {n}: some text that makes the file worth pointing to\n" for n in range(60))


def call(name: str, **arguments: object) -> ScriptedReply:
    """A reply making one call."""
    return ScriptedReply(tool_calls=(ScriptedCall(name, arguments),))


async def turn(
    provider: ScriptedProvider, agent: Agent, *replies: ScriptedReply
) -> list[ToolResult]:
    """One user turn making ``replies``' calls, then answering; the results of its calls."""
    provider.script(*replies, ScriptedReply(text="done"))
    events = await run(agent, "go on")
    return [e.result for e in events if isinstance(e, ToolFinished)]


def sent(provider: ScriptedProvider, call_id: str) -> str:
    """What the latest request sent as the result of ``call_id``."""
    results = [r for m in provider.requests[-1].messages for r in m.tool_results]
    return next(r.content for r in results if r.call_id == call_id)


async def test_a_read_of_an_unchanged_file_in_a_later_turn_is_a_pointer(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "a.txt").write_text(LINES)
    agent = make_agent()
    [first] = await turn(provider, agent, call("read_file", path="a.txt"))
    [again] = await turn(provider, agent, call("read_file", path="./a.txt"))
    assert "line 59" in first.content
    assert again.content.startswith(REPEAT_PREFIX) and first.call_id in again.content
    assert "a.txt reads exactly as" in again.content and "line 1:" not in again.content
    assert f"recall id {first.call_id}" in again.content and not again.is_error
    assert sent(provider, again.call_id) == again.content
    assert sent(provider, first.call_id) == first.content  # the copy pointed to is still sent


async def test_a_read_after_an_edit_returns_the_new_content(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "a.txt").write_text(LINES)
    agent = make_agent()
    await turn(provider, agent, call("read_file", path="a.txt"))
    edit = call("edit", path="a.txt", old_string="line 30:", new_string="LINE THIRTY:")
    results = await turn(provider, agent, edit, call("read_file", path="a.txt"))
    assert not results[0].is_error
    assert "LINE THIRTY:" in results[1].content and not is_pointer(results[1].content)
    (workspace / "a.txt").write_text(LINES + "one more line\n")  # changed outside lull
    [outside] = await turn(provider, agent, call("read_file", path="a.txt"))
    assert "one more line" in outside.content


async def test_a_range_of_a_file_read_whole_before_is_a_pointer_naming_its_lines(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "a.txt").write_text(LINES)
    agent = make_agent()
    [whole] = await turn(provider, agent, call("read_file", path="a.txt"))
    [part] = await turn(provider, agent, call("read_file", path="a.txt", offset=11, limit=20))
    assert part.content.startswith(REPEAT_PREFIX) and whole.call_id in part.content
    assert "lines 11-30 of a.txt read exactly as" in part.content
    assert "call read_file with offset=31 to read more" in part.content  # the footer stays


async def test_a_whole_file_after_a_range_is_sent_in_full(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "a.txt").write_text(LINES)
    agent = make_agent()
    await turn(provider, agent, call("read_file", path="a.txt", offset=1, limit=20))
    [whole] = await turn(provider, agent, call("read_file", path="a.txt"))
    assert "line 59" in whole.content and not is_pointer(whole.content)
    [other] = await turn(provider, agent, call("read_file", path="a.txt", offset=15, limit=20))
    assert other.content.startswith(REPEAT_PREFIX) and whole.call_id in other.content


async def test_a_cleared_earlier_copy_means_the_content_is_sent_again(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "a.txt").write_text(LINES)
    agent = make_agent()
    [first] = await turn(provider, agent, call("read_file", path="a.txt"))
    agent.session.add_edit(ClearToolResults((first.call_id,)))
    [again] = await turn(provider, agent, call("read_file", path="a.txt"))
    assert "line 59" in again.content and not is_pointer(again.content)
    [third] = await turn(provider, agent, call("read_file", path="a.txt"))
    assert again.call_id in third.content  # the copy still shown is the one pointed to


async def test_a_pointer_is_never_pointed_to(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "a.txt").write_text(LINES)
    agent = make_agent()
    [first] = await turn(provider, agent, call("read_file", path="a.txt"))
    await turn(provider, agent, call("read_file", path="a.txt"))
    [third] = await turn(provider, agent, call("read_file", path="a.txt"))
    assert first.call_id in third.content


async def test_a_range_is_not_pointed_into_a_read_the_model_saw_truncated(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "a.txt").write_text(LINES)
    agent = make_agent(tool_output_max_tokens=300)
    await turn(provider, agent, call("read_file", path="a.txt"))
    [part] = await turn(provider, agent, call("read_file", path="a.txt", offset=30, limit=5))
    assert "line 30" in part.content and not is_pointer(part.content)


async def test_a_repeated_query_with_the_same_output_is_a_pointer(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    for n in range(12):
        (workspace / f"module_{n}.py").write_text(f"def handler_{n}():\n    return 'needle {n}'\n")
    agent = make_agent()
    grep = call("grep_search", pattern="needle|handler")
    [first] = await turn(provider, agent, grep)
    [again] = await turn(provider, agent, grep)
    assert again.content.startswith(REPEAT_PREFIX) and first.call_id in again.content
    assert "this grep_search call gave exactly the output" in again.content
    (workspace / "new.py").write_text("needle = 1\n")
    [changed] = await turn(provider, agent, grep)
    assert "new.py" in changed.content and not is_pointer(changed.content)
    [other] = await turn(
        provider, agent, call("grep_search", pattern="needle|handler", glob="module_*")
    )
    assert not is_pointer(other.content)  # another query, another result


async def test_switched_off_every_read_sends_the_content(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "a.txt").write_text(LINES)
    agent = make_agent(repeat_pointers=False)
    await turn(provider, agent, call("read_file", path="a.txt"))
    [again] = await turn(provider, agent, call("read_file", path="a.txt"))
    assert "line 59" in again.content and not is_pointer(again.content)


async def test_a_resumed_session_points_to_reads_made_before_it_was_resumed(
    provider: ScriptedProvider,
    make_agent: AgentFactory,
    workspace: Path,
    store: SessionStore,
) -> None:
    (workspace / "a.txt").write_text(LINES)
    agent = make_agent()
    [first] = await turn(provider, agent, call("read_file", file_path="a.txt"))
    assert agent.session.path is not None
    path = agent.session.path
    agent.session.close()
    resumed = make_agent(session=Session.resume(store, path))
    [again] = await turn(provider, resumed, call("read_file", path=str(workspace / "a.txt")))
    assert again.content.startswith(REPEAT_PREFIX) and first.call_id in again.content
