"""The summary instruction and cleaning of the model's summary."""

from __future__ import annotations

import re
from pathlib import Path

from lull.context.compress_prompt import (
    SECTIONS,
    SUMMARY_MARKER,
    clean_summary,
    missing_sections,
    summary_instruction,
    summary_messages,
)
from lull.model.messages import Text
from tests.unit.context.builders import assistant, tool_step, user

ROOT = Path(__file__).resolve().parents[3]


def test_the_instruction_asks_for_every_section_and_no_tools() -> None:
    text = summary_instruction(2000)
    assert text.startswith(SUMMARY_MARKER)
    for name in SECTIONS:
        assert f"## {name}" in text
    assert "Do NOT call any tools" in text
    assert "under about 1200 words" in text


def test_every_section_is_asked_for_explained_and_checked() -> None:
    text = summary_instruction(2000)
    assert f"exactly these {len(SECTIONS)} sections" in text
    assert [line[3:] for line in text.splitlines() if line.startswith("## ")] == list(SECTIONS)
    for name in SECTIONS:
        assert f"\n- {name}: " in text, f"the instruction does not say what {name} holds"
        without = "\n".join(f"## {other}\nnone" for other in SECTIONS if other != name)
        assert missing_sections(without) == [name]
    assert "quoted\n  verbatim" in summary_instruction(500)  # constraints: the user's words


def test_the_sections_are_the_ones_the_docs_promise() -> None:
    docs = " ".join((ROOT / "docs" / "context.md").read_text().split())
    start = docs.index("**The summary** has ")
    sentence = docs[start : docs.index(". ", start)]
    count, listed = sentence.removeprefix("**The summary** has ").split(" sections", 1)
    promised = [
        re.sub(r"\(.*?\)", "", item).strip() for item in listed.split(": ", 1)[1].split(";")
    ]
    assert int(count) == len(promised) == len(SECTIONS)
    for said, name in zip(promised, SECTIONS, strict=True):
        assert said.lower().startswith(name.lower()), (said, name)


def test_a_complete_summary_is_recognised_whatever_the_heading_style() -> None:
    plain = "\n".join(f"## {name}\nnone" for name in SECTIONS)
    assert missing_sections(plain) == []
    styled = "\n".join(
        f"### {n}. {name.upper()}:\nx" if n % 2 else f"**{name}**\nx"
        for n, name in enumerate(SECTIONS, 1)
    )
    assert missing_sections(styled) == []


def test_missing_sections_are_named_in_order() -> None:
    text = "## User goal\nship it\n## Next step\nrun the tests\nKey facts are here too"
    missing = missing_sections(text)
    assert missing[0] == "Constraints and preferences" and "Key facts" in missing
    assert "User goal" not in missing and "Next step" not in missing
    assert missing_sections("") == list(SECTIONS)


def test_the_retry_instruction_says_why_and_lists_every_section() -> None:
    text = summary_instruction(500, reminder="the summary lacks the section(s) Key facts")
    assert "REMINDER: your previous answer was rejected because the summary lacks" in text
    assert "User goal, Constraints and preferences" in text


def test_files_still_being_worked_on_are_named_for_detail() -> None:
    text = summary_instruction(500, important=("src/a.py", "b.py"))
    assert "files still being worked on: src/a.py, b.py." in text


def test_a_focus_is_passed_on() -> None:
    assert "focus the summary on: the parser bug" in summary_instruction(500, " the parser bug ")
    assert "focus the summary" not in summary_instruction(500, "  ")


def test_the_instruction_follows_an_answered_turn_as_a_new_user_message() -> None:
    head = [user("hi"), assistant(Text("hello"))]
    messages = summary_messages(head, "SUMMARISE")
    assert [m.role for m in messages] == ["user", "assistant", "user"]
    assert messages[-1].text == "SUMMARISE"
    assert messages[:2] == head


def test_the_instruction_joins_trailing_tool_results_so_roles_alternate() -> None:
    head = [user("go"), *tool_step("c1")]
    messages = summary_messages(head, "SUMMARISE")
    assert [m.role for m in messages] == ["user", "assistant", "user"]
    last = messages[-1]
    assert last.tool_results == head[-1].tool_results
    assert last.text == "SUMMARISE"
    assert head[-1].text == ""  # the caller's head is not changed


def test_clean_summary_drops_scratchpads_and_wrappers() -> None:
    raw = "<analysis>thinking aloud</analysis>\n<summary>\n## Goal\nship it\n</summary>\n"
    assert clean_summary(raw) == "## Goal\nship it"
    assert clean_summary("   \n ") == ""
    assert clean_summary("## Goal\nx") == "## Goal\nx"
