from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from lull.tools.base import ToolContext
from lull.tools.output import cap_output


def _small(ctx: ToolContext, limit: int = 1000, call_id: str = "call_1") -> ToolContext:
    return dataclasses.replace(ctx, max_output_chars=limit, call_id=call_id)


def test_short_text_is_returned_unchanged(ctx: ToolContext) -> None:
    assert cap_output("hello\n", ctx, "output") == "hello\n"
    assert not ctx.output_dir.exists()


def test_long_text_keeps_head_and_tail_and_saves_the_full_text(ctx: ToolContext) -> None:
    text = "".join(f"line {i}\n" for i in range(5000))
    capped = cap_output(text, _small(ctx), "command output")
    assert len(capped) <= 1000
    assert capped.startswith("line 0\n")
    assert capped.rstrip().endswith("line 4999")
    match = re.search(
        r"\[\.\.\. ([\d,]+) characters of command output omitted; "
        r"full output saved to (\S+) \.\.\.\]",
        capped,
    )
    assert match, capped
    saved = Path(match.group(2))
    assert saved == ctx.output_dir / "call_1.txt"
    assert saved.read_text() == text
    kept = len(capped) - len(match.group(0)) - 1
    assert int(match.group(1).replace(",", "")) >= len(text) - kept - 1


def test_unsafe_call_id_becomes_a_safe_file_name(ctx: ToolContext) -> None:
    cap_output("x" * 5000, _small(ctx, call_id="../evil/id"), "output")
    assert [p.name for p in ctx.output_dir.iterdir()] == [".._evil_id.txt"]


def test_without_call_id_a_unique_file_is_used(ctx: ToolContext) -> None:
    cap_output("x" * 5000, _small(ctx, call_id=""), "output")
    cap_output("y" * 5000, _small(ctx, call_id=""), "output")
    assert len(list(ctx.output_dir.iterdir())) == 2


def test_unwritable_output_dir_is_reported_in_the_marker(ctx: ToolContext, tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the directory should be")
    capped = cap_output("z" * 5000, dataclasses.replace(_small(ctx), output_dir=blocker), "out")
    assert "full output could not be saved" in capped
    assert capped.startswith("z")
