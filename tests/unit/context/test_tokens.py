"""Token counting: offline-safe encodings, per-message caching, usage calibration."""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lull.context.tokenizer import CHUNK_CHARS, Tokenizer
from lull.context.tokens import (
    CHAR_ESTIMATE,
    OFFLINE_ENCODING,
    TokenCounter,
    UsageCalibration,
    encoding_name_for,
    get_tokenizer,
    tiktoken_cache_file,
)
from lull.model.messages import CLEARED_TOOL_RESULT, Message, Text, ToolCall, ToolResult
from lull.model.provider import ToolSpec
from tests.audit import network_attempts

O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"


@pytest.fixture(autouse=True)
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, ...]]:
    """An empty tiktoken cache (as on a fresh machine) and no network at all: every attempt
    fails (as offline) and is listed, for a test to check there was none."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken-cache"))
    refused: list[tuple[object, ...]] = []

    def refuse(*args: object, **kwargs: object) -> None:
        refused.append(args)
        raise OSError("token counting tried to use the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    return refused


@pytest.fixture
def fresh() -> Iterator[None]:
    """Tokenizers loaded anew in this test (and again afterwards)."""
    get_tokenizer.cache_clear()
    yield
    get_tokenizer.cache_clear()


@pytest.mark.parametrize(
    ("model", "encoding"),
    [
        ("gpt-4o", "o200k_base"),
        ("gpt-5.5", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("claude-sonnet-4-5", "cl100k_base"),
        ("deepseek-chat", "cl100k_base"),
        ("qwen3-coder:30b", "cl100k_base"),
    ],
)
def test_encoding_per_model_family(model: str, encoding: str) -> None:
    assert encoding_name_for(model) == encoding


@pytest.mark.usefixtures("fresh")
def test_missing_o200k_falls_back_to_the_bundled_encoding_fast_and_offline(
    caplog: pytest.LogCaptureFixture, tmp_path: Path, offline: list[tuple[object, ...]]
) -> None:
    caplog.set_level("DEBUG", logger="lull.tokens")
    with network_attempts() as attempts:
        tokenizer = get_tokenizer("o200k_base")
    assert attempts == [] and offline == []  # no download tried (not even a name lookup)
    assert tokenizer.name == OFFLINE_ENCODING and tokenizer.exact
    assert tokenizer.count("hello world") == 2
    lines = [r.getMessage() for r in caplog.records if "o200k_base" in r.getMessage()]
    assert len(lines) == 1 and "never downloads" in lines[0]
    get_tokenizer("o200k_base")
    assert len([r for r in caplog.records if "o200k_base" in r.getMessage()]) == 1
    assert not (tmp_path / "tiktoken-cache").exists()  # nothing fetched, nothing written


@pytest.mark.usefixtures("fresh")
def test_a_corrupt_cached_file_is_not_used(tmp_path: Path) -> None:
    path = tiktoken_cache_file(O200K_URL)
    assert path is not None
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a bpe file")
    assert get_tokenizer("o200k_base").name == OFFLINE_ENCODING
    assert path.read_bytes() == b"not a bpe file"  # left alone, nothing fetched


@pytest.mark.usefixtures("fresh")
def test_disabled_tiktoken_cache_never_fetches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    assert tiktoken_cache_file(O200K_URL) is None
    assert get_tokenizer("o200k_base").name == OFFLINE_ENCODING


@pytest.mark.usefixtures("fresh")
def test_an_unwritable_cache_dir_does_not_matter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(blocker / "cache"))  # cannot be created
    tokenizer = get_tokenizer("cl100k_base")
    assert tokenizer.name == OFFLINE_ENCODING and tokenizer.count("hello world") == 2


@pytest.mark.usefixtures("fresh")
def test_without_tiktoken_counting_estimates_characters(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("DEBUG", logger="lull.tokens")
    monkeypatch.setitem(sys.modules, "tiktoken", None)
    tokenizer = get_tokenizer("cl100k_base")
    assert tokenizer.name == CHAR_ESTIMATE and not tokenizer.exact
    assert tokenizer.count("x" * 10) == 3
    assert any("estimating characters/4" in r.getMessage() for r in caplog.records)


class CountingEncode:
    """A real encoding's ``encode``, counting its calls and the characters each was given."""

    def __init__(self, encode: Callable[[str], list[int]]) -> None:
        self.encode = encode
        self.sizes: list[int] = []

    def __call__(self, text: str) -> list[int]:
        self.sizes.append(len(text))
        return self.encode(text)


def _counting(encoding: str = "cl100k_base") -> tuple[Tokenizer, CountingEncode]:
    real = get_tokenizer(encoding)
    assert real.encode is not None
    encode = CountingEncode(real.encode)
    return Tokenizer(real.name, encode), encode


