"""Issue 11, front ends: each test reproduces a failure users met, and shows it is gone.

16  discarded partial answers (cut streams) printed or returned as the answer
17  ``-p`` exiting 0 after the output token limit, ``maxTurns`` or an empty answer
18b lull still running long after its terminal was killed
23  a local server's model "price unknown" forever; no model chosen without ``-m``
24  first-run detection: no 8080, any server on 8000 called "vLLM", the choice not saved
25  a silent screen while a slow local model reads the prompt

``-p`` runs in process (``run_print``, the real runtime and SDK against the loopback
fake); the terminal tests run the real binary in tmux.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.widgets import Button

from lull.catalog.local_servers import CANDIDATES, Candidate, detect_local_servers, probe
from lull.catalog.pricing import cost_usd
from lull.engine.sessions.load import load_session
from lull.model.events import AssistantText, AttemptDiscarded, TurnFailed, TurnFinished
from lull.model.messages import unanswered_calls
from lull.model.provider import Usage
from lull.runtime import RunOptions, build_runtime
from lull.ui.line.render import DISCARDED, EventPrinter
from lull.ui.printer import run_print
from lull.ui.shared.waiting import FirstTokenWait
from lull.ui.tui.widgets.assistant_message import AssistantMessage
from lull.ui.tui.widgets.notice_line import NoticeLine
from tests.e2e import conftest as e2e
from tests.e2e.conftest import Lull, lull_command
from tests.e2e.tmux import Tmux, needs_tmux
from tests.fakes import FakeServer, Reply, ToolUse
from tests.fakes.local_server import (
    LLAMA_CPP_PYTHON,
    LLAMA_SERVER,
    OLLAMA,
    UNKNOWN,
    VLLM,
    LocalModelServer,
)
from tests.support import build_agent, run
from tests.tui.harness import idle, make_app, ready, send, until

CUT_TEXT = "partial words " * 20  # streamed in 8-character deltas, then cut
lull = e2e.lull  # the fixture: the installed binary against the fake, in an isolated home


@pytest.fixture
def anthropic_env(fake: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    """lull's Anthropic provider pointed at the fake."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    return fake


def print_mode(
    capsys: pytest.CaptureFixture[str],
    workspace: Path,
    output_format: str = "json",
    prompt: str = "hi",
    **options: Any,
) -> tuple[int, str, str]:
    """``lull -p PROMPT --output-format FORMAT`` in process: (exit code, stdout, stderr)."""
    code = run_print(RunOptions(workspace=workspace, **options), prompt, output_format)  # type: ignore[arg-type]
    out, err = capsys.readouterr()
    return code, out, err


def _cut_twice(fake: FakeServer) -> None:
    fake.cut_next_stream(after_events=6)  # some text deltas get through each time
    fake.cut_next_stream(after_events=6)
    fake.script(Reply(text=CUT_TEXT, chunk_size=8))


# --- 16: discarded text is never the answer ------------------------------------------------


@pytest.mark.parametrize("vendor", ["anthropic", "openai"])
async def test_the_engine_says_which_streamed_text_it_discarded(
    vendor: str, fake: FakeServer, workspace: Path, tmp_path: Path
) -> None:
    fake.cut_next_stream(after_events=6)
    fake.script(Reply(text="the whole answer, second try", chunk_size=4))
    events = await run(build_agent(fake, workspace, tmp_path, vendor), "hi")
    [discard] = [e for e in events if isinstance(e, AttemptDiscarded)]
    before = events[: events.index(discard)]
    streamed = "".join(e.text for e in before if isinstance(e, AssistantText))
    assert streamed and discard.text == streamed
    assert "the whole answer, second try".startswith(streamed)
    assert isinstance(events[-1], TurnFinished)
    assert events[-1].text == "the whole answer, second try"


