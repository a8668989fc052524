"""Value checks: what each kind accepts from JSON and from env/flag text."""

from __future__ import annotations

import pytest

from lull.settings.checks import (
    Choice,
    Integer,
    Invalid,
    Number,
    Seconds,
    Text,
    TextList,
    Thinking,
)


def _rejects(check: object, text: str) -> str:
    """The expectation a check states when it refuses ``text``."""
    with pytest.raises(Invalid) as caught:
        check.parse(text)  # type: ignore[attr-defined]
    return str(caught.value)


def test_integer_text_must_be_digits() -> None:
    keep = Integer(1)
    assert keep.parse(" 7 ") == 7
    assert keep.check(7.0) == 7
    for text in ("2.5", "1e1", "1_0", "0", "", "seven"):
        assert _rejects(keep, text) == "an integer >= 1"


def test_number_text_is_a_plain_decimal() -> None:
    minutes = Number()
    assert minutes.parse("-0.25") == -0.25
    assert minutes.parse("90") == 90.0
    for text in ("nan", "inf", "-Infinity", "1_0", "5m"):
        assert _rejects(minutes, text) == "a finite number"


def test_number_ranges_are_described_exactly() -> None:
    assert Number(0, 1, exclusive_minimum=True).expected == "a number > 0 and <= 1"
    assert Number(0, 1, True, True).expected == "a number > 0 and < 1"
    assert Number(0, 1).check(0) == 0.0
    with pytest.raises(Invalid, match="a finite number"):
        Number().check(10**400)


def test_thinking_text() -> None:
    thinking = Thinking()
    assert thinking.parse("TRUE") is True
    assert thinking.parse("false") is False
    assert thinking.parse("4096") == 4096
    assert _rejects(thinking, "100") == "true, false or an integer >= 1024"
    assert _rejects(thinking, "yes") == "true, false or an integer >= 1024"


def test_choice_and_text_nullability() -> None:
    provider = Choice(("anthropic", "openai"), nullable=True)
    assert provider.check(None) is None
    assert provider.parse("openai") == "openai"
    assert _rejects(provider, "OpenAI") == "one of anthropic, openai or null"
    with pytest.raises(Invalid, match=r"^a non-empty string$"):
        Text().check(None)
    with pytest.raises(Invalid):
        Text(nullable=True).check("   ")


def test_text_list_from_json_and_text() -> None:
    paths = TextList()
    assert paths.check(["/a", "/b"]) == ("/a", "/b")
    assert paths.parse("/a, /b,") == ("/a", "/b")
    with pytest.raises(Invalid, match="a list of non-empty strings"):
        paths.check("/a")


def test_seconds_come_from_files_and_milliseconds_from_the_environment() -> None:
    check = Seconds()
    assert check.check(2) == 2.0 and check.parse("2500") == 2.5
    for bad in ("0", "-5", "soon"):
        with pytest.raises(Invalid, match=r"a number > 0 \(milliseconds\)"):
            check.parse(bad)
    with pytest.raises(Invalid):
        check.check(0)
