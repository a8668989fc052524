"""Commands run by tools do not get lull's API keys or other secrets; only variables the
user's own settings name pass through."""

from __future__ import annotations

from pathlib import Path

import pytest

from lull.providers.scripted import ScriptedProvider, ScriptedReply
from tests.reliability.helpers import (
    call,
    results,
    scripted_runtime,
    write_user_settings,
)
from tests.support import run


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
