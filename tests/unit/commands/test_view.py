"""/context (the prompt by kind, edits in force, cache breaks) and /compact.

Against a real agent: the official SDK and the strict fake server, saved sessions.
"""

from __future__ import annotations

import json
from pathlib import Path

from lull.commands import (
    run_command,
)
from lull.context.cachebreak import CacheBreakDetector, find_detector
from lull.model.edits import Summary
from lull.model.events import ContextEdited
from lull.runtime import Runtime
from tests.fakes import FakeServer, Reply, ToolUse
from tests.support import FakeTime, fake_runtime, run, summary_of
from tests.unit.commands.support import drive


async def test_context_breaks_the_prompt_down_by_kind(
    runtime: Runtime, fake: FakeServer, workspace: Path
) -> None:
    (workspace / "big.txt").write_text("several plain words " * 300)
    fake.script(
        Reply(thinking="let me look " * 40, tool_calls=[ToolUse("read_file", {"path": "big.txt"})]),
        Reply(text="it is all x"),
    )
    await run(runtime.agent, "what is in big.txt?")
    runtime.loaded.set("model.contextWindow", 20_000, "--test")
    lines = run_command(runtime, "/context").lines

    assert lines[0].startswith("context: ~") and "of 20,000 tokens" in lines[0]
    bar = lines[1]
    assert bar.startswith("[") and bar.endswith("]") and len(bar) == 42
    rows = {line.split()[1]: line for line in lines[2:9]}
    tokens = {
        label: int(rows[label].split()[-2].replace(",", ""))
        for label in ("system", "tools", "messages", "tool", "thinking", "free")
    }
    assert tokens["tool"] >= 500  # the 6000-character file
    assert tokens["thinking"] > 100 and tokens["system"] > 0 and tokens["tools"] > 0
    assert sum(tokens.values()) == 20_000
    assert "░" in bar and "▞" in bar
    assert "no context edits: the model sees the whole transcript" in lines


def test_context_window_uses_the_setting_over_the_model_table(runtime: Runtime) -> None:
    runtime.loaded.set("model.contextWindow", 12_345, "--test")
    assert runtime.context_window() == 12_345


async def test_compact_summarises_now_with_the_focus_and_the_model_then_sees_the_summary(
    runtime: Runtime, fake: FakeServer
) -> None:
    fake.script(
        Reply(text=" ".join(f"a long answer, part {n}" for n in range(80))),
        Reply(text=" ".join(f"another long answer, part {n}" for n in range(80))),
        Reply(text=summary_of("summary of the talk")),
        Reply(text="going on"),
    )
    await run(runtime.agent, "tell me a lot")
    await run(runtime.agent, "and more")
    result = run_command(runtime, "/compact the goal")
    assert result.lines == ("compacting the conversation (focus: the goal)",)
    events = await drive(result)
    summaries = [e.edit for e in events if isinstance(e, ContextEdited)]
    assert len(summaries) == 1
    (summary,) = summaries
    assert isinstance(summary, Summary) and summary.reason == "manual"
    assert "summary of the talk" in summary.text
    asked = json.dumps(fake.requests[-1])  # the summary request carried the focus
    assert "The user asked to focus the summary on: the goal" in asked
    await run(runtime.agent, "go on")
    sent = json.dumps(fake.requests[-1]["messages"])
    assert "summary of the talk" in sent and "a long answer, part 7" not in sent


async def test_context_reports_prompt_cache_breaks_and_clear_starts_a_fresh_detector(
    runtime: Runtime, fake: FakeServer
) -> None:
    session = runtime.agent.session
    runtime.agent.request_hooks.append(CacheBreakDetector(lambda: session.edits))
    fake.script(Reply(text="one"), Reply(text="two"), Reply(text="three"))
    await run(runtime.agent, "first")
    await run(runtime.agent, "second")
    assert "prompt cache: no prefix change in 2 requests" in run_command(runtime, "/context").lines

    tool = runtime.agent.tools.registry.get("read_file")
    assert tool is not None
    tool.description = "Read a file (a description changed on purpose)."
    await run(runtime.agent, "third")
    run_command(runtime, "/model claude-opus-4-5")
    fake.script(Reply(text="four"))
    await run(runtime.agent, "fourth")
    lines = run_command(runtime, "/context").lines
    assert "prompt cache: 2 prefix change(s) in 4 requests" in " ".join(lines)
    assert (
        "  prompt cache break at request 4: model changed from claude-test to claude-opus-4-5 "
        "(expected: the model changed (each model has its own cache))"
    ) in lines
    assert (
        "  prompt cache break at request 3: tool read_file description changed (unexpected)"
    ) in lines

    run_command(runtime, "/clear")
    detector = find_detector(runtime.agent.request_hooks)
    assert detector is not None and detector.requests == 0
    await run(runtime.agent, "new topic")
    await run(runtime.agent, "more")
    assert detector.unexpected == []  # the new session is not compared with the old one


