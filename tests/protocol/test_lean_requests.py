"""A one-shot run loads what its request needs and no more: no tokenizer for a short prompt,
none of the SDK parts lull never uses, and no SDK walk over the body (the real ``lull -p`` in
a fresh interpreter against the strict fake)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes import FakeServer, Reply, ToolUse

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import json, sys
from lull.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def one_shot(fake: FakeServer, tmp_path: Path, *args: str, wire: str) -> dict[str, object]:
    """Run ``lull -p ARGS`` in a fresh interpreter; its exit code and the modules it loaded."""
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    (workspace / "main.py").write_text("print('hi')\n")
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "LULL_"))
    }
    env.update(
        HOME=str(tmp_path),
        XDG_CONFIG_HOME=str(tmp_path / "c"),
        XDG_DATA_HOME=str(tmp_path / "d"),
        XDG_STATE_HOME=str(tmp_path / "s"),
        PYTHONPATH=str(ROOT),
    )
    if wire == "anthropic":
        env.update(ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY="test")
    else:
        env.update(OPENAI_BASE_URL=fake.url + "/v1", OPENAI_API_KEY="test")
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "-p", *args],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_a_one_shot_run_with_a_tool_round_loads_only_what_it_uses(
    fake: FakeServer, tmp_path: Path, wire: str
) -> None:
    fake.dialect = "openai"
    fake.script(
        Reply(text="Looking.", tool_calls=[ToolUse("list_directory", {"path": "."})]),
        Reply(text="One file: main.py."),
    )
    args = ["list files"] if wire == "anthropic" else ["list files", "-m", "gpt-5"]
    result = one_shot(fake, tmp_path, *args, wire=wire)
    modules = set(result["modules"])  # type: ignore[arg-type]
    assert result["code"] == 0
    assert len(fake.journal) == 2  # the tool round happened
    assert "tiktoken" not in modules  # a short prompt is estimated
    assert "mcp" not in modules  # no MCP server configured: the MCP SDK is never imported
    unused = {
        "anthropic": ["anthropic.lib.vertex", "anthropic.lib.bedrock", "anthropic.resources"],
        "openai": ["openai.lib.azure", "openai.resources"],
    }[wire]
    # no resource module either: the body goes out as lull encoded it, through the client's
    # own post, so the SDK's per-message transform (chat.completions.create) never runs
    assert not modules & set(unused)
    assert fake.journal[-1].body["messages"][-1]  # and the strict fake accepted it
