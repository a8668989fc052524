"""/context restore on the scripted provider: it undoes the latest compression (and clears),
the next request sends exactly what it sent before the compression, and a restore that would
not fit under the threshold is refused, saying why, with nothing changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from lull.context.compress_prompt import SUMMARY_MARKER
from lull.context.idle import IdlePolicy
from lull.context.restore import restorable, restore_edit
from lull.engine.fitting.restore import restore_context
from lull.model.edits import Restore, Summary
from lull.model.provider import ModelRequest
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply, last_user_text
from tests.support import AgentFactory, Clock, run, summary_of

FILE_TEXT = "".join(f"row {i}: some content of the file\n" for i in range(60))


def respond(request: ModelRequest) -> ScriptedReply:
    """Reads every file named in the prompt, then answers; summarises when asked."""
    if SUMMARY_MARKER in last_user_text(request):
        return ScriptedReply(text=summary_of("Read the files."))
    last = request.messages[-1]
    if last.tool_results or not last.text.startswith("read "):
        return ScriptedReply(text="done")
    names = last.text.removeprefix("read ").split()
    return ScriptedReply(tool_calls=tuple(ScriptedCall("read_file", {"path": n}) for n in names))


@pytest.fixture
def files(workspace: Path) -> list[str]:
    names = [f"f{i}.txt" for i in range(8)]
    for name in names:
        (workspace / name).write_text(f"{name}\n{FILE_TEXT}")
    return names


async def test_restore_after_compress_sends_what_was_sent_before(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str]
) -> None:
    provider.respond = respond
    agent = make_agent()
    for pair in (files[:3], files[3:6], files[6:]):
        await run(agent, "read " + " ".join(pair))
    await run(agent, "thanks")
    before = agent.fitter.sending(agent.shape()).messages
    [e async for e in agent.compact()]
    assert any(isinstance(e, Summary) for e in agent.session.edits)

    outcome = restore_context(agent.fitter, agent.shape(), "compression", agent.clock())
    assert isinstance(outcome.edit, Restore)
    assert outcome.line.startswith("restored the latest compression (")
    assert agent.fitter.sending(agent.shape()).messages == before  # restore ∘ compress = id
    again = restore_context(agent.fitter, agent.shape(), "compression", agent.clock())
    assert again.edit is None and again.line == "nothing to restore: no compression is in force"


async def test_a_restore_that_would_not_fit_is_refused_and_changes_nothing(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str]
) -> None:
    provider.respond = respond
    clock = Clock()
    agent = make_agent(
        clock=clock, idle=IdlePolicy(tool_results_num_to_keep=0), max_output_tokens=256
    )
    await run(agent, "read " + " ".join(files))
    clock.advance_minutes(61)
    await run(agent, "thanks")  # every result is cleared by the idle cleanup
    undo = restore_edit(restorable(agent.session.edits, "all"), clock())
    restored = agent.fitter.estimate_with(agent.shape(), undo)
    agent.fitter.window.cap = int(restored / 0.85)  # fits the window, but past 80% of it
    edits = list(agent.session.edits)

    outcome = restore_context(agent.fitter, agent.shape(), "all", clock())
    assert outcome.edit is None and agent.session.edits == edits
    assert outcome.line.startswith("cannot restore the cleared content: the context would be ~")
    assert "at or above the compression threshold (80%)" in outcome.line
    assert "nothing was changed" in outcome.line
    agent.fitter.window.cap = int(restored / 1.5)
    too_big = restore_context(agent.fitter, agent.shape(), "clears", clock())
    assert too_big.edit is None and "past what the window holds" in too_big.line
