"""Issue 11, tools: what a tool may reach, see, write and how long it may take.

Each test reproduces one reported failure on the real tools (and, where the wiring matters,
the real runtime built from settings) and shows it fixed:

- item 2: ``web_fetch`` of loopback / private addresses needs approval, also behind a
  public-looking name, a second DNS answer or a redirect;
- item 3: commands run by tools do not get lull's API keys or other secrets;
- item 4: a symlink swapped in while ``write_file`` runs cannot lead the write outside;
- item 9: a write killed half-way leaves no temporary file in the workspace after a start;
- item 11: a catastrophic regex neither hangs lull nor outlives a cancelled turn;
- item 14: ``tools.shellTimeoutSeconds`` is the default timeout of a shell command.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from lull.engine.calls.approvals import AllowApprover, DenyApprover
from lull.engine.loop.agent import Agent
from lull.model.approvals import Approval, ApprovalMode, Decision
from lull.model.events import ToolFinished
from lull.model.messages import ToolCall, ToolResult
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from lull.runtime import RunOptions, Runtime, build_runtime
from lull.settings.paths import user_settings_path
from lull.tools.base import ToolContext
from lull.tools.builtin.grep_search import GrepSearchTool
from lull.tools.builtin.web_fetch import WebFetchTool
from lull.tools.registry import ToolRegistry, default_registry
from tests.support import agent_on, run

REPO = Path(__file__).resolve().parents[2]
SECRET_BODY = "the admin console's secret"


def call(name: str, **arguments: object) -> ScriptedReply:
    """A scripted model reply that makes one tool call."""
    return ScriptedReply(tool_calls=(ScriptedCall(name, arguments),))


def write_user_settings(settings: dict[str, Any]) -> None:
    """The user's own settings file (trusted)."""
    path = user_settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings))


def scripted_runtime(
    workspace: Path, provider: ScriptedProvider, mode: ApprovalMode | None = None
) -> Runtime:
    """The real runtime (settings, tool context, session file) on a scripted model."""
    options = RunOptions(workspace=workspace, demo=True, approval_mode=mode)
    return build_runtime(options, provider_factory=lambda config: provider)


def results(events: list[Any]) -> list[ToolResult]:
    """The tool results of a turn's events."""
    return [e.result for e in events if isinstance(e, ToolFinished)]


# --- item 2: web_fetch and the private network ---------------------------------------------


