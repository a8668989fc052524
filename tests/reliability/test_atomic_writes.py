"""File writes land whole and inside the workspace: a symlink swapped in while a write
runs cannot lead it outside, and a write killed half-way leaves no temporary file behind after
the next start."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from lull.runtime import RunOptions, build_runtime
from lull.tools.base import ToolContext
from lull.tools.registry import default_registry

REPO = Path(__file__).resolve().parents[2]


# --- a symlink swapped in during a write ----------------------------------------------------------


SWAPPER = """
import ctypes, os, sys
ws, outside = sys.argv[1], sys.argv[2]
sub, link = (ws + "/sub").encode(), (ws + "/sub_link").encode()
os.symlink(outside, link)
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
while not os.path.exists(ws + "/stop"):
    # atomically swap the real directory and the symlink to outside, back and forth
    if libc.renameat2(AT_FDCWD, sub, AT_FDCWD, link, RENAME_EXCHANGE) != 0:
        sys.exit("renameat2 failed: " + os.strerror(ctypes.get_errno()))
"""


async def test_a_symlink_swapped_in_during_writes_never_lets_one_land_outside(
    tmp_path: Path, workspace: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (workspace / "sub").mkdir()
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(workspace), str(outside)])
    registry = default_registry()
    ctx = ToolContext(workspace=workspace.resolve(), output_dir=tmp_path / "out")
    written = 0
    try:
        for index in range(200):
            args = {"path": "sub/f.txt", "content": f"write {index}\n"}
            written += not (await registry.execute("write_file", args, ctx)).is_error
            args = {"path": "sub/f.txt", "old_string": "", "new_string": "edit\n"}
            await registry.execute("edit", args, ctx)
    finally:
        (workspace / "stop").touch()
        swapper.wait(timeout=10)
    assert swapper.returncode == 0  # the swaps really ran all along
    assert list(outside.iterdir()) == []
    assert not list(workspace.rglob("*.lull-tmp"))
    assert written > 0  # some writes found the real directory and went through


# --- a write killed half-way, before its rename ---------------------------------------------------


KILLED_WRITER = """
import asyncio, os, signal, sys
from pathlib import Path
from lull.runtime import tool_context
from lull.settings.loader import load_settings
from lull.tools.registry import default_registry

def killed_before_the_rename(fd):
    os.kill(os.getpid(), signal.SIGKILL)

os.fsync = killed_before_the_rename  # the content is in the temporary file, not renamed yet
workspace = Path(sys.argv[1])
ctx = tool_context(load_settings(workspace).settings, workspace)
args = {"path": "data.json", "content": "x" * 270_000}
asyncio.run(default_registry().execute("write_file", args, ctx))
"""


def _temp_files(workspace: Path) -> list[str]:
    return sorted(p.name for p in workspace.rglob("*") if p.name != "data.json" and p.is_file())


async def test_a_write_killed_midway_leaves_no_temp_file_after_the_next_start(
    workspace: Path,
) -> None:
    (workspace / "data.json").write_text("{}")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.run(
        [sys.executable, "-c", KILLED_WRITER, str(workspace)], env=env, timeout=60, check=False
    )
    assert child.returncode == -9
    leftovers = _temp_files(workspace)
    assert len(leftovers) == 1 and leftovers[0].endswith(".lull-tmp")  # the reported failure
    assert (workspace / "data.json").read_text() == "{}"  # the original is intact

    runtime = build_runtime(RunOptions(workspace=workspace, demo=True), env={})  # next start
    runtime.close()
    assert _temp_files(workspace) == []
    assert (workspace / "data.json").read_text() == "{}"
