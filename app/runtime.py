"""The composition root: settings + provider + tools + session -> a ready :class:`Agent`.

Front ends call :func:`build_runtime` once and then work through the :class:`Runtime`: it
is the only place that knows how every part is put together, and its methods
(:meth:`Runtime.new_session`, :meth:`Runtime.resume`, :meth:`Runtime.use_model`) are the
only way to switch the session or the model. Front ends and slash commands always reach the
agent through ``runtime.agent`` (never a saved copy), since a switch replaces it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.catalog.cache_policy import CacheSetup
from app.catalog.local_servers import is_local_url, list_models
from app.catalog.pricing import cost_by_model
from app.catalog.prompt import STATIC_SYSTEM_PROMPT, environment_prompt
from app.catalog.windows import context_window_for
from app.context.cachebreak import CacheBreakDetector
from app.context.compress_plan import CompressionPolicy
from app.context.idle import DEFAULT_COMPACTABLE, IdlePolicy
from app.engine.agent import Agent, AgentConfig, RequestHook
from app.engine.session import Session
from app.engine.store import SessionNotFound, SessionStorageError, SessionStore, load_notes
from app.engine.tool_runner import ToolRunner
from app.engine.writer import SessionLocked
from app.model import defaults
from app.model.approvals import ApprovalMode
from app.model.provider import Provider, ProviderName, ThinkingConfig
from app.providers.config import (
    ConfigError,
    ModelLister,
    NoModelName,
    ProviderConfig,
    create_provider,
    demo_config,
    model_from_server,
    resolve_provider_config,
)
from settings.loader import LoadedSettings, load_settings
from settings.model import Settings
from settings.paths import pending_writes_dir, sessions_dir, tool_output_dir
from tools.base import ToolContext
from tools.pending_writes import clean_stale
from tools.registry import ToolRegistry, default_registry

# Within the longest cache lifetime (1 h) a resume reuses the saved environment block, so the
# provider's cached prefix still matches even if the date or git status changed meanwhile.
ENVIRONMENT_REUSE_SECONDS = 3600.0

ProviderFactory = Callable[[ProviderConfig], Provider]


class StartupError(Exception):
    """lull cannot start a session; the message is one line saying why and what to do.

    ``needs_setup`` is True when no usable provider is configured (a first run), as opposed
    to a bad session id: front ends then show how to configure one.
    """

    def __init__(self, message: str, *, needs_setup: bool = False) -> None:
        super().__init__(message)
        self.needs_setup = needs_setup


class SwitchError(Exception):
    """A session or model switch was refused; the message is one line saying why."""


@dataclass(frozen=True)
class RunOptions:
    """What the command line asked for (None = not given)."""

    workspace: Path
    model: str | None = None
    provider: ProviderName | None = None
    base_url: str | None = None
    approval_mode: ApprovalMode | None = None
    max_turns: int | None = None
    resume: str | None = None
    continue_last: bool = False
    fork_session: bool = False
    demo: bool = False


class Runtime:
    """A ready agent, what it was built from, and the ways to switch session or model.

    ``provider_factory`` builds a provider for a config (the official SDKs by default; tests
    and ``--demo`` pass an in-process one). ``start_notes`` are lines for the user about how the
    start-up went (e.g. which model was chosen for them), shown once by the front end.
    """

    def __init__(
        self,
        agent: Agent,
        loaded: LoadedSettings,
        provider_config: ProviderConfig,
        store: SessionStore,
        *,
        resumed: bool = False,
        forked: bool = False,
        provider_factory: ProviderFactory = create_provider,
        start_notes: tuple[str, ...] = (),
    ) -> None:
        self._agent = agent
        self._forked = forked
        self.loaded = loaded
        self._provider_config = provider_config
        self.store = store
        self._resumed = resumed
        self._provider_factory = provider_factory
        self.start_notes = start_notes
        self._closing: set[asyncio.Task[None]] = set()
        self._unsaved: str | None = None

    # --- what front ends read ---------------------------------------------------------------

    @property
    def agent(self) -> Agent:
        """The agent turns run on (replaced by a session or model switch)."""
        return self._agent

    @property
    def provider_config(self) -> ProviderConfig:
        """The endpoint and model requests go to now."""
        return self._provider_config

    @property
    def resumed(self) -> bool:
        """Whether the current session was resumed (not started empty)."""
        return self._resumed

    @property
    def settings(self) -> Settings:
        """The effective settings (read afresh: ``loaded`` may change while running)."""
        return self.loaded.settings

    @property
    def workspace(self) -> Path:
        """The directory tools work in."""
        return self._agent.tools.context.workspace

    def session_notes(self) -> list[str]:
        """What opening the session had to say: a fork made, lines skipped, history repaired."""
        session = self._agent.session
        notes = load_notes(session.record, session.path)
        if self._forked:
            notes.insert(
                0,
                f"continuing in a copy of session {session.record.forked_from}: {session.id} "
                "(the original is unchanged)",
            )
        return notes

    def context_window(self) -> int:
        """The current model's context window (``model.contextWindow`` wins over the table)."""
        return int(
            context_window_for(self._provider_config.model, self.settings.model.context_window)
        )

    def local_endpoint(self) -> bool:
        """Whether requests go to this machine or a private network (an unpriced model
        costs $0 there)."""
        config = self._provider_config
        return config.provider != "scripted" and is_local_url(config.effective_base_url)

    def session_cost(self) -> float | None:
        """The session's cost so far in USD, each model's usage at its own prices (None when
        a model's price is unknown)."""
        usage = self._agent.session.usage_by_model
        return cost_by_model(usage, self.settings.pricing, local=self.local_endpoint())

    def cache_setup(self) -> CacheSetup:
        """How idle cleanup and the prompt cache are set up (for TTL warnings)."""
        settings = self.settings
        idle = settings.context.clear_context_on_idle
        provider = self._provider_config.provider
        return CacheSetup(
            provider=None if provider == "scripted" else provider,
            enabled=settings.context.cache.enabled,
            ttl=settings.context.cache.ttl,
            thinking_minutes=idle.thinking_threshold_minutes,
            tool_results_minutes=idle.tool_results_threshold_minutes,
        )

    # --- switching ---------------------------------------------------------------------------

    def new_session(self) -> Session:
        """Close the current session and continue in a new, empty one (same model and tools;
        "allow always" answers are forgotten). Raises :class:`SwitchError` when sessions
        cannot be saved (the current one stays)."""
        config = self._provider_config
        try:
            fresh = Session.create(
                self.store, provider=config.provider, model=config.model, clock=self._agent.clock
            )
        except SessionStorageError as error:
            raise SwitchError(str(error)) from error
        self._switch_session(fresh)
        self._resumed = False
        return fresh

    def resume(self, session_id: str) -> Session:
        """Close the current session and continue a saved one of this workspace (an id
        prefix is enough); the current session itself is returned unchanged. Raises
        :class:`SwitchError` saying why it cannot."""
        try:
            path = self.store.find(session_id)
        except SessionNotFound as error:
            raise SwitchError(str(error)) from error
        if path.stem == self._agent.session.id:
            return self._agent.session
        if path.parent != self.store.dir:
            raise SwitchError(
                f"session {path.stem} belongs to another workspace; "
                f"run `lull -C DIR --resume {path.stem}` there"
            )
        try:
            session = Session.resume(self.store, path)
        except SessionLocked as error:
            raise SwitchError(locked_message(error)) from error
        except (OSError, SessionNotFound, SessionStorageError) as error:
            raise SwitchError(f"cannot resume {path.stem}: {error}") from error
        self._switch_session(session)
        self._resumed = True
        return session

    def use_model(self, name: str) -> None:
        """Send the next requests to model ``name`` (same session, same provider settings;
        the current model: nothing changes). Raises :class:`SwitchError` for a name that
        cannot be a model."""
        name = name.strip()
        if not name or len(name.split()) > 1:
            raise SwitchError(f"a model name has no spaces (got {name!r}); usage: /model NAME")
        if name == self._provider_config.model:
            return
        config = dataclasses.replace(self._provider_config, model=name)
        old = self._agent
        provider, summary = self._provider_factory(config), self._summary_provider(config)
        self._agent = self._rebuild(old.session, provider, summary, old.config)
        self._agent.request_hooks = old.request_hooks  # one detector sees the switch
        self._provider_config = config
        self._close_later(old.provider)

    @property
    def unsaved_on_switch(self) -> str | None:
        """What the session left by the last switch could not save (one line), if anything."""
        return self._unsaved

    def _switch_session(self, session: Session) -> None:
        old = self._agent
        self._unsaved = old.session.close()
        old.tools.always_allowed.clear()
        environment = session_environment(session, self.workspace)
        config = dataclasses.replace(old.config, environment=environment)
        agent = self._rebuild(session, old.provider, old.summary_provider, config)
        agent.request_hooks = hooks_for_session(session, old.request_hooks)
        self._agent = agent

    def _rebuild(
        self,
        session: Session,
        provider: Provider,
        summary_provider: Provider | None,
        config: AgentConfig,
    ) -> Agent:
        """A new agent on ``session`` and ``provider``: fresh per-session engine state (token
        accounting, compression guard); tools (with the front end's approver) and the clock
        carry over."""
        old = self._agent
        return Agent(
            session, provider, old.tools, config, old.clock, summary_provider=summary_provider
        )

    def _summary_provider(self, config: ProviderConfig) -> Provider | None:
        return summary_provider(self.settings, config, self._provider_factory)

    def _close_later(self, provider: Provider) -> None:
        """Release a replaced provider's connections if an event loop runs (else GC does)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        task = loop.create_task(provider.aclose())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    # --- the provider's SDK ------------------------------------------------------------------

    def import_sdk(self) -> None:
        """Import the provider's SDK now, in this thread (the TUI does it off the UI thread)."""
        from app.providers.sdk import import_sdk

        import_sdk(self._provider_config.provider)

    def preload_sdk(self) -> None:
        """Start importing the provider's SDK in a background thread (line mode, while the
        user types); a failure is reported by the first request."""
        from app.providers.sdk import preload_sdk

        preload_sdk(self._provider_config.provider)

    def close(self) -> str | None:
        """Close the session file (the session stays resumable); returns what could not be
        saved, in one line (None when everything is on disk)."""
        return self._agent.session.close()


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


