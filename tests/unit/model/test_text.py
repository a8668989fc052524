"""Bytes and text at the edges: in with surrogateescape, to disk escaped, to the wire replaced."""

from __future__ import annotations

import json

from lull.model.text import (
    decode_bytes,
    has_surrogates,
    json_line,
    json_text,
    terminal_text,
    text_bytes,
    wire_safe,
    wire_text,
)


def test_outside_bytes_decode_losslessly() -> None:
    text = decode_bytes(b"caf\xe9 \xff ok \xc3\xa9")
    assert text == "caf\udce9 \udcff ok \u00e9"
    assert text.encode("utf-8", "surrogateescape") == b"caf\xe9 \xff ok \xc3\xa9"


def test_a_json_line_is_valid_utf8_and_reads_back_the_same_lone_surrogates() -> None:
    value = {"k\udce9": ["lone \ud800", "stray \udcff", "plain \u00e9"]}
    line = json_line(value)
    line.decode("utf-8")  # strict: never raises
    assert line.endswith(b"\n") and b"\\ud800" in line and "plain \u00e9".encode() in line
    assert json.loads(line) == value


def test_json_text_keeps_readable_text_unescaped() -> None:
    assert json_text({"a": "\u00e9\u4e2d"}) == '{"a":"\u00e9\u4e2d"}'


def test_wire_text_joins_split_pairs_and_replaces_lone_surrogates() -> None:
    assert wire_text("\ud83d\ude00") == "\U0001f600"
    assert wire_text("a\ud83d b\udce9") == "a\ufffd b\ufffd"
    assert wire_text("clean") == "clean"
    assert not has_surrogates(wire_text("x\udcff"))


def test_wire_safe_replaces_everywhere_and_keeps_clean_objects() -> None:
    clean = {"messages": [{"content": [{"text": "ok"}]}], "n": 1}
    assert wire_safe(clean) is clean
    dirty = {"messages": [{"content": ("a\udce9",)}], "k\ud800": None}
    assert wire_safe(dirty) == {"messages": [{"content": ("a\ufffd",)}], "k\ufffd": None}


def test_text_bytes_never_raises_and_keeps_strings_apart() -> None:
    assert text_bytes("\ud800") != text_bytes("\ud801")
    assert text_bytes("plain") == b"plain"


def test_terminal_text_shows_escape_sequences_instead_of_sending_them() -> None:
    osc52, title, clear = "\x1b]52;c;aGk=\x07", "\x1b]0;owned\x07", "\x1b[2J"
    assert terminal_text(f"a{osc52}b{title}c{clear}") == "a␛]52;c;aGk=␇b␛]0;owned␇c␛[2J"
    assert terminal_text("nul\x00 bs\x08 del\x7f") == "nul␀ bs␈ del␡"
    assert terminal_text("\x9b2J \x9d0;t\x9c") == "␛[2J ␛]0;t␛\\"  # C1: ESC + its 7-bit letter


def test_terminal_text_keeps_newlines_tabs_and_line_ends_but_not_a_lone_return() -> None:
    assert terminal_text("a\tb\nc\r\nd\r") == "a\tb\nc\r\nd\r"
    assert terminal_text("rm -rf /\rls  ") == "rm -rf /␍ls  "
    assert terminal_text("plain é 中 \U0001f600") == "plain é 中 \U0001f600"
    assert terminal_text("x\udcff") == "x\ufffd"


def test_json_text_escapes_every_control_character() -> None:
    text = json_text({"t": "\x1b]0;x\x07 \x9b2J \x7f"})
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in text)
    assert json.loads(text) == {"t": "\x1b]0;x\x07 \x9b2J \x7f"}