def test_after_two_cuts_p_prints_no_partial_answer(
    anthropic_env: FakeServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _cut_twice(anthropic_env)
    code, out, err = print_mode(capsys, workspace, "text")
    assert code == 1
    assert "partial" not in out and out == ""
    assert "lull: error:" in err


def test_after_two_cuts_the_json_result_holds_no_discarded_text(
    anthropic_env: FakeServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _cut_twice(anthropic_env)
    code, out, _ = print_mode(capsys, workspace, "json")
    payload = json.loads(out)
    assert code == 1 and payload["is_error"] is True and payload["subtype"] == "error"
    assert payload["result"] == ""


def test_stream_json_marks_each_discarded_attempt(
    anthropic_env: FakeServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _cut_twice(anthropic_env)
    _, out, _ = print_mode(capsys, workspace, "stream-json")
    events = [json.loads(line) for line in out.splitlines()]
    kinds = [e["type"] for e in events]
    assert kinds.count("discarded") == 2
    first = kinds.index("discarded")
    streamed = "".join(e["text"] for e in events[:first] if e["type"] == "assistant_text")
    assert streamed and events[first]["text"] == streamed and CUT_TEXT.startswith(streamed)
    assert events[-1]["type"] == "result" and events[-1]["result"] == ""


def test_one_cut_then_success_returns_the_answer_once(
    anthropic_env: FakeServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    anthropic_env.cut_next_stream(after_events=6)
    anthropic_env.script(Reply(text="the kept answer", chunk_size=4))
    code, out, _ = print_mode(capsys, workspace, "json")
    assert code == 0 and json.loads(out)["result"] == "the kept answer"
    anthropic_env.cut_next_stream(after_events=6)
    anthropic_env.script(Reply(text="the kept answer", chunk_size=4))
    code, out, _ = print_mode(capsys, workspace, "text")
    assert code == 0 and out == "the kept answer\n"


async def test_the_tui_marks_a_discarded_partial_answer(
    anthropic_env: FakeServer, workspace: Path
) -> None:
    anthropic_env.cut_next_stream(after_events=6)
    anthropic_env.script(Reply(text="the kept answer", chunk_size=4))
    app = make_app(workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await idle(pilot)
        cut, kept = app.query(AssistantMessage)
        assert cut.discarded and "discarded" in str(cut.query("Static").last().render())
        assert not kept.discarded and kept.text == "the kept answer"


def test_line_mode_marks_a_discarded_partial_answer() -> None:
    out = io.StringIO()
    printer = EventPrinter(Console(file=out, width=100, force_terminal=False, color_system=None))
    printer.render(AssistantText("partial words"))
    printer.render(AttemptDiscarded("partial words", "the stream was cut"))
    printer.render(AssistantText("the kept answer"))
    printer.render(TurnFinished("the kept answer", "end_turn"))
    lines = [line.strip() for line in out.getvalue().splitlines() if line.strip()]
    assert lines == ["partial words", f"{DISCARDED} (the stream was cut)", "the kept answer"]


# --- 17: -p fails loudly when the turn did not end with an answer ---------------------------


@pytest.mark.parametrize(
    ("replies", "options", "subtype", "says"),
    [
        (  # cut, and still cut after the three continuations
            [Reply(text=f"part {n} of a long", stop_reason="max_tokens") for n in range(4)],
            {},
            "error_max_tokens",
            "output token limit",
        ),
        (
            [Reply(tool_calls=[ToolUse("list_directory", {})])],
            {"max_turns": 1},
            "error_max_turns",
            "maxTurns",
        ),
        ([Reply(text="")] * 6, {}, "error_rollbacks", "rolled back 5 times in a row"),
    ],
)
def test_p_reports_an_unfinished_answer_as_an_error(
    replies: list[Reply],
    options: dict[str, Any],
    subtype: str,
    says: str,
    anthropic_env: FakeServer,
    workspace: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    anthropic_env.script(*replies)
    code, out, err = print_mode(capsys, workspace, "json", **options)
    payload = json.loads(out)
    assert code == 1
    assert payload["is_error"] is True and payload["subtype"] == subtype
    assert says in payload["error"]
    errors = [line for line in err.splitlines() if line.startswith("lull: error:")]
    assert len(errors) == 1 and says in errors[0]

    anthropic_env.script(*replies)
    code, out, err = print_mode(capsys, workspace, "text", **options)
    assert code == 1 and says in err.splitlines()[-1]
    # claude-sonnet-4-6 takes no prefill: each cut answer was asked again with a larger limit
    kept = replies[-1].text if subtype == "error_max_tokens" else ""
    assert out.strip() == kept  # a cut answer is still shown, as what it is


def test_p_success_is_still_success(
    anthropic_env: FakeServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    anthropic_env.script(Reply(text="done"))
    code, out, err = print_mode(capsys, workspace, "json")
    payload = json.loads(out)
    assert (code, payload["is_error"], payload["subtype"], payload["error"]) == (
        0,
        False,
        "success",
        None,
    )
    assert "error" not in err


# --- 18b: the terminal goes away -> lull saves the session and exits ------------------------


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    terminal = Tmux(tmp_path)
    try:
        yield terminal
    finally:
        terminal.close()


# SIGHUP as a terminal would deliver it, even if this test runs under nohup.
DEFAULT_SIGHUP = [
    sys.executable,
    "-c",
    "import os, signal, sys; signal.signal(signal.SIGHUP, signal.SIG_DFL); "
    "os.execv(sys.argv[1], sys.argv[1:])",
]


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie waiting for its reaper has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _wait_gone(pid: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while _alive(pid):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            pytest.fail(f"lull (pid {pid}) still ran {timeout:.0f} s after its terminal went")
        time.sleep(0.1)


def _only_session(lull: Lull) -> Path:
    [path] = list(Path(lull.env["XDG_DATA_HOME"]).rglob("*.jsonl"))
    return path


def _resumable(lull: Lull, fake: FakeServer, path: Path) -> None:
    """Every tool call in the saved session has its result, nothing was sent to the model
    after the terminal went away, and lull goes on from there."""
    messages = load_session(path).messages
    assert unanswered_calls(messages) == []
    assert [m.role for m in messages] == ["user", "assistant", "user"]  # the result, no more
    assert len(fake.requests) == 1
    fake.script(Reply(text="going on"))
    runtime = build_runtime(RunOptions(lull.workspace, resume=path.stem), env=lull.env)
    events = asyncio.run(run(runtime.agent, "go on"))
    runtime.close()
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "going on"


@needs_tmux
@pytest.mark.slow
@pytest.mark.parametrize("plain", [False, True], ids=["tui", "line"])
@pytest.mark.parametrize("ignore_hangup", [False, True], ids=["sighup", "sighup-ignored"])
def test_killing_the_terminal_ends_lull_and_keeps_the_session(
    plain: bool, ignore_hangup: bool, tmux: Tmux, lull: Lull, fake: FakeServer
) -> None:
    fake.script(Reply(tool_calls=[ToolUse("run_shell_command", {"command": "echo hi"})]))
    tmux.start(lull, *(["--plain"] if plain else []), ignore_hangup=ignore_hangup)
    tmux.wait_for("Ctrl+D quits" if plain else "ready │")
    tmux.type("run echo")
    tmux.send("Enter")
    tmux.wait_for("Allow run_shell_command" if plain else "waiting for approval")
    pid = tmux.lull_pid()
    tmux.close()  # the terminal goes away with the approval question open
    _wait_gone(pid)
    _resumable(lull, fake, _only_session(lull))


@pytest.mark.slow
def test_sighup_stops_p_and_keeps_the_session(lull: Lull, fake: FakeServer) -> None:
    fake.script(
        Reply(tool_calls=[ToolUse("run_shell_command", {"command": "sleep 30"})]),
    )
    command = [*lull_command(), "-p", "wait", "--output-format", "json"]
    process = subprocess.Popen(
        [*DEFAULT_SIGHUP, *command, "--approval-mode", "yolo"],
        cwd=lull.workspace,
        env=lull.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not list(Path(lull.env["XDG_DATA_HOME"]).rglob("*.jsonl")) or not fake.requests:
            assert time.monotonic() < deadline and process.poll() is None, "lull -p did not start"
            time.sleep(0.05)
        path = _only_session(lull)
        while "sleep 30" not in path.read_text():  # the tool call is running
            assert time.monotonic() < deadline, "the tool call did not start"
            time.sleep(0.05)
        process.send_signal(signal.SIGHUP)
        out, err = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 129, err
    payload = json.loads(out)
    assert payload["is_error"] is True and "SIGHUP" in payload["error"]
    _resumable(lull, fake, path)


# --- 23: local servers: priced $0, their model used ----------------------------------------


def test_an_unpriced_model_on_a_local_server_costs_nothing(
    anthropic_env: FakeServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    anthropic_env.script(Reply(text="ok"))
    _, out, _ = print_mode(capsys, workspace, model="house-model")
    assert json.loads(out)["cost_usd"] == 0.0  # was None: "price unknown" forever
    usage = Usage(input=1_000_000, output=1_000_000)
    assert cost_usd(usage, "claude-sonnet-4-5", local=True) == 18.0  # a known name keeps it
    assert cost_usd(usage, "house-model", ("house-model=1/2",), local=True) == 3.0
    assert cost_usd(usage, "house-model") is None  # elsewhere, unknown is unknown


@pytest.fixture
def openai_env(fake: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    """An OpenAI-compatible server without a default model (the fake), no key."""
    monkeypatch.setenv("OPENAI_BASE_URL", fake.url + "/v1")
    return fake


def test_without_a_model_the_servers_only_model_is_used(
    openai_env: FakeServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    openai_env.models = {"solo-7b"}
    openai_env.script(Reply(text="hello from solo"))
    code, out, err = print_mode(capsys, workspace, "text")
    assert code == 0 and out.strip() == "hello from solo"
    assert openai_env.requests[-1]["model"] == "solo-7b"
    assert f"using model solo-7b, the only one the server at {openai_env.url}/v1 serves" in err


def test_without_a_model_several_are_listed_with_how_to_choose(
    openai_env: FakeServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    openai_env.models = {"qwen3:8b", "llama3.2:3b"}
    code, out, err = print_mode(capsys, workspace, "text")
    assert code == 1 and out == ""
    assert "serves 2 models: llama3.2:3b, qwen3:8b; choose one with -m NAME" in err
    assert not openai_env.requests


# --- 24: first-run detection ---------------------------------------------------------------


def test_detection_scans_8080_and_names_servers_by_what_they_say() -> None:
    assert "http://127.0.0.1:8080/v1" in [c.base_url for c in CANDIDATES]
    for routes, name in [
        (LLAMA_CPP_PYTHON, "llama-cpp-python"),  # on 8000, and not vLLM
        (VLLM, "vLLM"),
        (LLAMA_SERVER, "llama.cpp server"),
        (OLLAMA, "Ollama"),
    ]:
        with LocalModelServer(routes) as server:
            found = probe(Candidate("vLLM", server.base_url), timeout=2.0)
            assert found is not None and found.name == name
    with LocalModelServer(UNKNOWN) as server:
        found = probe(Candidate("vLLM", server.base_url), timeout=2.0)
        assert found is not None and found.name == f"OpenAI-compatible server on :{server.port}"


async def test_the_chosen_server_is_saved_to_the_user_settings(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    user_file = isolated_env / "config" / "lull" / "settings.json"
    user_file.parent.mkdir(parents=True)
    user_file.write_text('{"model": {"thinking": false}, "maxTurns": 7}\n')
    fake.models = {"llama3"}
    local = Candidate("Ollama", fake.url + "/v1")
    app = make_app(workspace, detect=lambda: detect_local_servers([local], timeout=2.0))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.focused, Button), "the offer")
        await pilot.press("enter")
        await ready(pilot)
        await until(pilot, lambda: "saved model.provider" in _notes(app), "the saved note")
        assert str(user_file) in _notes(app)
    assert json.loads(user_file.read_text()) == {
        "model": {
            "thinking": False,
            "provider": "openai",
            "baseUrl": fake.url + "/v1",
            "name": "llama3",
        },
        "maxTurns": 7,
    }
    assert not (workspace / ".lull").exists()


def _notes(app: Any) -> str:
    return "\n".join(line.text for line in app.query(NoticeLine))


# --- 25: waiting for a slow first token is visible -----------------------------------------


@needs_tmux
@pytest.mark.slow
def test_line_mode_shows_that_it_waits_for_a_slow_model(
    tmux: Tmux, lull: Lull, fake: FakeServer
) -> None:
    fake.script(Reply(text="finally an answer", first_delay=3.0))  # a slow prompt evaluation
    tmux.start(lull, "--plain")
    tmux.wait_for("Ctrl+D quits")
    tmux.type("hello")
    tmux.send("Enter")
    screen = tmux.wait_for("waiting for the model")
    assert "finally" not in screen
    screen = tmux.wait_for("1 request:", timeout=30)
    assert "finally an answer" in screen and "waiting for the model" not in screen
    assert "first token after" in screen


async def test_the_tui_status_shows_the_wait_then_the_time_to_first_token(
    anthropic_env: FakeServer, workspace: Path
) -> None:
    anthropic_env.script(Reply(text="slow but here", first_delay=1.0))
    app = make_app(workspace)
    async with app.run_test(size=(160, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await until(pilot, lambda: "waiting" in app.status.line, "the waiting state")
        await idle(pilot)
        first = app.status.facts.first_token_seconds
        assert first is not None and first >= 1.0  # at least the fake's first delay
        assert f"first token {first:.1f}s" in app.status.line
        assert "waiting" not in app.status.line


def test_the_wait_ends_at_the_first_token() -> None:
    now = [100.0]
    wait = FirstTokenWait(lambda: now[0])
    from lull.model.events import TurnStarted

    wait.observe(TurnStarted("hi"))
    now[0] += 12.5
    assert wait.waiting and wait.elapsed() == 12.5
    wait.observe(AssistantText("a"))
    assert not wait.waiting and wait.last_seconds == 12.5
    wait.observe(TurnFailed("x", "server"))
    assert wait.last_seconds == 12.5
