"""Who serves web_search: Anthropic's server tool on Claude, a configured API, or nobody."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from lull.commands import run_command
from lull.model.search import WebSearchConfig
from lull.providers.anthropic_search import AnthropicServerSearch
from lull.providers.config import ProviderConfig
from lull.runtime import RunOptions, Runtime, build_runtime
from lull.runtime.wiring import subagent_providers, web_search_backend
from lull.settings.model import Settings
from lull.settings.workspaces import trust
from lull.tools.base import ToolError
from lull.tools.files.paths import resolve_in_workspace
from lull.tools.net.search_backends import HttpSearchBackend
from lull.tools.process.environment import tool_environment
from tests.support import demo_runtime

CLAUDE = ProviderConfig("anthropic", "claude-sonnet-4-5", "k", None, "anthropic")
GPT = ProviderConfig("openai", "gpt-5", "k", None, "openai")


def with_search(choice: WebSearchConfig | None) -> Settings:
    settings = Settings()
    return dataclasses.replace(
        settings, tools=dataclasses.replace(settings.tools, web_search=choice)
    )


def test_claude_models_search_on_the_server_by_default() -> None:
    notes: list[str] = []
    assert isinstance(
        web_search_backend(with_search(None), CLAUDE, {}, notes), AnthropicServerSearch
    )
    assert web_search_backend(with_search(None), GPT, {}, notes) is None
    assert notes == []  # nothing configured, nothing to say


def test_a_configured_api_needs_its_key() -> None:
    notes: list[str] = []
    brave = with_search(WebSearchConfig("brave"))
    assert web_search_backend(brave, GPT, {}, notes) is None
    assert notes == [
        "tools.webSearch: BRAVE_API_KEY is not set, so web_search (brave) is not offered; set "
        "it, or name the variable with apiKeyEnv"
    ]
    backend = web_search_backend(brave, GPT, {"BRAVE_API_KEY": "x"}, [])
    assert isinstance(backend, HttpSearchBackend) and backend.provider == "brave"
    searx = with_search(WebSearchConfig("searxng", url="http://127.0.0.1:8888"))
    assert isinstance(web_search_backend(searx, GPT, {}, []), HttpSearchBackend)


def test_off_and_anthropic_on_another_provider_offer_nothing() -> None:
    assert web_search_backend(with_search(WebSearchConfig("off")), CLAUDE, {}, []) is None
    notes: list[str] = []
    assert web_search_backend(with_search(WebSearchConfig("anthropic")), GPT, {}, notes) is None
    assert "anthropic needs a Claude model on the Anthropic API" in notes[0]


def test_the_tool_is_offered_only_when_available(workspace: Path) -> None:
    demo = demo_runtime(workspace, env={})
    assert "web_search" not in demo.agent.tools.registry.names()
    env = {"ANTHROPIC_API_KEY": "k", "LULL_PROVIDER": "anthropic"}
    claude = build_runtime(RunOptions(workspace=workspace, model="claude-sonnet-4-5"), env=env)
    assert "web_search" in claude.agent.tools.registry.names()
    claude.close()


def test_a_sub_agent_that_names_an_alias_gets_the_real_model() -> None:
    made: list[str] = []

    def factory(config: ProviderConfig) -> Any:
        made.append(config.model)
        return SimpleNamespace(model=config.model)

    current = SimpleNamespace(provider=SimpleNamespace(model="claude-sonnet-4-5"))
    provider_for = subagent_providers(CLAUDE, factory, lambda: cast(Any, current))
    assert provider_for("haiku").model == "claude-haiku-5-5"
    assert provider_for("inherit") is current.provider
    assert provider_for(None) is current.provider
    assert made == ["claude-haiku-5-5"]
    gpt = subagent_providers(GPT, factory, lambda: cast(Any, current))
    assert gpt("haiku").model == "haiku"  # another wire's model names are its own


def test_skills_of_the_user_and_the_project_are_offered_and_a_broken_one_is_a_note(
    workspace: Path,
) -> None:
    from tests.unit.tools.skills.test_library import skill

    assert "skill" not in demo_runtime(workspace, env={}).agent.tools.registry.names()
    skill(Path.home() / ".claude" / "skills", "notes", "---\ndescription: Take notes\n---\nDo.")
    skill(workspace / ".claude" / "skills", "lint", "---\ndescription: Lint it\n---\nRun ruff.")
    broken = skill(workspace / ".lull" / "skills", "broken", "---\nname: broken\n---\nx")
    runtime = demo_runtime(workspace, env={})
    tool = runtime.agent.tools.registry.get("skill")
    assert tool is not None
    assert "- lint: Lint it" in tool.description and "- notes: Take notes" in tool.description
    assert f"{broken / 'SKILL.md'}: skipped: description: missing" in " ".join(runtime.start_notes)


def _reachable(runtime: Runtime, path: Path) -> bool:
    """Whether the runtime's tools may touch ``path``."""
    try:
        resolve_in_workspace(str(path), runtime.agent.tools.context)
    except ToolError:
        return False
    return True


