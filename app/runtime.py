"""Wiring: settings + provider + tools + session -> a ready :class:`Agent`.

Front ends call :func:`build_runtime` once; it is the only place that knows how
every part is put together.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.catalog.prompt import STATIC_SYSTEM_PROMPT, environment_prompt
from app.context.cachebreak import CacheBreakDetector
from app.context.compress_plan import CompressionPolicy
from app.context.idle import DEFAULT_COMPACTABLE, IdlePolicy
from app.engine.agent import Agent, AgentConfig
from app.engine.session import Session
from app.engine.store import SessionNotFound, SessionStore
from app.engine.tool_runner import ToolRunner
from app.model.provider import Provider, ThinkingConfig
from app.providers.config import (
    ConfigError,
    ProviderConfig,
    create_provider,
    resolve_provider_config,
)
from settings.loader import LoadedSettings, load_settings
from settings.model import Settings
from settings.paths import sessions_dir, tool_output_dir
from tools.base import ToolContext
from tools.registry import ToolRegistry, default_registry

DEFAULT_MAX_OUTPUT_TOKENS = 8192
# Within the longest cache lifetime (1 h) a resume reuses the saved environment block, so the
# provider's cached prefix still matches even if the date or git status changed meanwhile.
ENVIRONMENT_REUSE_SECONDS = 3600.0


class StartupError(Exception):
    """lull cannot start a session; the message is one line saying why and what to do."""


@dataclass(frozen=True)
class RunOptions:
    """What the command line asked for (None = not given)."""

    workspace: Path
    model: str | None = None
    provider: str | None = None
    base_url: str | None = None
    approval_mode: str | None = None
    max_turns: int | None = None
    resume: str | None = None
    continue_last: bool = False


@dataclass
class Runtime:
    """A ready agent and what it was built from."""

    agent: Agent
    loaded: LoadedSettings
    provider_config: ProviderConfig
    store: SessionStore
    resumed: bool


def cli_overrides(options: RunOptions) -> dict[str, Any]:
    """CLI flags as dotted settings keys (highest precedence)."""
    pairs: dict[str, Any] = {
        "model.name": options.model,
        "model.provider": options.provider,
        "model.baseUrl": options.base_url,
        "tools.approvalMode": options.approval_mode,
        "maxTurns": options.max_turns,
    }
    return {k: v for k, v in pairs.items() if v is not None}


def build_runtime(options: RunOptions, env: Mapping[str, str] | None = None) -> Runtime:
    """Load settings, resolve the provider and open (or resume) a session.

    Raises ``settings.errors.SettingsError`` for a bad flag value (exit 2) and
    :class:`StartupError` for anything else that stops a start (exit 1).
    """
    env = dict(os.environ if env is None else env)
    loaded = load_settings(options.workspace, env=env, cli=cli_overrides(options))
    settings = loaded.settings
    try:
        config = resolve_provider_config(
            provider=settings.model.provider,
            model=settings.model.name,
            base_url=settings.model.base_url,
            vendor=settings.model.vendor,
            env=env,
        )
    except ConfigError as error:
        raise StartupError(str(error)) from error
    store = SessionStore(sessions_dir(), options.workspace)
    session, resumed = _open_session(store, options, config)
    registry = default_registry()
    runner = ToolRunner(registry, tool_context(settings, options.workspace), _mode(settings))
    agent = Agent(
        session,
        create_provider(config),
        runner,
        agent_config(settings, config, registry, session_environment(session, options.workspace)),
        summary_provider=_summary_provider(settings, config),
    )
    agent.request_hooks.append(CacheBreakDetector(lambda: session.edits))
    return Runtime(agent, loaded, config, store, resumed)


def _summary_provider(settings: Settings, config: ProviderConfig) -> Provider | None:
    """A separate provider for summaries when ``context.compression.model`` names another model."""
    model = settings.context.compression.model
    if not model or model == config.model:
        return None
    return create_provider(dataclasses.replace(config, model=model))


def _open_session(
    store: SessionStore, options: RunOptions, config: ProviderConfig
) -> tuple[Session, bool]:
    try:
        if options.resume:
            return Session.resume(store, store.find(options.resume)), True
        if options.continue_last:
            return Session.resume(store, store.latest()), True
    except SessionNotFound as error:
        raise StartupError(str(error)) from error
    return Session.create(
        store, provider=config.provider, model=config.model, clock=time.time
    ), False


def _mode(settings: Settings) -> Any:
    return settings.tools.approval_mode


def tool_context(settings: Settings, workspace: Path) -> ToolContext:
    """Where tools run and what they may touch, from settings."""
    allowed = tuple(Path(p).expanduser().resolve() for p in settings.tools.allowed_paths)
    return ToolContext(
        workspace=workspace.resolve(),
        output_dir=tool_output_dir(),
        allowed_paths=allowed,
        max_output_chars=settings.tools.max_output_chars,
    )


def session_environment(session: Session, workspace: Path, now: float | None = None) -> str:
    """The environment block: the saved one on a quick resume (the cache may still be warm),
    else computed afresh (date, git status) and saved with the session."""
    now = time.time() if now is None else now
    last = session.last_response_at
    saved = session.record.environment
    if saved and last is not None and now - last < ENVIRONMENT_REUSE_SECONDS:
        return saved
    text = environment_prompt(workspace.resolve())
    session.use_environment(text)
    return text


def agent_config(
    settings: Settings, config: ProviderConfig, registry: ToolRegistry, environment: str
) -> AgentConfig:
    """The agent's per-session configuration."""
    idle = settings.context.clear_context_on_idle
    compactable = (
        frozenset(name for name in registry.names() if registry.is_compactable(name))
        | DEFAULT_COMPACTABLE
        | frozenset(idle.compactable_tools)
    )
    max_output = settings.model.max_output_tokens or DEFAULT_MAX_OUTPUT_TOKENS
    compression = settings.context.compression
    return AgentConfig(
        system=STATIC_SYSTEM_PROMPT,
        environment=environment,
        max_turns=settings.max_turns,
        max_output_tokens=max_output,
        thinking=thinking_config(settings.model.thinking, max_output),
        idle=IdlePolicy(
            thinking_threshold_minutes=idle.thinking_threshold_minutes,
            tool_results_threshold_minutes=idle.tool_results_threshold_minutes,
            tool_results_num_to_keep=idle.tool_results_num_to_keep,
            compactable=compactable,
        ),
        vendor=config.vendor,
        prompt_caching=settings.context.cache.enabled,
        cache_ttl=settings.context.cache.ttl,
        prompt_cache_key=settings.context.cache.prompt_cache_key,
        context_window=settings.model.context_window,
        compression=CompressionPolicy(
            threshold=compression.threshold,
            keep_recent_fraction=compression.keep_recent_fraction,
            model=compression.model,
        ),
        tool_output_max_tokens=settings.context.tool_output.max_tokens,
    )


def thinking_config(value: bool | int, max_output: int) -> ThinkingConfig:
    """``model.thinking`` (false / true / a budget) as a ThinkingConfig."""
    if value is False:
        return ThinkingConfig(False)
    if value is True:
        return ThinkingConfig(True)
    return ThinkingConfig(True, min(int(value), max(1024, max_output - 1)))