def build_runtime(
    options: RunOptions,
    env: Mapping[str, str] | None = None,
    *,
    provider_factory: ProviderFactory = create_provider,
    model_lister: ModelLister = list_models,
) -> Runtime:
    """Load settings, resolve the provider and open (or resume) a session.

    Without a model name for a server that has no default model, the server is asked
    (``model_lister``): its only model is used, several are listed in the error.
    Raises ``settings.errors.SettingsError`` for a bad flag value (exit 2) and
    :class:`StartupError` for anything else that stops a start (exit 1).
    """
    env = dict(os.environ if env is None else env)
    loaded = load_settings(options.workspace, env=env, cli=cli_overrides(options))
    settings = loaded.settings
    notes: list[str] = []
    if options.demo:
        config = demo_config(options.model)
    else:
        config = _provider_config(settings, env, model_lister, notes)
    store = SessionStore(sessions_dir(), options.workspace)
    session, resumed = _open_session(store, options, config)
    clean_stale(pending_writes_dir())  # temporary files of writes a killed lull left behind
    registry = default_registry()
    context = tool_context(settings, options.workspace, loaded)
    runner = ToolRunner(registry, context, _mode(settings))
    agent = Agent(
        session,
        provider_factory(config),
        runner,
        agent_config(settings, config, registry, session_environment(session, options.workspace)),
        summary_provider=summary_provider(settings, config, provider_factory),
    )
    agent.request_hooks.append(CacheBreakDetector(lambda: session.edits))
    return Runtime(
        agent,
        loaded,
        config,
        store,
        resumed=resumed,
        forked=resumed and options.fork_session,
        provider_factory=provider_factory,
        start_notes=tuple(notes),
    )