async def test_context_lists_what_each_compression_replaced_and_restore_undoes_it(
    runtime: Runtime, fake: FakeServer
) -> None:
    fake.script(
        Reply(text=" ".join(f"a long answer, part {n}" for n in range(80))),
        Reply(text=" ".join(f"another long answer, part {n}" for n in range(80))),
        Reply(text=summary_of("summary of the talk")),
    )
    await run(runtime.agent, "tell me a lot")
    await run(runtime.agent, "and more")
    await drive(run_command(runtime, "/compact"))
    lines = run_command(runtime, "/context").lines
    listed = [line for line in lines if line.startswith("  #1 (manual, in force): replaced ")]
    assert len(listed) == 1 and "critical content pinned verbatim" in listed[0]
    assert "compressions (the session file keeps every message; " in " ".join(lines)

    restored = run_command(runtime, "/context restore compression")
    assert restored.lines[0].startswith("restored the latest compression (")
    assert restored.events  # a ContextEdited the front end shows
    assert any(
        line.startswith("  #1 (manual, restored)")
        for line in run_command(runtime, "/context").lines
    )
    nothing = run_command(runtime, "/context restore")
    assert nothing.lines == ("nothing to restore: nothing is cleared or compressed",)
    bad = run_command(runtime, "/context restore everything")
    assert bad.error and "try /context restore, /context restore clears" in bad.lines[0]


async def test_context_lists_the_replies_the_guardrails_rolled_back(
    runtime: Runtime, fake: FakeServer
) -> None:
    fake.script(Reply(text="<tool_call>{}</tool_call>"), Reply(text=""), Reply(text="done"))
    await run(runtime.agent, "go")
    lines = run_command(runtime, "/context").lines
    start = next(i for i, line in enumerate(lines) if line.startswith("rolled-back replies: 2"))
    assert "never sent to the model" in lines[start]
    assert list(lines[start + 1 : start + 3]) == [
        "  an empty reply: no text and no tool call",
        "  a tool call written as text: <tool_call…> tag",
    ]


async def test_context_shows_the_images_share(runtime: Runtime, fake: FakeServer) -> None:
    from tests.images import png_image

    fake.script(Reply(text="a red square"))
    events = [e async for e in runtime.agent.run_turn("what is this?", [png_image(200, 200)])]
    assert events
    runtime.loaded.set("model.contextWindow", 20_000, "--test")
    lines = run_command(runtime, "/context").lines
    (row,) = [line for line in lines if line.split()[1:2] == ["images"]]
    images = int(row.split()[-2].replace(",", ""))
    assert images > 0 and "%" in row
    assert "▚" in lines[1]


async def test_context_says_why_an_idle_cleanup_kept_an_older_result(
    fake: FakeServer, workspace: Path, tmp_path: Path
) -> None:
    clock = FakeTime(fake)
    runtime = fake_runtime(fake, workspace, tmp_path, clock=clock)
    (workspace / "a.py").write_text("value = 1\n" * 60)
    for n in range(6):
        (workspace / f"n{n}.txt").write_text(f"note {n} " * 100)
    edit = {"path": "a.py", "old_string": "value = 1\nvalue = 1\n", "new_string": "value = 2\n"}
    fake.script(
        Reply(tool_calls=[ToolUse("read_file", {"path": "a.py"})]),
        Reply(tool_calls=[ToolUse("edit", edit)]),
        *(Reply(tool_calls=[ToolUse("read_file", {"path": f"n{n}.txt"})]) for n in range(6)),
        Reply(text="done"),
        Reply(text="back"),
    )
    runtime.agent.tools.mode = "yolo"
    await run(runtime.agent, "change a.py and read the notes")
    clock.advance_minutes(30)
    await run(runtime.agent, "anything else?")
    lines = run_command(runtime, "/context").lines
    at = lines.index("    kept 1 older results the work still uses:")
    assert lines[at + 1].endswith(": the latest read of a.py, which the session edits")