def test_a_projects_added_directory_waits_for_trust(tmp_path: Path) -> None:
    workspace, shared = tmp_path / "ws", tmp_path / "shared"
    (workspace / ".claude").mkdir(parents=True)
    shared.mkdir()
    (workspace / ".claude" / "settings.json").write_text(
        '{"permissions": {"additionalDirectories": ["../shared"]}}', "utf-8"
    )
    runtime = demo_runtime(workspace)
    assert not _reachable(runtime, shared / "notes.md")
    assert any("../shared" in note and "/trust" in note for note in runtime.start_notes)
    run_command(runtime, "/trust")
    assert _reachable(runtime, shared / "notes.md")


def test_the_users_added_directories_and_add_dir_apply_at_once(tmp_path: Path) -> None:
    workspace, mine, flagged = tmp_path / "ws", tmp_path / "mine", tmp_path / "flagged"
    for folder in (workspace, mine, flagged):
        folder.mkdir()
    user_file = Path.home() / ".claude" / "settings.json"
    user_file.parent.mkdir()
    added = {"permissions": {"additionalDirectories": [str(mine)]}}
    user_file.write_text(json.dumps(added), "utf-8")
    runtime = demo_runtime(workspace, add_dirs=(str(flagged),))
    assert _reachable(runtime, mine / "a.py")
    assert _reachable(runtime, flagged / "b.py")
    assert not _reachable(runtime, tmp_path / "elsewhere.py")


def test_the_users_env_setting_reaches_the_provider_and_the_commands_a_projects_once_trusted(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ANTHROPIC_BASE_URL", "LULL_TEST_GREETING", "LULL_TEST_PROJECT"):
        monkeypatch.delenv(name, raising=False)  # put back as they were when the test ends
    variables = {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "LULL_TEST_GREETING": "hi"}
    user_file = Path.home() / ".claude" / "settings.json"
    user_file.parent.mkdir(parents=True)
    user_file.write_text(json.dumps({"env": variables}), "utf-8")
    project = workspace / ".claude" / "settings.json"
    project.parent.mkdir()
    project.write_text(json.dumps({"env": {"LULL_TEST_PROJECT": "from the repo"}}), "utf-8")
    runtime = build_runtime(RunOptions(workspace=workspace), env={"ANTHROPIC_API_KEY": "k"})
    try:
        assert runtime.provider_config.base_url == "http://127.0.0.1:9"
        assert tool_environment()["LULL_TEST_GREETING"] == "hi"
        assert "LULL_TEST_PROJECT" not in tool_environment()
        [waiting] = [n for n in runtime.start_notes if "env (LULL_TEST_PROJECT)" in n]
        assert waiting.startswith(f"{project}: ") and "/trust" in waiting
        trust(workspace)
        runtime.workspace_trusted()
        assert tool_environment()["LULL_TEST_PROJECT"] == "from the repo"
    finally:
        runtime.close()