def test_huge_text_is_counted_in_slices() -> None:
    """One unbroken run is slow for BPE (its cost grows faster than the length): the text is
    encoded in slices of at most CHUNK_CHARS, each character once."""
    tokenizer, encode = _counting()
    count = tokenizer.count("a" * 300_000)
    assert max(encode.sizes) <= CHUNK_CHARS and sum(encode.sizes) == 300_000
    assert len(encode.sizes) == -(-300_000 // CHUNK_CHARS)
    assert count > 1000


def _message(text: str, msg_id: str = "m1") -> Message:
    return Message("user", (Text(text),), id=msg_id)


def test_message_counts_are_cached_and_follow_view_replacements() -> None:
    counter = TokenCounter("claude-sonnet-4-5")
    result = ToolResult("c1", "read_file", "word " * 400)
    original = Message("user", (result,), id="m1", origin="tool")
    full = counter.message(original)
    assert full > 400
    cleared = original.replace_parts(
        (ToolResult("c1", "read_file", CLEARED_TOOL_RESULT, cleared=True),)
    )
    assert counter.message(cleared) < 30  # same id, new content: recounted
    assert counter.message(original) == full  # and back
    rebuilt = original.replace_parts((ToolResult("c1", "read_file", "word " * 400),))
    assert counter.message(rebuilt) == full  # equal content under the same id: a hit


def test_a_long_history_is_encoded_once_not_per_request() -> None:
    tokenizer, encode = _counting()
    counter = TokenCounter(tokenizer=tokenizer)
    history = [_message(f"message {i} " + "lorem ipsum " * 30, f"m{i}") for i in range(1000)]
    first = counter.messages(history)
    assert len(encode.sizes) == 1000  # the first request encodes each message once
    for _ in range(10):
        assert counter.messages(history) == first
    assert len(encode.sizes) == 1000  # later requests: cached, nothing encoded again
    rebuilt = [_message(m.text, m.id) for m in history]  # equal content, new objects
    assert counter.messages(rebuilt) == first and len(encode.sizes) == 1000


def test_tool_calls_results_and_tools_are_counted() -> None:
    counter = TokenCounter("claude-sonnet-4-5")
    call = Message("assistant", (ToolCall("c1", "read_file", {"path": "src/app.py"}),), id="a")
    assert counter.message(call) > 8
    spec = ToolSpec("read_file", "Read a file.", {"type": "object", "properties": {}})
    assert counter.tools([spec]) > counter.text("Read a file.")
    assert counter.prefix("You are lull.", "", [spec]) > counter.tools([spec])


def test_calibration_uses_the_reported_size_plus_what_changed() -> None:
    calibration = UsageCalibration()
    assert calibration.estimate(1000) == 1000  # nothing reported yet
    calibration.observe(reported=1200, local=1000)
    assert calibration.ratio == pytest.approx(1.2)
    assert calibration.estimate(1000) == 1200
    assert calibration.estimate(1500) == 1800  # + 500 local tokens added, scaled
    assert calibration.estimate(400) == 480  # an edit removed content: the estimate drops
    calibration.observe(reported=0, local=500)  # no usage reported: ignored
    assert calibration.ratio == pytest.approx(1.2)
    calibration.observe(reported=100_000, local=10)
    assert calibration.ratio == UsageCalibration.MAX_RATIO
    assert calibration.local_for(3000) == 1000


def test_a_deferred_counter_estimates_without_loading_a_tokenizer() -> None:
    counter = TokenCounter("claude-sonnet-4-5", deferred=True)
    message = Message("user", (Text("x" * 400),))
    assert counter.message(message) == 4 + 100  # overhead + characters / 4
    assert counter.tokenizer.name == CHAR_ESTIMATE and counter._tokenizer is None
    assert not counter.exact
    assert counter.estimated([message]) == 104
    assert counter.exact_counts([message]) == {}


def test_loading_the_tokenizer_recounts_estimates_and_keeps_remembered_counts() -> None:
    counter = TokenCounter("claude-sonnet-4-5", deferred=True)
    saved = Message("user", (Text("hello world " * 50),))
    new = Message("user", (Text("the quick brown fox " * 30),))
    counter.remember(saved, 1234)
    assert counter.message(saved) == 1234  # from the session file: no tokenizer needed
    assert counter.estimated([saved, new]) == counter.message(new)
    counter.load_exact()
    assert counter.exact
    exact = TokenCounter("claude-sonnet-4-5")
    assert counter.message(new) == exact.message(new)
    assert counter.message(saved) == 1234
    assert counter.estimated([saved, new]) == 0
    assert counter.exact_counts([saved, new]) == {saved.id: 1234, new.id: exact.message(new)}


def test_a_remembered_count_is_dropped_when_the_message_changes() -> None:
    counter = TokenCounter("claude-sonnet-4-5", deferred=True)
    message = Message("user", (ToolResult("c1", "read_file", "a" * 4000),))
    counter.remember(message, 999)
    cleared = message.replace_parts((ToolResult("c1", "read_file", CLEARED_TOOL_RESULT),))
    assert counter.message(cleared) < 999
    assert counter.exact_counts([cleared]) == {}


def test_calibration_shift_keeps_estimates_continuous() -> None:
    calibration = UsageCalibration()
    calibration.shift(500)  # nothing observed yet: nothing to move
    assert calibration.local == 0
    calibration.observe(reported=11_000, local=10_000)
    before = calibration.estimate(12_000)
    calibration.shift(300)  # the same prompts now count 300 more locally
    assert calibration.estimate(10_300) == 11_000  # the request last sent: what was reported
    assert abs(calibration.estimate(12_300) - before) <= 0.01 * before
