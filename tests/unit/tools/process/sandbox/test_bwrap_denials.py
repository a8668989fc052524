"""What the model is told when the real bubblewrap sandbox denies common tools: the path the
error names, or (said to be a guess) the one the command names, or only which boundary
applies when neither says."""

from __future__ import annotations

import sys

import pytest

from lull.tools.base import ToolContext
from lull.tools.builtin.shell import SandboxedShellTool as ShellTool
from tests.unit.tools.process.sandbox.conftest import FAKE_KEY, Place

pytestmark = pytest.mark.usefixtures("needs_bwrap")

PY = sys.executable
WRITES = {
    "touch": ("touch {out}/new", "{out}/new"),
    "mkdir": ("mkdir {out}/made", "{out}/made"),
    "mkdir -p": ("mkdir -p {out}/a/b", "{out}/a"),
    "cp": ("echo x > f.txt && cp f.txt {out}/", "{out}/f.txt"),
    "rm": ("rm {out}/keep/file.txt", "{out}/keep/file.txt"),
    "mv": ("mv {out}/keep/file.txt {out}/moved.txt", "{out}/keep/file.txt"),
    "redirect": ("echo x > {out}/keep/file.txt", "{out}/keep/file.txt"),
    "python open": (f"{PY} -c \"open('{{out}}/p.txt', 'w')\"", "{out}/p.txt"),
    "python mkdir": (f"{PY} -c \"import os; os.mkdir('{{out}}/q')\"", "{out}/q"),
}


async def run(ctx: ToolContext, command: str) -> tuple[str, int]:
    out = await ShellTool().run({"command": command}, ctx)
    code = out.metadata["exit_code"]
    assert isinstance(code, int)
    return out.content, code


@pytest.mark.parametrize("tool", list(WRITES))
async def test_a_denied_write_names_the_path_the_error_names(
    sandboxed: ToolContext, place: Place, tool: str
) -> None:
    command, denied = WRITES[tool]
    content, code = await run(sandboxed, command.format(out=place.outside))
    assert code != 0
    assert (place.outside / "keep" / "file.txt").read_text() == "still here"
    expected = denied.format(out=place.outside)
    assert f"Sandbox: the sandbox denied writing {expected} (outside the workspace;" in content
    assert "guess" not in content and "does not name" not in content


HIDDEN = {
    "cat": ("cat ~/.ssh/id_rsa", "id_rsa"),
    "python read": (f"{PY} -c \"open('{{home}}/.ssh/id_rsa').read()\"", "id_rsa"),
    "cp": ("cp ~/.ssh/id_rsa .", "id_rsa"),
    "python write": (f"{PY} -c \"open('{{home}}/.ssh/new', 'w')\"", "new"),
}


@pytest.mark.parametrize("tool", list(HIDDEN))
async def test_a_hidden_place_is_named_whoever_reads_or_writes_it(
    sandboxed: ToolContext, place: Place, tool: str
) -> None:
    command, name = HIDDEN[tool]
    content, code = await run(sandboxed, command.format(home=place.home))
    assert code != 0 and FAKE_KEY not in content
    assert f"the sandbox denied access to {place.home / '.ssh' / name} (hidden:" in content


async def test_an_error_without_a_path_gives_the_commands_path_as_a_guess(
    sandboxed: ToolContext, place: Place
) -> None:
    content, code = await run(sandboxed, f"cd {place.outside} && touch relative.txt")
    assert code != 0 and "touch: cannot touch 'relative.txt'" in content
    assert (
        "the sandbox denied a write; the error does not name the path, but the command names "
        f"{place.outside}, which is read-only here" in content
    )


async def test_with_no_path_at_all_the_boundary_is_said(sandboxed: ToolContext) -> None:
    content, code = await run(sandboxed, "cd .. && touch relative.txt")
    assert code != 0
    assert "the sandbox denied a write, and the error does not say where: outside the " in content
    assert "sandbox.filesystem.allowWrite can allow a path" in content
