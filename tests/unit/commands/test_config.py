"""/model (switching keeps the session) and /settings (values and where they came from).

Against a real agent: the official SDK and the strict fake server, saved sessions.
"""

from __future__ import annotations

from lull.commands import (
    run_command,
)
from lull.model.events import TurnFinished
from lull.runtime import Runtime
from tests.fakes import FakeServer, Reply
from tests.support import run


async def test_model_switch_keeps_the_session_and_changes_the_requests(
    runtime: Runtime, fake: FakeServer
) -> None:
    fake.script(Reply(text="before"), Reply(text="after"))
    await run(runtime.agent, "hello")
    session_id = runtime.agent.session.id

    result = run_command(runtime, "/model claude-other")
    assert result.lines[0].startswith("model: claude-other from the next request on")
    assert runtime.provider_config.model == "claude-other"
    assert run_command(runtime, "/model").lines[0].startswith("model: claude-other (provider")

    events = await run(runtime.agent, "and now?")
    assert any(isinstance(e, TurnFinished) for e in events)
    assert fake.requests[-1]["model"] == "claude-other"
    assert runtime.agent.session.id == session_id
    assert len(fake.requests[-1]["messages"]) == 3  # the history came along
    assert run_command(runtime, "/model claude-other").lines == ("already using claude-other",)


def test_settings_show_values_and_where_they_came_from(runtime: Runtime) -> None:
    runtime.loaded.set("model.name", "claude-test", "--model")
    lines = run_command(runtime, "/settings model").lines
    assert all(line.startswith("model.") for line in lines)
    name = next(line for line in lines if line.startswith("model.name "))
    assert name.split() == ["model.name", '"claude-test"', "(--model)"]
    thinking = next(line for line in lines if line.startswith("model.thinking "))
    assert thinking.endswith("(default)")
    everything = run_command(runtime, "/settings").lines
    assert any(line.startswith("context.clearContextOnIdle.") for line in everything)
