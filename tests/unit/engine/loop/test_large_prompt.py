"""A prompt too large to send whole is saved to a file the model reads in parts; on the
scripted provider, with real tools and a saved session."""

from __future__ import annotations

import re
import stat
from pathlib import Path

from lull.engine.calls.scope import ToolRule, TurnScope
from lull.engine.loop.large_prompt import prompt_path
from lull.model.events import PromptOffloaded, ToolFinished, TurnFailed, TurnStarted
from lull.model.provider import ModelRequest
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from tests.support import AgentFactory, run

WINDOW = 8_000  # a quarter of it: 2,000 tokens, about 8,000 characters of ASCII
HUGE = "Explain what went wrong in this log.\n" + "".join(
    f"2026-11-22 10:{n // 60:02d}:{n % 60:02d} worker-{n % 7} step {n} finished fine\n"
    for n in range(600)
)


async def test_a_huge_prompt_is_saved_and_the_model_reads_it_in_parts(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    agent = make_agent(context_window=WINDOW)
    provider.script(ScriptedReply(text="I will read it."))
    events = await run(agent, HUGE)
    [offloaded] = [e for e in events if isinstance(e, PromptOffloaded)]
    path = Path(offloaded.path)
    assert path.read_text() == HUGE and stat.S_IMODE(path.stat().st_mode) == 0o600
    user_id = agent.session.transcript[0].id
    assert path == prompt_path(agent.tools.context.output_dir, agent.session.id, user_id)
    assert offloaded.tokens > offloaded.limit == WINDOW // 4
    sent = provider.requests[-1].messages[0].text
    assert len(sent) < 4_000 and offloaded.path in sent
    assert "Explain what went wrong" in sent and "step 599" in sent  # first and last lines
    assert agent.session.transcript[0].text == sent  # the session keeps what was sent
    started = [e for e in events if isinstance(e, TurnStarted)]
    assert started[0].prompt == sent

    provider.script(
        ScriptedReply(
            tool_calls=(ScriptedCall("read_file", {"path": str(path), "offset": 300, "limit": 5}),)
        ),
        ScriptedReply(text="Nothing went wrong."),
    )
    later = await run(agent, "go on")
    [read] = [e.result for e in later if isinstance(e, ToolFinished)]
    assert not read.is_error and "step 298 finished" in read.content  # line 300 of the file


async def test_a_prompt_under_the_threshold_is_sent_as_it_is(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    agent = make_agent(context_window=5 * WINDOW)  # a quarter of it: 10,000 tokens
    provider.script(ScriptedReply(text="ok"))
    events = await run(agent, HUGE)
    assert not any(isinstance(e, PromptOffloaded) for e in events)
    assert provider.requests[-1].messages[0].text == HUGE


async def test_a_prompt_that_cannot_be_saved_is_not_sent(
    provider: ScriptedProvider, make_agent: AgentFactory, tmp_path: Path
) -> None:
    agent = make_agent(context_window=WINDOW)
    (tmp_path / "out").write_text("a file where the output directory should be")
    events = await run(agent, HUGE)
    [failed] = [e for e in events if isinstance(e, TurnFailed)]
    assert failed.kind == "prompt_too_long" and "could not be saved" in failed.message
    assert not provider.requests and not agent.session.transcript


async def test_a_command_limited_to_other_tools_may_still_read_its_saved_prompt(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    agent = make_agent(context_window=WINDOW)
    scope = TurnScope((ToolRule("glob"),), "/review")

    def read_saved(request: ModelRequest) -> ScriptedReply:
        if request.messages[-1].tool_results:
            return ScriptedReply(text="read")
        path = re.search(r"saved in full to (\S+) \(", request.messages[-1].text)
        assert path is not None
        other = ScriptedCall("read_file", {"path": "elsewhere.txt"})
        return ScriptedReply(tool_calls=(ScriptedCall("read_file", {"path": path[1]}), other))

    provider.respond = read_saved
    events = [event async for event in agent.run_turn(HUGE, scope=scope)]
    results = {e.call.arguments["path"]: e.result for e in events if isinstance(e, ToolFinished)}
    other = results.pop("elsewhere.txt")
    [saved] = results.values()
    assert not saved.is_error and "step 0 finished" in saved.content
    assert other.is_error and "/review allows only" in other.content
