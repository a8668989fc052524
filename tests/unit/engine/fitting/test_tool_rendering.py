"""Telling from the first reported prompt whether a server left the tool definitions out."""

from __future__ import annotations

import pytest

from lull.engine.fitting.tool_rendering import ignored_tools_notice


def test_a_prompt_about_the_size_without_tools_means_they_were_left_out() -> None:
    notice = ignored_tools_notice(reported=1_210, local=3_400, tools_local=2_500)
    assert notice is not None and notice.level == "warning"
    assert "--jinja" in notice.text and "chatml-function-calling" in notice.text
    assert "1,210 prompt tokens" in notice.text


@pytest.mark.parametrize(
    ("reported", "local", "tools"),
    [
        (3_100, 3_400, 2_500),  # rendered: about what lull counted
        (2_300, 3_400, 2_500),  # a tokenizer that counts less, tools rendered
        (1_210, 3_400, 300),  # too few tool tokens to tell
        (0, 3_400, 2_500),  # nothing reported
        (9_000, 10_000, 600),  # most of the prompt is messages
    ],
)
def test_nothing_is_said_when_the_tools_were_rendered_or_nothing_can_be_told(
    reported: int, local: int, tools: int
) -> None:
    assert ignored_tools_notice(reported, local, tools) is None