def _provider_config(
    settings: Settings, env: Mapping[str, str], lister: ModelLister, notes: list[str]
) -> ProviderConfig:
    """The endpoint from settings and env; a server's only model when none is named (said
    in ``notes``)."""

    def resolve(model: str | None) -> ProviderConfig:
        config = resolve_provider_config(
            provider=settings.model.provider,
            model=model,
            base_url=settings.model.base_url,
            vendor=settings.model.vendor,
            env=env,
        )
        return dataclasses.replace(config, timeout_seconds=settings.model.timeout_seconds)

    try:
        try:
            return resolve(settings.model.name)
        except NoModelName as missing:
            model = model_from_server(missing, lister)
            notes.append(
                f"using model {model}, the only one the server at {missing.base_url} serves "
                "(-m NAME or model.name chooses another)"
            )
            return resolve(model)
    except ConfigError as error:
        raise StartupError(str(error), needs_setup=True) from error


def hooks_for_session(session: Session, hooks: list[RequestHook]) -> list[RequestHook]:
    """The request hooks for another session: a cache-break detector starts afresh on it."""
    return [
        CacheBreakDetector(lambda: session.edits) if isinstance(h, CacheBreakDetector) else h
        for h in hooks
    ]


def summary_provider(
    settings: Settings, config: ProviderConfig, factory: ProviderFactory = create_provider
) -> Provider | None:
    """A separate provider for summaries when ``context.compression.model`` names another model."""
    model = settings.context.compression.model
    if not model or model == config.model:
        return None
    return factory(dataclasses.replace(config, model=model))


