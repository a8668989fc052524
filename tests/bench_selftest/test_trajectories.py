"""Real agent runs as workloads: a mini-swe-agent trajectory becomes a replayable workload whose
commands print the real outputs and whose steps need what they quote; the bundled runs load."""

from __future__ import annotations

import asyncio
import gzip
import json
from pathlib import Path
from typing import Any

from tests.bench.cost import POLICIES, load_workload, replay
from tests.bench.trajectories import GO_ON, REAL, convert, derive_needs, real_steps

QUOTED = "    return self.format or getattr(schema.opts, self.SCHEMA_OPTS_VAR_NAME)"


def _assistant(text: str, command: str, stamp: float) -> dict[str, Any]:
    arguments = json.dumps({"command": command})
    call = {"id": f"call_{stamp}", "type": "function"}
    call["function"] = {"name": "bash", "arguments": arguments}
    return {
        "role": "assistant",
        "content": text,
        "tool_calls": [call],
        "extra": {"timestamp": stamp},
    }


def _tool(output: str) -> dict[str, Any]:
    return {"role": "tool", "content": f"<returncode>0</returncode>\n<output>\n{output}</output>"}


def trajectory() -> dict[str, Any]:
    """Six real-looking steps: look, read (the line later quoted), grep, edit quoting the
    read, test, submit."""
    source = f"class DateTime:\n{QUOTED}\n        # a comment long enough to be distinctive\n"
    return {
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "<pr_description>DateTime fails in List</pr_description>"},
            _assistant("Let me look around.", "ls -la", 1000.0),
            _tool("src\ntests\nsetup.py\n"),
            _assistant("Now the field.", "sed -n 1,50p src/fields.py", 1004.5),
            _tool(source),
            _assistant("Where is it used?", "grep -rn SCHEMA_OPTS src", 1009.0),
            _tool("src/fields.py:2: SCHEMA_OPTS_VAR_NAME\n"),
            _assistant(
                f"The line `{QUOTED.strip()}` assumes a schema.",
                "sed -i 's/getattr(schema.opts/getattr(self.root.opts/' src/fields.py",
                1015.0,
            ),
            _tool(""),
            _assistant("Run the tests.", "python -m pytest -q\n  tests/test_fields.py", 1030.0),
            _tool("12 passed\n"),
            _assistant("Submitting.", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", 1032.0),
            {"role": "exit", "content": "diff ..."},
        ],
        "instance_id": "marshmallow-1359",
    }


def test_a_trajectory_becomes_real_steps_with_needs_from_quotes() -> None:
    prompt, steps = real_steps(trajectory())
    assert "DateTime fails" in prompt
    assert [s.command is None for s in steps] == [False] * 5 + [True]
    assert [round(s.seconds, 1) for s in steps[1:3]] == [4.5, 4.5]
    needs = derive_needs(prompt, steps)
    assert needs[3] == [1]  # the edit quotes the line the read printed
    assert needs[1] == needs[2] == needs[4] == []


def test_converted_runs_replay_with_the_real_outputs(tmp_path: Path) -> None:
    source = tmp_path / "runs"
    source.mkdir()
    (source / "m-1359.traj.json").write_text(json.dumps(trajectory()))
    written = convert(source, tmp_path / "out")
    assert [p.name for p in written] == ["m-1359.alone.json.gz", "m-1359.cut.json.gz"]
    alone, cut = (load_workload(p) for p in written)
    assert len(alone.turns) == 1 and alone.needs == 1
    assert [t.prompt for t in cut.turns[1:]] == [GO_ON, GO_ON]
    assert all(t.pause_minutes >= 2 for t in cut.turns[1:]) and cut.needs == 1
    [call] = alone.turns[0].steps[4].calls
    assert call[1]["command"].endswith("# python -m pytest -q tests/test_fields.py")  # one line
    outcome = asyncio.run(replay(alone, POLICIES[-1], tmp_path / "c"))
    assert outcome.needs == 1 and outcome.lost == 0 and outcome.tool_errors == 0


def test_the_bundled_real_runs_are_long_and_need_what_they_quote() -> None:
    runs = sorted(REAL.glob("*.alone.json.gz"))
    assert len(runs) >= 10 and len(sorted(REAL.glob("*.cut.json.gz"))) == len(runs)
    sizes = []
    for path in runs:
        data = json.loads(gzip.decompress(path.read_bytes()))
        assert data["description"].startswith("mini-swe-agent@")
        workload = load_workload(path)
        sizes.append(workload.requests)
        assert workload.needs > 0 and workload.max_turns > workload.requests
    assert min(sizes) >= 30 and max(sizes) > 100
