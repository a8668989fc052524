"""``web_fetch`` of a loopback or private address needs approval, also behind a
public-looking name, a second DNS answer or a redirect; only the user's own settings can allow
it without asking."""

from __future__ import annotations

import ipaddress
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from lull.engine.calls.approvals import AllowApprover, DenyApprover
from lull.engine.loop.agent import Agent
from lull.model.approvals import Approval, ApprovalMode, Decision
from lull.model.messages import ToolCall
from lull.providers.scripted import ScriptedProvider, ScriptedReply
from lull.tools.builtin.web_fetch import WebFetchTool
from lull.tools.registry import ToolRegistry
from tests.reliability.helpers import (
    call,
    results,
    scripted_runtime,
    write_user_settings,
)
from tests.support import agent_on, run

SECRET_BODY = "the admin console's secret"


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
