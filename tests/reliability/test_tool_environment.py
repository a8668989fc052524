"""Commands run by tools do not get lull's API keys or other secrets (by name or by value);
only variables the user's own settings name pass through, and a project file may only narrow
that list."""

from __future__ import annotations

import json
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


LEAKY = {
    "PRIVATE_KEY_PEM": "-----BEGIN PRIVATE KEY-----\nMIIdo-not-leak\n-----END PRIVATE KEY-----",
    "SSH_PRIVATE_KEY_B64": "LS0tLS1CRUdJTiBPUEVOU1NIdo-not-leak",
    "GH_PAT": "github_pat_11AAAAAAA0-do-not-leak",
    "TOKEN": "tok-do-not-leak",
    "DATABASE_URL": "postgres://u:pw-do-not-leak@db.example/db",
    "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T000/B000/do-not-leak",
}
HARMLESS = {
    "KEYBOARD_LAYOUT": "de",
    "TOKENIZERS_PARALLELISM": "false",
    "SSH_AUTH_SOCK": "/tmp/ssh-agent.sock",
    "EDITOR": "vi",
    "PLAIN_URL": "https://example.com/a",
}


async def test_secret_looking_names_and_values_are_withheld_from_a_real_shell(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in {**LEAKY, **HARMLESS}.items():
        monkeypatch.setenv(name, value)
    provider = ScriptedProvider()
    provider.script(call("run_shell_command", command="env"), ScriptedReply(text="done"))
    runtime = scripted_runtime(workspace, provider, "yolo")
    path = runtime.agent.session.path
    assert path is not None
    (result,) = results(await run(runtime.agent, "show me the environment"))
    runtime.close()
    assert not result.is_error
    for name, value in HARMLESS.items():
        assert f"{name}={value}" in result.content
    for name in LEAKY:
        assert f"{name}=" not in result.content
    assert "do-not-leak" not in result.content
    assert "do-not-leak" not in path.read_text()


async def test_a_project_file_may_narrow_the_passthrough_list_but_not_widen_it(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NPM_TOKEN", "npm-needed")
    monkeypatch.setenv("GH_PAT", "pat-needed")
    monkeypatch.setenv("DEPLOY_TOKEN", "deploy-secret")
    write_user_settings({"tools": {"envPassthrough": ["NPM_TOKEN", "GH_PAT"]}})
    (workspace / ".lull").mkdir()
    project = {"tools": {"envPassthrough": ["GH_PAT", "DEPLOY_TOKEN"]}}
    (workspace / ".lull/settings.json").write_text(json.dumps(project))
    provider = ScriptedProvider()
    provider.script(call("run_shell_command", command="env"), ScriptedReply(text="done"))
    runtime = scripted_runtime(workspace, provider, "yolo")
    (result,) = results(await run(runtime.agent, "env"))
    runtime.close()
    assert "GH_PAT=pat-needed" in result.content  # kept by both
    assert "npm-needed" not in result.content  # the project narrowed it away
    assert "deploy-secret" not in result.content  # the project may not add it
    assert any(
        "tools.envPassthrough" in d.message and "DEPLOY_TOKEN" in d.message
        for d in runtime.loaded.diagnostics
    )


async def test_named_variables_pass_through_from_user_settings_and_a_project_cannot_widen(
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
    assert "deploy-secret" not in result.content  # the project's "*" is not taken
    assert "npm-needed-for-install" not in result.content  # what is left of it: nothing
    assert any(
        d.message.startswith(f"{workspace / '.lull/settings.json'}: tools.envPassthrough: ")
        and '"*" ignored' in d.message
        and "using []" in d.message
        for d in runtime.loaded.diagnostics
    )