def locked_message(error: SessionLocked) -> str:
    """What to say when a session is open in another process: who has it, and the fork."""
    return (
        f"{error}; wait for it to finish, or continue in a copy: "
        f"lull --resume {error.session_id} --fork-session"
    )


def _open_session(
    store: SessionStore, options: RunOptions, config: ProviderConfig
) -> tuple[Session, bool]:
    try:
        if options.resume or options.continue_last:
            path = store.find(options.resume) if options.resume else store.latest()
            if options.fork_session:
                path = store.fork(path)
            return Session.resume(store, path), True
        return Session.create(
            store, provider=config.provider, model=config.model, clock=time.time
        ), False
    except SessionLocked as error:
        raise StartupError(locked_message(error)) from error
    except (SessionNotFound, SessionStorageError) as error:
        raise StartupError(str(error)) from error
    except OSError as error:
        raise StartupError(f"cannot read the session: {error}") from error


def _mode(settings: Settings) -> ApprovalMode:
    return settings.tools.approval_mode


def tool_context(
    settings: Settings, workspace: Path, loaded: LoadedSettings | None = None
) -> ToolContext:
    """Where tools run and what they may touch, from settings (an unusable
    ``tools.allowedPaths`` entry is left out, with a warning in ``loaded``)."""
    allowed = allowed_paths(settings, loaded)
    return ToolContext(
        workspace=workspace.resolve(),
        output_dir=tool_output_dir(),
        allowed_paths=allowed,
        max_output_chars=settings.tools.max_output_chars,
        shell_timeout_seconds=settings.tools.shell_timeout_seconds,
        allow_private_network=settings.tools.allow_private_network,
        env_passthrough=settings.tools.env_passthrough,
        pending_writes_dir=pending_writes_dir(),
    )


def allowed_paths(settings: Settings, loaded: LoadedSettings | None = None) -> tuple[Path, ...]:
    """``tools.allowedPaths`` resolved; an entry no file name can hold (a lone surrogate
    escaped in JSON) is left out and said in ``loaded``'s diagnostics."""
    paths: list[Path] = []
    for entry in settings.tools.allowed_paths:
        try:
            paths.append(Path(entry).expanduser().resolve())
        except (OSError, ValueError) as error:  # UnicodeEncodeError is a ValueError
            if loaded is not None:
                source = loaded.sources.get("tools.allowedPaths", "settings")
                message = (
                    f"{source}: tools.allowedPaths: {entry!r} is left out: it is no usable "
                    f"path ({error})"
                )
                loaded.report("warning", message, source)
    return tuple(paths)


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
    max_output = settings.model.max_output_tokens or defaults.MAX_OUTPUT_TOKENS
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
