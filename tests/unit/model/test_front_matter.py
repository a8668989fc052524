"""Front matter as Claude Code's Markdown files write it."""

from __future__ import annotations

import pytest

from lull.model.front_matter import split_front_matter


def test_fields_and_body() -> None:
    text = '---\nname: pdf\nDescription: "Fill PDF forms"\n# a comment\n---\nSteps.\n'
    assert split_front_matter(text) == ({"name": "pdf", "description": "Fill PDF forms"}, "Steps.")


def test_a_folded_value_continues_on_indented_lines() -> None:
    text = "---\ndescription: >\n  Fills forms\n  and reads them.\nname: x\n---\nbody"
    fields, _ = split_front_matter(text)
    assert fields == {"description": "Fills forms and reads them.", "name": "x"}


def test_no_front_matter_is_all_body() -> None:
    assert split_front_matter("\ufeffjust text") == ({}, "just text")


@pytest.mark.parametrize(
    ("text", "message"),
    [("---\nname: x\n", "no closing --- line"), ("---\nname x\n---\n", "line 2: expected")],
)
def test_a_broken_header_is_named(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        split_front_matter(text)
