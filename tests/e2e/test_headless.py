"""``lull -p`` as the headless contract Claude Code's users script against: its stream-json and
json lines hold the shapes of lines Claude Code printed (``tests/fixtures/claude_code.py``),
stdin takes user messages as JSON lines, the flags scripts pass work, and a ``/command`` or an
``@path`` in the prompt works as it does interactively."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from lull.catalog.prompt import STATIC_SYSTEM_PROMPT
from lull.settings.paths import user_settings_path
from tests.e2e.conftest import Lull
from tests.fakes import FakeServer, Reply, ToolUse
from tests.fakes.script import last_user_text
from tests.fixtures.claude_code import RECORDED, shape_problems
from tests.images import png_bytes

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _priced() -> None:
    path = user_settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"pricing": ["claude-sonnet-4-6=3/15"]}))


def _lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def _blocks(line: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [b for b in line.get("message", {}).get("content", []) if b.get("type") == kind]


def _tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        b
        for m in body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]


# --- the output schema ----------------------------------------------------------------------


def test_stream_json_lines_have_the_shapes_claude_code_prints(lull: Lull, fake: FakeServer) -> None:
    _priced()
    (lull.workspace / "a.txt").write_text("alpha\n")
    skill = lull.workspace / ".claude" / "skills" / "release"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\ndescription: Cut a release\n---\nTag it.\n")
    fake.script(
        Reply(text="Reading it.", tool_calls=[ToolUse("read_file", {"path": "a.txt"})]),
        Reply(text="It says alpha."),
    )
    done = lull.run("-p", "what is in a.txt?", "--output-format", "stream-json")
    assert done.returncode == 0, done.stderr
    lines = _lines(done.stdout)
    claude = [line for line in lines if line["type"] != "lull"]  # what a Claude Code parser reads
    assert [line["type"] for line in claude] == [
        "system",
        "assistant",
        "assistant",
        "user",
        "assistant",
        "result",
    ]
    init, said, call, answer, final, result = claude
    assert shape_problems(init, RECORDED["init"]) == []
    assert (init["subtype"], init["permissionMode"], init["model"]) == (
        "init",
        "default",
        "claude-sonnet-4-6",
    )
    assert init["cwd"] == str(lull.workspace)
    assert {"Read", "Bash", "Edit", "Write", "Glob", "Grep", "Skill", "Task"} <= set(init["tools"])
    assert "read_file" in init["lull_tools"]
    assert init["skills"] == ["release"] and "general-purpose" in init["agents"]
    assert shape_problems(said, RECORDED["assistant_text"]) == []
    assert _blocks(said, "text") == [{"type": "text", "text": "Reading it."}]
    assert shape_problems(call, RECORDED["assistant_tool_use"]) == []
    [use] = _blocks(call, "tool_use")
    assert (use["name"], use["input"]) == (
        "Read",
        {"path": "a.txt", "file_path": str(lull.workspace / "a.txt")},
    )
    assert use["lull_name"] == "read_file"
    assert call["message"]["id"] == said["message"]["id"]  # one request, one message id
    assert shape_problems(answer, RECORDED["tool_result"]) == []
    [back] = _blocks(answer, "tool_result")
    assert back["tool_use_id"] == use["id"] and back["is_error"] is False
    assert "alpha" in back["content"]
    assert _blocks(final, "text") == [{"type": "text", "text": "It says alpha."}]
    assert final["message"]["id"] != said["message"]["id"]
    assert shape_problems(result, RECORDED["result"]) == []
    assert (result["subtype"], result["is_error"], result["num_turns"]) == ("success", False, 2)
    assert result["result"] == "It says alpha." and result["total_cost_usd"] > 0
    assert result["duration_ms"] >= result["duration_api_ms"] >= 0
    assert set(result["modelUsage"]) == {"claude-sonnet-4-6"}
    assert {line["session_id"] for line in lines} == {init["session_id"]}
    extra = {line["subtype"] for line in lines if line["type"] == "lull"}
    assert "request" in extra  # lull's detail, under a type Claude Code's parsers skip


def test_include_partial_messages_streams_the_reply_as_raw_events(
    lull: Lull, fake: FakeServer
) -> None:
    fake.script(
        Reply(text="Looking.", tool_calls=[ToolUse("glob", {"pattern": "*.md"})]),
        Reply(text="None found."),
    )
    done = lull.run(
        "-p", "find docs", "--output-format", "stream-json", "--include-partial-messages"
    )
    assert done.returncode == 0, done.stderr
    lines = _lines(done.stdout)
    events = [line["event"] for line in lines if line["type"] == "stream_event"]
    texts = [
        e["delta"]["text"]
        for e in events
        if e["type"] == "content_block_delta" and e["delta"]["type"] == "text_delta"
    ]
    assert "".join(texts) == "Looking.None found."
    [tool] = [
        e["content_block"]
        for e in events
        if e["type"] == "content_block_start" and e["content_block"]["type"] == "tool_use"
    ]
    assert tool["name"] == "Glob"
    kinds = [e["type"] for e in events]
    assert kinds.count("message_start") == kinds.count("message_stop") == 2
    first = next(i for i, line in enumerate(lines) if line["type"] == "stream_event")
    said = next(i for i, line in enumerate(lines) if line["type"] == "assistant")
    assert first < said and lines[-1]["type"] == "result"  # raw events before the whole message
    done = lull.run("-p", "hi", "--include-partial-messages")
    assert done.returncode == 2
    assert "--include-partial-messages needs -p/--print and --output-format stream-json" in (
        done.stderr
    )


def test_json_output_is_claude_codes_result_object(lull: Lull, fake: FakeServer) -> None:
    _priced()
    fake.script(Reply(text="Hello."))
    done = lull.run("-p", "say hello", "--output-format", "json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert shape_problems(payload, RECORDED["result"]) == []
    assert (payload["type"], payload["subtype"], payload["result"]) == (
        "result",
        "success",
        "Hello.",
    )
    assert payload["usage"]["output_tokens"] > 0 and payload["errors"] == []


def test_a_turn_that_hits_max_turns_is_claude_codes_error_max_turns(
    lull: Lull, fake: FakeServer
) -> None:
    fake.script(Reply(tool_calls=[ToolUse("glob", {"pattern": "*"})]))
    done = lull.run("-p", "look", "--max-turns", "1", "--output-format", "json")
    assert done.returncode == 1
    payload = json.loads(done.stdout)
    assert (payload["subtype"], payload["is_error"]) == ("error_max_turns", True)
    assert payload["errors"] and "maxTurns" in payload["errors"][0]


# --- stream-json input ----------------------------------------------------------------------


def _user(content: object) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": content}})


def test_stream_json_input_is_a_multi_turn_session(lull: Lull, fake: FakeServer) -> None:
    fake.script(Reply(text="first answer"), Reply(text="second answer"))
    stdin = "\n".join(
        [
            _user("my name is Ada"),
            "{not json",
            _user([{"type": "text", "text": "what is my name?"}]),
            "",
        ]
    )
    done = lull.run(
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
        stdin=stdin,
    )
    assert done.returncode == 1  # a bad line: said, skipped, and the exit code says so
    assert "lull: error: stdin line 2: not JSON" in done.stderr
    lines = _lines(done.stdout)
    results = [line for line in lines if line["type"] == "result"]
    assert [r["result"] for r in results] == ["first answer", "second answer"]
    assert [line["type"] for line in lines].count("system") == 1
    assert len({line["session_id"] for line in lines}) == 1
    second = fake.requests[1]["messages"]
    assert "my name is Ada" in json.dumps(second[0]) and "first answer" in json.dumps(second[1])
    assert last_user_text(fake.requests[1]) == "what is my name?"


def test_stream_json_input_takes_images(lull: Lull, fake: FakeServer) -> None:
    fake.script(Reply(text="a red dot"))
    data = base64.b64encode(png_bytes()).decode()
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
    stdin = _user([{"type": "text", "text": "what is this?"}, image]) + "\n"
    done = lull.run("-p", "--input-format", "stream-json", "--output-format", "json", stdin=stdin)
    assert done.returncode == 0, done.stderr
    sent = json.dumps(fake.requests[0]["messages"][-1])
    assert '"type": "image"' in sent and data[:40] in sent


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('{"type": "assistant", "message": {}}', "type 'assistant' is not read"),
        ('{"type": "user"}', 'no "message" object'),
        ('{"type": "user", "message": {"content": 3}}', 'message "content" must be a string'),
        ("[1]", "expected a JSON object, got list"),
    ],
)
def test_a_bad_stdin_line_is_named(lull: Lull, fake: FakeServer, line: str, says: str) -> None:
    done = lull.run("-p", "--input-format", "stream-json", stdin=line + "\n")
    assert done.returncode == 1 and fake.requests == []
    assert f"stdin line 1: {says}" in done.stderr


# --- the flags ------------------------------------------------------------------------------


def _write_call() -> Reply:
    return Reply(tool_calls=[ToolUse("write_file", {"path": "new.txt", "content": "x\n"})])


@pytest.mark.parametrize("mode", ["acceptEdits", "bypassPermissions", "auto-edit"])
def test_permission_mode_lets_edits_run(lull: Lull, fake: FakeServer, mode: str) -> None:
    fake.script(_write_call(), Reply(text="written"))
    done = lull.run("-p", "write new.txt", "--permission-mode", mode)
    assert done.returncode == 0, done.stderr
    assert (lull.workspace / "new.txt").read_text() == "x\n"


def test_permission_mode_plan_and_dont_ask_run_nothing_that_edits(
    lull: Lull, fake: FakeServer
) -> None:
    for mode in ("plan", "dontAsk", "default"):
        fake.script(_write_call(), Reply(text="could not"))
        done = lull.run("-p", "write new.txt", "--permission-mode", mode, "--output-format", "json")
        assert done.returncode == 0, done.stderr
        assert not (lull.workspace / "new.txt").exists()
        assert json.loads(done.stdout)["result"] == "could not"


def test_allowed_tools_allow_and_disallowed_tools_deny(lull: Lull, fake: FakeServer) -> None:
    fake.script(_write_call(), Reply(text="written"))
    done = lull.run("-p", "write new.txt", "--allowedTools", "Bash(git log:*)", "Write")
    assert done.returncode == 0, done.stderr
    assert (lull.workspace / "new.txt").exists()
    (lull.workspace / "new.txt").unlink()
    fake.script(_write_call(), Reply(text="refused"))
    done = lull.run(
        "-p",
        "write new.txt",
        "--permission-mode",
        "bypassPermissions",
        "--allowed-tools",
        "Write",
        "--disallowedTools",
        "Bash,Write(*.txt)",
    )
    assert done.returncode == 0, done.stderr
    assert not (lull.workspace / "new.txt").exists()  # deny wins over allow and the mode
    [result] = _tool_results(fake.requests[-1])
    assert result["is_error"] and "Write(*.txt)" in str(result["content"])


BLOCK_READS = """\
#!/bin/sh
# Claude Code's PreToolUse hook: exit 2 blocks the call, stderr says why.
echo "no reading today" >&2
exit 2
"""


def test_every_refused_call_is_listed_in_permission_denials(lull: Lull, fake: FakeServer) -> None:
    hook = lull.workspace / "block.sh"
    hook.write_text(BLOCK_READS)
    hook.chmod(0o755)
    path = user_settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    entry = {"matcher": "Read", "hooks": [{"type": "command", "command": str(hook)}]}
    path.write_text(json.dumps({"hooks": {"PreToolUse": [entry]}}))
    (lull.workspace / "a.txt").write_text("alpha\n")
    calls = [
        ToolUse("write_file", {"path": "new.txt", "content": "x\n"}),  # -p cannot ask
        ToolUse("run_shell_command", {"command": "rm a.txt"}),  # --disallowedTools
        ToolUse("read_file", {"path": "a.txt"}),  # the hook
        ToolUse("glob", {"pattern": "*.txt"}),  # runs
    ]
    fake.script(Reply(tool_calls=calls), Reply(text="done"))
    done = lull.run("-p", "go", "--disallowedTools", "Bash(rm:*)", "--output-format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert shape_problems(result, RECORDED["result"]) == []
    denials = result["permission_denials"]
    new, old = str(lull.workspace / "new.txt"), str(lull.workspace / "a.txt")
    assert [(d["tool_name"], d["tool_input"]) for d in denials] == [
        ("Write", {"path": "new.txt", "content": "x\n", "file_path": new}),
        ("Bash", {"command": "rm a.txt"}),
        ("Read", {"path": "a.txt", "file_path": old}),
    ]
    sent = {b["tool_use_id"] for b in _tool_results(fake.requests[-1])}
    assert {d["tool_use_id"] for d in denials} < sent  # the glob call's id is not there
    assert (lull.workspace / "a.txt").exists() and not (lull.workspace / "new.txt").exists()


def test_system_prompt_replaces_and_append_system_prompt_adds(lull: Lull, fake: FakeServer) -> None:
    fake.script(Reply(text="one"), Reply(text="two"))
    assert lull.run("-p", "hi", "--system-prompt", "You are Terse.").returncode == 0
    replaced = json.dumps(fake.requests[0]["system"])
    assert "You are Terse." in replaced and STATIC_SYSTEM_PROMPT[:60] not in replaced
    assert lull.run("-p", "hi", "--append-system-prompt", "Answer in French.").returncode == 0
    [first, *_] = fake.requests[1]["system"]
    assert first["text"].startswith(STATIC_SYSTEM_PROMPT[:60])
    assert first["text"].endswith("Answer in French.")  # inside the cached static block


def test_system_prompt_files_replace_and_add(lull: Lull, fake: FakeServer) -> None:
    (lull.workspace / "system.md").write_text("You are Terse.\n")
    (lull.workspace / "extra.md").write_text("Answer in French.\n")
    fake.script(Reply(text="one"))
    done = lull.run(
        "-p", "hi", "--system-prompt-file", "system.md", "--append-system-prompt-file", "extra.md"
    )
    assert done.returncode == 0, done.stderr
    [first, *_] = fake.requests[0]["system"]
    assert first["text"].startswith("You are Terse.") and "Answer in French." in first["text"]
    assert STATIC_SYSTEM_PROMPT[:60] not in json.dumps(fake.requests[0]["system"])


def _mcp_entry() -> dict[str, Any]:
    return {"command": sys.executable, "args": ["-m", "tests.mcp.server"], "cwd": str(ROOT)}


def test_mcp_config_starts_the_users_servers_without_trust(lull: Lull, fake: FakeServer) -> None:
    config = lull.workspace / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"fromfile": _mcp_entry()}}))
    inline = json.dumps({"mcpServers": {"inline": _mcp_entry()}})
    fake.script(Reply(text="ok"))
    done = lull.run(
        "-p", "hi", "--mcp-config", "servers.json", inline, "--output-format", "stream-json"
    )
    assert done.returncode == 0, done.stderr
    offered = [tool["name"] for tool in fake.requests[0]["tools"]]
    assert "mcp__fromfile__echo" in offered and "mcp__inline__echo" in offered
    init = _lines(done.stdout)[0]
    assert {"name": "inline", "status": "connected"} in init["mcp_servers"]


def test_strict_mcp_config_leaves_out_the_settings_servers(lull: Lull, fake: FakeServer) -> None:
    path = user_settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": {"mine": _mcp_entry()}}))
    inline = json.dumps({"mcpServers": {"only": _mcp_entry()}})
    fake.script(Reply(text="ok"))
    done = lull.run("-p", "hi", "--mcp-config", inline, "--strict-mcp-config")
    assert done.returncode == 0, done.stderr
    offered = [tool["name"] for tool in fake.requests[0]["tools"]]
    assert "mcp__only__echo" in offered and not any(n.startswith("mcp__mine") for n in offered)


def test_model_alias_is_sent_as_a_model_id(lull: Lull, fake: FakeServer) -> None:
    fake.script(Reply(text="ok"))
    done = lull.run("-p", "hi", "--model", "haiku", "--output-format", "stream-json")
    assert done.returncode == 0, done.stderr
    assert fake.requests[0]["model"].startswith("claude-haiku")
    assert _lines(done.stdout)[0]["model"] == fake.requests[0]["model"]


def test_verbose_says_each_tool_call_on_stderr(lull: Lull, fake: FakeServer) -> None:
    fake.script(Reply(tool_calls=[ToolUse("glob", {"pattern": "*.md"})]), Reply(text="none"))
    done = lull.run("-p", "list", "--verbose")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "none" and "lull: glob: *.md" in done.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ["--permission-mode", "sometimes"],
            "invalid choice: 'sometimes' (choose from 'default', 'acceptEdits'",
        ),
        (["--permission-mode", "plan", "--approval-mode", "yolo"], "give one of them"),
        (["--allowedTools", "Bash(git log"], "no closing parenthesis"),
        (["--disallowedTools", ""], "expected rules"),
        (["--mcp-config", "missing.json"], "missing.json: no such file"),
        (["--mcp-config", "{oops"], "the JSON is not valid"),
        (["--mcp-config", '{"servers": {}}'], 'expected {"mcpServers"'),
        (["--mcp-config", '{"mcpServers": {"x": {"command": 3}}}'], "x"),
        (["--strict-mcp-config"], "--strict-mcp-config needs --mcp-config"),
        (["--system-prompt", " "], "expected text"),
        (["--system-prompt-file", "nope.md"], "--system-prompt-file: nope.md: no such file"),
        (["--input-format", "xml"], "invalid choice: 'xml'"),
    ],
)
def test_a_bad_flag_is_a_usage_error(
    lull: Lull, fake: FakeServer, args: list[str], says: str
) -> None:
    done = lull.run("-p", "hi", *args)
    assert done.returncode == 2 and says in done.stderr and fake.requests == []


def test_input_format_needs_print(lull: Lull) -> None:
    done = lull.run("--input-format", "stream-json")
    assert done.returncode == 2 and "--input-format needs -p" in done.stderr


def test_dont_ask_runs_what_an_allow_rule_allows_and_says_so(lull: Lull, fake: FakeServer) -> None:
    calls = [
        ToolUse("write_file", {"path": "new.txt", "content": "x\n"}),
        ToolUse("run_shell_command", {"command": "echo hi > said.txt"}),
    ]
    fake.script(Reply(tool_calls=calls), Reply(text="done"))
    done = lull.run(
        "-p",
        "go",
        "--permission-mode",
        "dontAsk",
        "--allowedTools",
        "Write",
        "--output-format",
        "stream-json",
    )
    assert done.returncode == 0, done.stderr
    assert (lull.workspace / "new.txt").exists() and not (lull.workspace / "said.txt").exists()
    lines = _lines(done.stdout)
    assert lines[0]["permissionMode"] == "dontAsk"
    [denial] = lines[-1]["permission_denials"]
    assert denial["tool_name"] == "Bash"
    [_, refused] = _tool_results(fake.requests[-1])
    assert "dontAsk permission mode" in str(refused["content"])


def test_auto_permission_mode_runs_as_auto_edit_with_a_note(lull: Lull, fake: FakeServer) -> None:
    fake.script(_write_call(), Reply(text="written"))
    done = lull.run("-p", "write new.txt", "--permission-mode", "auto")
    assert done.returncode == 0, done.stderr
    assert (lull.workspace / "new.txt").exists()
    assert "--permission-mode auto runs as approval mode auto-edit" in done.stderr


# --- commands and mentions ------------------------------------------------------------------


def test_a_custom_command_runs_in_print_mode(lull: Lull, fake: FakeServer) -> None:
    commands = lull.workspace / ".lull" / "commands"
    commands.mkdir(parents=True)
    (commands / "greet.md").write_text("---\ndescription: greet someone\n---\nSay hello to $1.\n")
    fake.script(Reply(text="Hello, Bob!"))
    done = lull.run("-p", "/greet Bob")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Hello, Bob!"
    assert last_user_text(fake.requests[0]).strip() == "Say hello to Bob."


def test_mentions_attach_files_and_images(lull: Lull, fake: FakeServer) -> None:
    (lull.workspace / "notes.txt").write_text("the secret word is plum\n")
    (lull.workspace / "shot.png").write_bytes(png_bytes(16, 12))
    fake.script(Reply(text="a picture and a plum"))
    done = lull.run("-p", "describe @shot.png and @notes.txt", "--output-format", "json")
    assert done.returncode == 0, done.stderr
    sent = fake.requests[0]["messages"][-1]
    images = [b for b in sent["content"] if b.get("type") == "image"]
    assert len(images) == 1 and images[0]["source"]["media_type"] == "image/png"
    assert "the secret word is plum" in last_user_text(fake.requests[0])


def test_built_in_commands_print_their_output(lull: Lull, fake: FakeServer) -> None:
    done = lull.run("-p", "/permissions", "--allowedTools", "Write", "--output-format", "json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["subtype"] == "success" and "Write" in payload["result"]
    done = lull.run("-p", "/nosuchcommand")
    assert done.returncode == 1 and "unknown command /nosuchcommand" in done.stderr
    assert fake.requests == []
    fake.script(Reply(text="ok"))
    assert lull.run("-p", "hi").returncode == 0  # a session to offer
    done = lull.run("-p", "/resume")
    assert done.returncode == 1 and "-p cannot ask" in done.stderr