class _Server:
    """A loopback HTTP server that counts the requests for each path."""

    def __init__(self, routes: dict[str, tuple[int, dict[str, str], str]]) -> None:
        self.hits: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.hits.append(self.path)
                status, headers, body = routes.get(self.path, (404, {}, "missing"))
                data = body.encode()
                self.send_response(status)
                for name, value in {"Content-Type": "text/plain", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = int(self.httpd.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """No proxy from the developer's environment gets between a fetch and the test server."""
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


@pytest.fixture
def admin() -> Iterator[_Server]:
    """A local admin endpoint with a secret page."""
    server = _Server({"/secret": (200, {}, SECRET_BODY)})
    yield server
    server.close()


def resolver_from(table: dict[str, list[list[str]]]) -> Callable[[str, int], list[str]]:
    """A DNS stand-in: each name answers its lists in turn (the last one repeats); an IP
    address answers itself."""
    asked: dict[str, int] = {}

    def resolve(host: str, port: int) -> list[str]:
        answers = table[host] if host in table else [[str(ipaddress.ip_address(host))]]
        index = asked.get(host, 0)
        asked[host] = index + 1
        return answers[min(index, len(answers) - 1)]

    return resolve


def agent_with_fetch(
    tmp_path: Path,
    provider: ScriptedProvider,
    mode: ApprovalMode,
    resolver: Callable[[str, int], list[str]],
) -> Agent:
    """A real agent whose web_fetch asks ``resolver`` instead of the system's DNS."""
    workspace = tmp_path / "fetch-ws"
    workspace.mkdir(exist_ok=True)
    tools = ToolRegistry([WebFetchTool(timeout=5, resolver=resolver)])
    return agent_on(provider, workspace, tmp_path, mode=mode, tools=tools, clock=time.time)


async def test_plan_mode_never_fetches_a_loopback_url(workspace: Path, admin: _Server) -> None:
    provider = ScriptedProvider()
    provider.script(call("web_fetch", url=f"{admin.url}/secret"), ScriptedReply(text="ok"))
    runtime = scripted_runtime(workspace, provider, "plan")
    (result,) = results(await run(runtime.agent, "read the admin page"))
    assert admin.hits == []
    assert result.is_error and SECRET_BODY not in result.content
    assert result.content.startswith(
        "web_fetch was not run: 127.0.0.1 is a loopback address, which needs the user's "
        "approval, and plan mode does not ask for it."
    )
    assert '"tools.allowPrivateNetwork": true' in result.content
    runtime.close()


async def test_print_mode_denies_a_private_fetch_and_says_how_to_allow_it(
    workspace: Path, admin: _Server
) -> None:
    provider = ScriptedProvider()
    url = f"http://localhost:{admin.port}/secret"
    provider.script(call("web_fetch", url=url), ScriptedReply(text="ok"))
    runtime = scripted_runtime(workspace, provider)
    runtime.agent.set_approver(DenyApprover("denied: lull is running non-interactively (-p)"))
    (result,) = results(await run(runtime.agent, "read it"))
    assert admin.hits == []
    assert "localhost resolves to 127.0.0.1, a loopback address" in result.content
    assert "the user denied it. Reason: denied: lull is running non-interactively" in (
        result.content
    )
    assert "LULL_ALLOW_PRIVATE_NETWORK=1" in result.content
    runtime.close()


async def test_a_decimal_ip_is_recognised_as_loopback(workspace: Path, admin: _Server) -> None:
    provider = ScriptedProvider()
    provider.script(call("web_fetch", url=f"http://2130706433:{admin.port}/secret"))
    runtime = scripted_runtime(workspace, provider, "plan")
    (result,) = results(await run(runtime.agent, "read it"))
    assert admin.hits == [] and "2130706433 resolves to 127.0.0.1" in result.content
    runtime.close()


async def test_the_user_setting_allows_private_fetches_even_in_plan_mode(
    workspace: Path, admin: _Server
) -> None:
    write_user_settings({"tools": {"allowPrivateNetwork": True}})
    provider = ScriptedProvider()
    provider.script(call("web_fetch", url=f"{admin.url}/secret"), ScriptedReply(text="ok"))
    runtime = scripted_runtime(workspace, provider, "plan")
    (result,) = results(await run(runtime.agent, "read it"))
    assert not result.is_error and SECRET_BODY in result.content
    runtime.close()


async def test_a_project_file_cannot_allow_private_fetches(workspace: Path, admin: _Server) -> None:
    (workspace / ".lull").mkdir()
    (workspace / ".lull/settings.json").write_text('{"tools": {"allowPrivateNetwork": true}}')
    provider = ScriptedProvider()
    provider.script(call("web_fetch", url=f"{admin.url}/secret"), ScriptedReply(text="ok"))
    runtime = scripted_runtime(workspace, provider, "plan")
    warnings = [d.message for d in runtime.loaded.diagnostics]
    assert any(
        "tools.allowPrivateNetwork = true is ignored: a project file may not set" in w
        for w in warnings
    )
    (result,) = results(await run(runtime.agent, "read it"))
    assert result.is_error and admin.hits == []
    runtime.close()


class RecordingApprover:
    """Answers approval questions from a list, remembering what it was asked."""

    def __init__(self, *answers: Decision) -> None:
        self.answers = list(answers)
        self.asked: list[str] = []

    async def ask(self, call: ToolCall, summary: str, rules: tuple[str, ...] = ()) -> Approval:
        """The next scripted answer."""
        self.asked.append(summary)
        return Approval(self.answers.pop(0))


async def test_an_approved_fetch_runs_and_allow_always_covers_only_that_host(
    tmp_path: Path, admin: _Server
) -> None:
    provider = ScriptedProvider()
    provider.script(call("web_fetch", url=f"{admin.url}/secret"), ScriptedReply(text="ok"))
    resolver = resolver_from({"intranet": [["10.1.2.3"]]})
    agent = agent_with_fetch(tmp_path, provider, "default", resolver)
    approver = RecordingApprover("allow_always", "deny")
    agent.set_approver(approver)
    (first,) = results(await run(agent, "read it"))
    assert SECRET_BODY in first.content and admin.hits == ["/secret"]
    assert approver.asked == [f"{admin.url}/secret (127.0.0.1 is a loopback address)"]
    provider.script(call("web_fetch", url=f"{admin.url}/secret"), ScriptedReply(text="ok"))
    await run(agent, "again")
    assert len(approver.asked) == 1 and len(admin.hits) == 2  # that host: not asked again
    provider.script(call("web_fetch", url="http://intranet:9/"), ScriptedReply(text="ok"))
    (denied,) = results(await run(agent, "and the intranet"))
    assert approver.asked[1] == (
        "http://intranet:9/ (intranet resolves to 10.1.2.3, a private address)"
    )
    assert denied.is_error and "the user denied it" in denied.content


async def test_a_public_looking_name_that_resolves_to_loopback_is_caught(
    tmp_path: Path, admin: _Server
) -> None:
    provider = ScriptedProvider()
    url = f"http://docs.example.com:{admin.port}/secret"
    provider.script(call("web_fetch", url=url), ScriptedReply(text="ok"))
    resolver = resolver_from({"docs.example.com": [["127.0.0.1"]]})
    agent = agent_with_fetch(tmp_path, provider, "default", resolver)
    agent.set_approver(DenyApprover("no"))
    (result,) = results(await run(agent, "read the docs"))
    assert admin.hits == []
    assert "docs.example.com resolves to 127.0.0.1, a loopback address" in result.content


async def test_a_second_dns_answer_pointing_at_loopback_is_caught(
    tmp_path: Path, admin: _Server
) -> None:
    """DNS rebinding: public while the call is checked, loopback when it connects."""
    provider = ScriptedProvider()
    url = f"http://rebind.example:{admin.port}/secret"
    provider.script(call("web_fetch", url=url), ScriptedReply(text="ok"))
    public = ["93.184.216.34"]
    resolver = resolver_from({"rebind.example": [public, public, ["127.0.0.1"]]})
    agent = agent_with_fetch(tmp_path, provider, "plan", resolver)
    (result,) = results(await run(agent, "read it"))
    assert admin.hits == []
    assert result.is_error and result.content.startswith(
        f"web_fetch: {url} was not fetched: rebind.example resolves to 127.0.0.1, "
        "a loopback address"
    )


async def test_a_redirect_from_a_public_page_to_loopback_is_not_followed(
    tmp_path: Path, admin: _Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The public page is served through the user's proxy (no internet in tests)."""
    target = f"{admin.url}/secret"
    proxy = _Server({"http://public.example/start": (302, {"Location": target}, "moved")})
    monkeypatch.setenv("http_proxy", proxy.url)
    try:
        provider = ScriptedProvider()
        provider.script(call("web_fetch", url="http://public.example/start"))
        resolver = resolver_from({"public.example": [["93.184.216.34"]]})
        agent = agent_with_fetch(tmp_path, provider, "plan", resolver)
        (result,) = results(await run(agent, "read it"))
    finally:
        proxy.close()
    assert proxy.hits == ["http://public.example/start"]
    assert admin.hits == [] and SECRET_BODY not in result.content
    assert (
        f"127.0.0.1 is a loopback address (a redirect from http://public.example/start to "
        f"{target})" in result.content
    )


async def test_an_approved_fetch_does_not_follow_a_redirect_to_another_private_host(
    tmp_path: Path, admin: _Server
) -> None:
    hop = _Server({"/hop": (302, {"Location": f"http://localhost:{admin.port}/secret"}, "")})
    try:
        provider = ScriptedProvider()
        provider.script(call("web_fetch", url=f"{hop.url}/hop"))
        resolver = resolver_from({"localhost": [["127.0.0.1"]]})
        agent = agent_with_fetch(tmp_path, provider, "default", resolver)
        agent.set_approver(AllowApprover())
        (result,) = results(await run(agent, "read it"))
    finally:
        hop.close()
    assert hop.hits == ["/hop"] and admin.hits == []
    assert "localhost resolves to 127.0.0.1, a loopback address (a redirect from" in (
        result.content
    )


# --- item 3: secrets stay out of tool environments -----------------------------------------


async def test_the_shell_does_not_see_api_keys_and_the_session_file_holds_none(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secrets = {
        "ANTHROPIC_API_KEY": "sk-ant-api03-do-not-leak",
        "ANTHROPIC_AUTH_TOKEN": "auth-token-do-not-leak",
        "OPENAI_API_KEY": "sk-proj-do-not-leak",
        "GITHUB_TOKEN": "ghp_do_not_leak",
        "PGPASSWORD": "pg-do-not-leak",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HARMLESS_SETTING", "visible")
    provider = ScriptedProvider()
    provider.script(call("run_shell_command", command="env"), ScriptedReply(text="done"))
    runtime = scripted_runtime(workspace, provider, "yolo")
    path = runtime.agent.session.path
    assert path is not None
    (result,) = results(await run(runtime.agent, "show me the environment"))
    runtime.close()
    assert "HARMLESS_SETTING=visible" in result.content
    saved = path.read_text()
    for name, value in secrets.items():
        assert value not in result.content and f"{name}=" not in result.content
        assert value not in saved


async def test_named_variables_pass_through_from_user_settings_only(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NPM_TOKEN", "npm-needed-for-install")
    monkeypatch.setenv("DEPLOY_TOKEN", "deploy-secret")
    write_user_settings({"tools": {"envPassthrough": ["NPM_*"]}})
    (workspace / ".lull").mkdir()
    (workspace / ".lull/settings.json").write_text('{"tools": {"envPassthrough": ["*"]}}')
    provider = ScriptedProvider()
    provider.script(call("run_shell_command", command="env"), ScriptedReply(text="done"))
    runtime = scripted_runtime(workspace, provider, "yolo")
    (result,) = results(await run(runtime.agent, "env"))
    runtime.close()
    assert "NPM_TOKEN=npm-needed-for-install" in result.content
    assert "deploy-secret" not in result.content
    assert any(
        "tools.envPassthrough" in d.message and "a project file may not set" in d.message
        for d in runtime.loaded.diagnostics
    )


# --- item 4: a symlink swapped in during a write -------------------------------------------

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


# --- item 9: a write killed half-way --------------------------------------------------------

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


# --- item 11: a catastrophic regex -----------------------------------------------------------

CATASTROPHIC = "(a+)+$"


@pytest.fixture
def backtracking_file(workspace: Path) -> Path:
    """A line on which ``(a+)+$`` backtracks for longer than anyone will wait."""
    path = workspace / "trap.txt"
    path.write_text("a" * 64 + "b\n")
    return path


async def test_a_catastrophic_regex_returns_an_error_within_the_limit_and_lull_stays_live(
    backtracking_file: Path, ctx_for: Callable[[Path], ToolContext]
) -> None:
    tool = GrepSearchTool(time_limit=1.0, use_ripgrep=False)
    ticks = 0

    async def heartbeat() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.05)
            ticks += 1

    beating = asyncio.create_task(heartbeat())
    started = time.monotonic()
    out = await ToolRegistry([tool]).execute(
        "grep_search", {"pattern": CATASTROPHIC}, ctx_for(backtracking_file.parent)
    )
    elapsed = time.monotonic() - started
    beating.cancel()
    assert out.is_error
    assert out.content.startswith(
        f"grep_search: the search for {CATASTROPHIC!r} took longer than 1 s and was stopped"
    )
    assert elapsed < 15  # the limit is 1 s; a hung search never returns at all
    assert ticks >= 5  # the event loop ran all along: Ctrl+C and Esc are handled


def _search_workers(marker: str) -> list[int]:
    """Live search worker processes whose request names ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode("utf-8", "replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if "lull.tools.search.worker" in cmdline and marker in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find the worker")
async def test_cancelling_the_turn_stops_a_runaway_search_at_once(
    tmp_path: Path, backtracking_file: Path
) -> None:
    provider = ScriptedProvider()
    provider.script(call("grep_search", pattern=CATASTROPHIC), ScriptedReply(text="never"))
    workspace = backtracking_file.parent
    tools = ToolRegistry([GrepSearchTool(use_ripgrep=False)])  # the default 30 s limit
    agent = agent_on(provider, workspace, tmp_path, tools=tools, clock=time.time)

    task = asyncio.create_task(run(agent, "search"))
    for _ in range(500):
        if _search_workers(str(workspace)):
            break
        await asyncio.sleep(0.02)
    assert _search_workers(str(workspace)), "the search worker never started"
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 3
    for _ in range(100):
        if not _search_workers(str(workspace)):
            break
        await asyncio.sleep(0.02)
    assert _search_workers(str(workspace)) == []
    (result,) = agent.session.transcript[-1].tool_results
    assert result.is_error and "Cancelled" in result.content


@pytest.fixture
def ctx_for(tmp_path: Path) -> Callable[[Path], ToolContext]:
    """A tool context for a workspace."""
    return lambda workspace: ToolContext(workspace=workspace, output_dir=tmp_path / "out")


# --- item 14: tools.shellTimeoutSeconds ------------------------------------------------------


async def test_the_shell_timeout_setting_kills_a_command_that_names_no_timeout(
    workspace: Path,
) -> None:
    write_user_settings({"tools": {"shellTimeoutSeconds": 1}})
    runtime = build_runtime(RunOptions(workspace=workspace, demo=True), env={})
    runner = runtime.agent.tools
    assert runner.context.shell_timeout_seconds == 1
    started = time.monotonic()
    out = await runner.registry.execute(
        "run_shell_command", {"command": "sleep 30"}, runner.context
    )
    elapsed = time.monotonic() - started
    runtime.close()
    assert out.is_error and out.content.startswith("Command timed out after 1 s and was killed")
    assert elapsed < 15  # far below the 30 s the command asked for
