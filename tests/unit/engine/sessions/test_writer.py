"""The session writer: its lock, torn tails, and write errors injected at the OS boundary."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest

from lull.engine.sessions.writer import SessionLocked, SessionWriter
from lull.model.events import Notice


def test_a_torn_last_line_is_cut_when_the_writer_opens(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"type":"session"}\n{"type":"mess')
    writer = SessionWriter(path)
    writer.append({"type": "edit"})
    writer.close()
    assert path.read_bytes() == b'{"type":"session"}\n{"type":"edit"}\n'


def test_a_file_of_one_torn_line_is_emptied(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"type":"sess' * 10000)
    SessionWriter(path).close()
    assert path.read_bytes() == b""


def test_one_writer_per_file_until_it_closes(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    first = SessionWriter(path)
    with pytest.raises(SessionLocked) as refused:
        SessionWriter(path)
    assert refused.value.pid == os.getpid()
    assert str(refused.value) == f"session s is in use by another lull (pid {os.getpid()})"
    first.close()
    SessionWriter(path).close()


def _descriptors_of(path: Path) -> list[int]:
    """This process's descriptors open on ``path``."""
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{name}") == str(path):
                found.append(int(name))
        except OSError:
            continue  # closed while listing (the listing's own descriptor)
    return found


def test_a_writer_dropped_without_close_releases_its_descriptor_and_lock(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.jsonl"
    writer = SessionWriter(path)
    writer.append({"type": "session"})
    assert len(_descriptors_of(path)) == 1
    with pytest.warns(ResourceWarning, match="was not closed"):
        del writer
        gc.collect()
    assert _descriptors_of(path) == []
    SessionWriter(path).close()  # the lock went with the descriptor
    assert path.read_bytes() == b'{"type":"session"}\n'


def test_a_closed_writer_leaves_nothing_for_its_finalizer(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    writer = SessionWriter(path)
    writer.close()
    other = os.open(os.devnull, os.O_RDONLY)  # may take the writer's old descriptor number
    try:
        del writer
        gc.collect()
        os.fstat(other)  # still open: the finalizer closed nothing
    finally:
        os.close(other)


def test_a_full_disk_keeps_records_in_memory_and_says_so_once(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.symlink_to("/dev/full")  # every write fails with ENOSPC
    writer = SessionWriter(path)

    assert writer.append({"type": "message", "n": 1}) is False
    assert writer.append({"type": "message", "n": 2}) is False

    assert writer.unsaved == 2
    assert writer.take_notice() == Notice(
        "warning",
        f"could not save the session to {path} (No space left on device); the conversation "
        "goes on in memory and is saved as soon as writing works again",
    )
    assert writer.take_notice() is None
    assert writer.close() == (
        f"2 record(s) of session s could not be saved to {path} (No space left on device); "
        "it resumes from its last saved message"
    )
