"""The light step in the turn loop: once the context crosses the light line, superseded
outputs become pointers (no model call), once per crossing, never per request."""

from __future__ import annotations

from pathlib import Path

from lull.engine.guardrails.policy import GuardrailPolicy
from lull.model.edits import Supersede
from lull.model.events import ContextEdited, Event, RequestFinished
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from tests.support import AgentFactory, run

# The same file read over and over on purpose: without the guards that would point the model
# to its earlier read (duplicates) or stop it (a doom loop).
REREADS = GuardrailPolicy(duplicate_calls=False, doom_loop=False)
FILE_TEXT = "".join(f"row {i}: some content of the file\n" for i in range(60))  # ~500 tokens


def light_edits(events: list[Event]) -> list[Supersede]:
    return [
        e.edit for e in events if isinstance(e, ContextEdited) and isinstance(e.edit, Supersede)
    ]


def reads(*paths: str) -> list[ScriptedReply]:
    steps = [ScriptedReply(tool_calls=(ScriptedCall("read_file", {"path": p}),)) for p in paths]
    return [*steps, ScriptedReply(text="read")]


async def test_rereads_become_pointers_once_per_crossing_never_per_request(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "a.txt").write_text(f"a.txt\n{FILE_TEXT}")
    (workspace / "big.txt").write_text(f"big.txt\n{FILE_TEXT * 8}")
    # without prompt caching the light step has no warm cache to wait for (see test_cold_schedule);
    # without repeat pointers each reread is a full copy for the light step to supersede
    agent = make_agent(guardrails=REREADS, prompt_caching=False, repeat_pointers=False)
    provider.script(*reads(*["a.txt"] * 6))
    below = await run(agent, "read a six times")
    assert not light_edits(below)  # far under the line of a 200k window
    agent.fitter.window.cap = 2 * (agent.estimate_context() + 300)  # the line: 300 tokens on

    provider.script(*reads("big.txt"))
    crossing = await run(agent, "read the big one")
    [edit] = light_edits(crossing)  # one edit, no model call
    assert len(edit.call_ids) == 5 and all(
        "a.txt was read again in full" in p for p in edit.pointers
    )
    assert [e.purpose for e in crossing if isinstance(e, RequestFinished)] == ["turn", "turn"]
    sent = [r.content for m in provider.requests[-1].messages for r in m.tool_results]
    assert sum(1 for text in sent if text.startswith("[Superseded: a.txt")) == 5
    assert agent.estimate_context() >= agent.fitter.budget(agent.shape()).light  # still above

    provider.script(*reads("a.txt", "a.txt"))
    above = await run(agent, "a again, twice")  # three requests above the line
    assert not light_edits(above)  # not per request: the line was not crossed again
    sent = [r.content for m in provider.requests[-1].messages for r in m.tool_results]
    assert sum(1 for text in sent if text.startswith("[Superseded: a.txt")) == 5


async def test_a_light_step_that_frees_little_is_skipped_for_the_crossing(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "a.txt").write_text(f"a.txt\n{FILE_TEXT}")
    (workspace / "big.txt").write_text(f"big.txt\n{FILE_TEXT * 8}")
    agent = make_agent()
    provider.script(*reads("a.txt", "a.txt"))
    await run(agent, "read a twice")
    agent.fitter.window.cap = 2 * (agent.estimate_context() + 300)
    provider.script(*reads("big.txt"))
    crossing = await run(agent, "read the big one")  # one superseded copy: under a quarter
    assert not light_edits(crossing)
    assert not agent.fitter.stages.light_armed  # this crossing is spent: no retry per request
