"""A server that reports no usage: the local estimate stands in (never zero) and does not
calibrate, and every display says "not reported" instead of a cost."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lull.engine.sessions.load import load_session
from lull.model.events import (
    RequestFinished,
)
from lull.model.provider import (
    Provider,
)
from lull.providers.config import ProviderConfig
from lull.providers.scripted import ScriptedProvider, ScriptedReply
from tests.fakes import FakeServer, Reply
from tests.reliability.helpers import (
    NOW,
    Waits,
    local_on,
    server_agent,
)
from tests.support import run


async def test_unreported_usage_is_not_zero_and_does_not_calibrate(
    fake: FakeServer, waits: Waits, workspace: Path, tmp_path: Path
) -> None:
    fake.quirks.report_usage = False  # neither streamed nor plain answers say
    agent = server_agent(local_on(fake.url + "/v1", waits), workspace, tmp_path)
    fake.script(Reply(text="no usage from me"))
    events = await run(agent, "hi")
    [finished] = [e for e in events if isinstance(e, RequestFinished)]
    assert finished.usage.reported is False and finished.usage.unknown
    assert finished.context_tokens > 0  # the local estimate stands in
    assert not agent.fitter.calibration.calibrated
    assert agent.session.path is not None
    record = load_session(agent.session.path)
    assert record.usage.reported is False and record.calibration is None


def test_displays_say_not_reported(
    fake: FakeServer, workspace: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    from lull.runtime import RunOptions
    from lull.ui.printer import run_print

    fake.quirks.report_usage = False  # neither streamed nor plain answers say
    monkeypatch.setenv("OPENAI_BASE_URL", fake.url + "/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    fake.script(Reply(text="hello"))
    assert run_print(RunOptions(workspace, model="local-model"), "hi", "json") == 0
    payload = json.loads(capsys.readouterr().out)
    # not reported, but an unpriced model on a local server costs nothing either way
    assert payload["usage_reported"] is False and payload["cost_usd"] == 0.0
    fake.script(Reply(text="hello again"))
    assert run_print(RunOptions(workspace, model="local-model"), "hi", "stream-json") == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    [usage] = [line for line in lines if line.get("subtype") == "request"]
    assert usage["usage_reported"] is False and usage["cost_usd"] == 0.0


async def test_cost_status_and_line_summary_say_not_reported(
    workspace: Path, tmp_path: Path, isolated_env: Path
) -> None:
    from lull.commands.usage import cost_report
    from lull.runtime import RunOptions, build_runtime
    from lull.ui.line.status import status_line, turn_summary
    from lull.ui.shared.facts import facts_for
    from lull.ui.shared.status import status_line as bar

    def factory(config: ProviderConfig) -> Provider:
        return ScriptedProvider([ScriptedReply(text="hi", usage_reported=False)])

    runtime = build_runtime(RunOptions(workspace, demo=True), {}, provider_factory=factory)
    from rich.console import Console

    from lull.ui.line.render import EventPrinter

    printer = EventPrinter(Console(file=open(tmp_path / "out.txt", "w")))  # noqa: SIM115
    async for event in runtime.agent.run_turn("hello"):
        printer.render(event)
    report = "\n".join(cost_report(runtime, "").lines)
    assert "tokens: not reported by the server" in report
    assert "cost: unknown (not reported by the server)" in report
    assert "last request: usage not reported by the server" in report
    assert "usage not reported" in status_line(runtime)
    assert "usage not reported" in bar(facts_for(runtime, "ready"), NOW, 200)
    summary = turn_summary(runtime, printer)
    assert summary.startswith("1 request: usage not reported by the server (context ~")
    assert "0 prompt tokens" not in summary
    runtime.close()
