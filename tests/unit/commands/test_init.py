"""/init: a turn against the fake in which the model writes (or improves) AGENTS.md."""

from __future__ import annotations

from pathlib import Path

from lull.commands import run_command
from lull.commands.init import init_prompt
from lull.model.events import TurnFinished
from lull.runtime import Runtime
from tests.fakes import FakeServer, Reply, ToolUse
from tests.unit.commands.support import drive, text_of

AGENTS = "# AGENTS.md\n\n## Build and test\n\n`make test`\n"


async def test_init_has_the_model_write_agents_md(
    runtime: Runtime, fake: FakeServer, workspace: Path
) -> None:
    (workspace / "Makefile").write_text("test:\n\tpytest\n")
    fake.script(
        Reply(tool_calls=[ToolUse("read_file", {"path": "Makefile"})]),
        Reply(tool_calls=[ToolUse("write_file", {"path": "AGENTS.md", "content": AGENTS})]),
        Reply(text="Wrote AGENTS.md with the build and test commands."),
    )
    result = run_command(runtime, "/init")
    assert text_of(result) == "writing AGENTS.md…"
    events = await drive(result)
    assert isinstance(events[-1], TurnFinished)
    assert (workspace / "AGENTS.md").read_text() == AGENTS
    prompt = fake.requests[0]["messages"][-1]["content"]
    text = prompt if isinstance(prompt, str) else prompt[0]["text"]
    assert "AGENTS.md" in text and "build" in text and "conventions" in text


async def test_init_improves_an_existing_file(
    runtime: Runtime, fake: FakeServer, workspace: Path
) -> None:
    (workspace / "AGENTS.md").write_text("old notes")
    fake.script(Reply(text="Improved."))
    result = run_command(runtime, "/init mention the docs folder")
    assert text_of(result) == "improving AGENTS.md…"
    await drive(result)
    sent = str(fake.requests[0]["messages"][-1]["content"])
    assert "already exists" in sent and "mention the docs folder" in sent


def test_the_prompt_reads_well() -> None:
    assert "write an AGENTS.md" in init_prompt(False)
    assert "write (or improve) an AGENTS.md" in init_prompt(True)
