"""Runtime wiring: the environment block on resume, and switching session or model only
through the runtime's methods."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from lull.context.cachebreak import find_detector
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.model.events import TurnFinished
from lull.model.messages import user_text
from lull.model.provider import Usage
from lull.providers.anthropic import AnthropicProvider
from lull.runtime import (
    RunOptions,
    Runtime,
    StartupError,
    SwitchError,
    build_runtime,
    session_environment,
)
from lull.tools.builtin.shell import ShellTool
from tests.support import demo_runtime, run

SHELL = ShellTool()


def _saved_session(tmp_path: Path, workspace: Path) -> tuple[SessionStore, str]:
    store = SessionStore(tmp_path / "sessions", workspace)
    session = Session.create(store, provider="anthropic", model="m")
    environment = session_environment(session, workspace, now=1000.0)
    session.add(user_text("hi"))
    session.record_response(1000.0, Usage(input=1), "m")
    session.close()
    return store, environment


def test_quick_resume_reuses_the_saved_environment(tmp_path: Path, workspace: Path) -> None:
    store, first = _saved_session(tmp_path, workspace)
    (workspace / "AGENTS.md").write_text("new rules\n")  # would change the block if recomputed
    resumed = Session.resume(store, store.latest())
    assert session_environment(resumed, workspace, now=1000.0 + 30 * 60) == first
    resumed.close()


def test_a_late_resume_gets_a_fresh_environment_and_saves_it(
    tmp_path: Path, workspace: Path
) -> None:
    store, first = _saved_session(tmp_path, workspace)
    (workspace / "AGENTS.md").write_text("new rules\n")
    resumed = Session.resume(store, store.latest())
    fresh = session_environment(resumed, workspace, now=1000.0 + 2 * 3600)
    assert fresh != first and "new rules" in fresh
    resumed.close()
    again = Session.resume(store, store.latest())
    assert again.record.environment == fresh
    again.close()


# --- switching session and model through the runtime ---------------------------------------


def _demo(workspace: Path) -> Runtime:
    return demo_runtime(workspace, env={})


async def test_a_demo_runtime_needs_no_key_and_answers(workspace: Path) -> None:
    runtime = _demo(workspace)
    assert runtime.provider_config.provider == "scripted"
    events = await run(runtime.agent, "hello")
    assert isinstance(events[-1], TurnFinished) and "hello" in events[-1].text
    assert runtime.session_cost() is None  # a scripted model has no price
    runtime.close()


def test_without_a_provider_the_error_asks_for_setup(workspace: Path) -> None:
    with pytest.raises(StartupError) as error:
        build_runtime(RunOptions(workspace=workspace), env={})
    assert error.value.needs_setup
    with pytest.raises(StartupError) as missing:
        build_runtime(RunOptions(workspace=workspace, demo=True, resume="nosuch"), env={})
    assert not missing.value.needs_setup and "no saved session 'nosuch'" in str(missing.value)


async def test_new_session_and_resume_replace_the_agent_and_keep_the_tools(
    workspace: Path,
) -> None:
    runtime = _demo(workspace)
    first, tools = runtime.agent, runtime.agent.tools
    await run(first, "remember tangerine")
    tools.rules.remember(SHELL, {"command": "ls"}, ("run_shell_command",), "session")

    fresh = runtime.new_session()
    assert runtime.agent is not first and runtime.agent.session is fresh
    assert runtime.agent.tools is tools and not tools.rules.session
    assert not fresh.transcript and not runtime.resumed
    assert runtime.store.path_for(first.session.id).is_file()

    resumed = runtime.resume(first.session.id[:8])
    assert resumed.id == first.session.id and runtime.resumed
    assert resumed.transcript[0].text == "remember tangerine"
    assert runtime.resume(resumed.id) is resumed  # the current one: nothing changes
    with pytest.raises(SwitchError, match="no saved session 'nosuch'"):
        runtime.resume("nosuch")


def _tracked(obj: object) -> bool:
    """True while ``obj`` is in a collected generation (not frozen by ``gc.freeze``)."""
    return any(o is obj for o in gc.get_objects())


async def test_a_resumed_history_is_kept_out_of_garbage_collections(workspace: Path) -> None:
    runtime = _demo(workspace)
    first = runtime.agent
    await run(first, "remember tangerine")
    runtime.new_session()
    resumed = runtime.resume(first.session.id)  # /resume
    assert gc.isenabled()
    assert not _tracked(resumed.transcript[0])  # frozen: full collections never walk it
    runtime.close()
    again = build_runtime(RunOptions(workspace=workspace, demo=True, resume=resumed.id), env={})
    assert not _tracked(again.agent.session.transcript[0])  # --resume
    again.close()


def test_importing_the_sdk_makes_the_client_ahead_of_the_first_request(workspace: Path) -> None:
    env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
    runtime = build_runtime(RunOptions(workspace=workspace), env=env)
    provider = runtime.agent.provider
    assert isinstance(provider, AnthropicProvider) and not provider.client.made
    runtime.import_sdk()  # what the TUI does off the UI thread (line mode: preload_sdk)
    assert provider.client.made
    runtime.close()


async def test_use_model_keeps_the_session_and_the_cache_break_detector(workspace: Path) -> None:
    runtime = _demo(workspace)
    session, hooks = runtime.agent.session, runtime.agent.request_hooks
    await run(runtime.agent, "one")
    runtime.use_model("other-model")
    assert runtime.provider_config.model == "other-model"
    assert runtime.agent.provider.model == "other-model"
    assert runtime.agent.session is session and runtime.agent.request_hooks is hooks
    await run(runtime.agent, "two")
    detector = find_detector(runtime.agent.request_hooks)
    assert detector is not None and detector.unexpected == []
    with pytest.raises(SwitchError, match="no spaces"):
        runtime.use_model("two words")


def test_without_a_model_name_the_servers_only_model_is_used(workspace: Path) -> None:
    asked: list[tuple[str, str]] = []

    def one_model(base_url: str, api_key: str) -> tuple[str, ...]:
        asked.append((base_url, api_key))
        return ("qwen2.5-coder:7b",)

    env = {"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"}
    runtime = build_runtime(RunOptions(workspace=workspace), env=env, model_lister=one_model)
    assert runtime.provider_config.model == "qwen2.5-coder:7b"
    assert asked == [("http://127.0.0.1:8080/v1", "not-needed")]
    assert runtime.start_notes == (
        "using model qwen2.5-coder:7b, the only one the server at http://127.0.0.1:8080/v1 "
        "serves (-m NAME or model.name chooses another)",
    )
    assert runtime.local_endpoint() and runtime.session_cost() == 0.0
    runtime.close()
    named = build_runtime(
        RunOptions(workspace=workspace, model="mine"), env=env, model_lister=one_model
    )
    assert named.provider_config.model == "mine" and len(asked) == 1 and named.start_notes == ()
    named.close()


def test_without_a_model_name_several_models_are_an_error_that_lists_them(
    workspace: Path,
) -> None:
    env = {"OPENAI_BASE_URL": "http://10.0.0.7:8000/v1", "OPENAI_API_KEY": "sk-local"}
    with pytest.raises(StartupError) as error:
        build_runtime(
            RunOptions(workspace=workspace), env=env, model_lister=lambda url, key: ("a", "b")
        )
    assert str(error.value) == (
        "the server at http://10.0.0.7:8000/v1 serves 2 models: a, b; "
        "choose one with -m NAME (or model.name in settings.json)"
    )
    assert error.value.needs_setup


def test_an_allowed_path_no_file_name_can_hold_is_left_out_with_a_warning(
    workspace: Path, isolated_env: Path
) -> None:
    config = isolated_env / "config" / "lull"
    config.mkdir(parents=True)
    good = workspace.parent / "shared"
    good.mkdir()
    text = json.dumps({"tools": {"allowedPaths": [str(good), "/tmp/\ud800x"]}})
    (config / "settings.json").write_text(text)  # json.dumps escapes the lone surrogate
    runtime = demo_runtime(workspace, env={})
    assert runtime.agent.tools.context.allowed_paths == (good.resolve(),)
    [warning] = [d.message for d in runtime.loaded.diagnostics]
    assert "tools.allowedPaths: '/tmp/\\ud800x' is left out" in warning
    runtime.close()


def test_keep_zero_and_the_stage_thresholds_reach_the_agent(workspace: Path) -> None:
    settings = workspace / ".lull" / "settings.json"
    settings.parent.mkdir()
    compression = {"watchThreshold": 0.3, "lightThreshold": 0.45, "emergencyThreshold": 0.95}
    settings.write_text(json.dumps({"context": {"compression": compression}}))
    runtime = build_runtime(
        RunOptions(workspace=workspace, demo=True), env={"LULL_TOOL_RESULTS_NUM_TO_KEEP": "0"}
    )
    config = runtime.agent.config
    assert config.idle.tool_results_num_to_keep == 0
    policy = config.compression
    assert (policy.watch_threshold, policy.light_threshold, policy.threshold) == (0.3, 0.45, 0.8)
    assert policy.emergency_threshold == 0.95
    assert runtime.loaded.diagnostics == []
    runtime.close()


async def test_a_projects_hooks_wait_for_trust(workspace: Path) -> None:
    from lull.settings.workspaces import trust

    marker = workspace / "hook-ran"
    hook = {"type": "command", "command": f"echo ran >> '{marker}'"}
    (workspace / ".lull").mkdir()
    (workspace / ".lull" / "settings.json").write_text(
        json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}})
    )
    runtime = _demo(workspace)
    assert any("define hooks" in n and "/trust" in n for n in runtime.start_notes)
    await run(runtime.agent, "hello")
    assert not marker.exists()
    trust(workspace)
    runtime.workspace_trusted()  # what /trust does after saving
    await run(runtime.agent, "again")
    assert marker.read_text() == "ran\n"
    runtime.close()
