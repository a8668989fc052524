"""The journal of in-flight writes and the clean-up at start."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from lull.tools.files.pending_writes import TEMP_SUFFIX, clean_stale, forget, record


def _dead_pid() -> int:
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(child.stdout)


def test_a_finished_write_leaves_no_entry(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    entry = record(journal, tmp_path / f".f.1{TEMP_SUFFIX}")
    assert entry is not None and entry.exists()
    forget(entry)
    assert list(journal.iterdir()) == []
    assert record(None, tmp_path / "x") is None


def test_stale_temp_files_of_dead_writers_are_removed(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    journal.mkdir()
    dead = _dead_pid()
    left = tmp_path / os.fsdecode(b".caf\xe9.txt.ab12" + TEMP_SUFFIX.encode())
    left.write_text("half")
    (journal / f"{dead}-aaaa").write_bytes(os.fsencode(left))
    live_temp = tmp_path / f".g.txt.cd34{TEMP_SUFFIX}"
    live_temp.write_text("in flight")
    (journal / f"{os.getpid()}-bbbb").write_bytes(os.fsencode(live_temp))
    not_ours = tmp_path / "precious.txt"
    not_ours.write_text("user data")
    (journal / f"{dead}-cccc").write_bytes(os.fsencode(not_ours))

    assert clean_stale(journal) == [left]
    assert not left.exists() and live_temp.exists() and not_ours.exists()
    assert sorted(p.name for p in journal.iterdir()) == [f"{os.getpid()}-bbbb"]
    assert clean_stale(tmp_path / "missing") == []
