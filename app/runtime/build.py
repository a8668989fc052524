"""Building a :class:`Runtime` from the run options: settings, provider, session, tools."""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from lull.catalog.local_servers import list_models
from lull.catalog.vision import accepts_images
from lull.context.cachebreak import CacheBreakDetector
from lull.engine.calls.runner import ToolRunner
from lull.engine.fitting.recall import RecallTool
from lull.engine.loop.agent import Agent
from lull.engine.sessions.load import SessionNotFound
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStorageError, SessionStore
from lull.engine.sessions.writer import SessionLocked
from lull.engine.subagents.task import SubagentSetup, TaskTool
from lull.model.approvals import ApprovalMode
from lull.model.permissions import RuleScope
from lull.model.tool_search import TOOL_SEARCH_TOOL
from lull.providers.config import (
    ConfigError,
    ModelLister,
    NoModelName,
    ProviderConfig,
    create_provider,
    demo_config,
    model_from_server,
    resolve_provider_config,
)
from lull.providers.sdk import without_collections
from lull.runtime.options import (
    RunOptions,
    StartupError,
    cli_overrides,
    locked_message,
    system_prompt,
)
from lull.runtime.runtime import Runtime
from lull.runtime.sandbox import confine_runner, trusted_tool_context
from lull.runtime.wiring import (
    ProviderFactory,
    agent_config,
    checkpoint_store,
    explicit_idle_kinds,
    hook_runner,
    mcp_manager,
    offer_tool_search,
    rule_book,
    session_environment,
    subagent_profiles,
    subagent_providers,
    summary_provider,
    tool_registry,
    web_search_backend,
)
from lull.settings.environment import variables_in_force, waiting_for_trust
from lull.settings.loader import LoadedSettings, load_settings
from lull.settings.model import Settings
from lull.settings.paths import pending_writes_dir, sessions_dir, skill_roots
from lull.settings.workspaces import TrustCheck, is_trusted
from lull.tools.files.pending_writes import clean_stale
from lull.tools.permissions.rules import RuleBook
from lull.tools.registry import ToolRegistry
from lull.tools.skills.library import Skill, find_skills
from lull.tools.skills.tool import SkillTool


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
    Raises ``lull.settings.errors.SettingsError`` for a bad flag value (exit 2) and
    :class:`StartupError` for anything else that stops a start (exit 1).
    """
    loaded, env = _settings_and_environment(options, env)
    settings = loaded.settings
    notes: list[str] = []
    if options.demo:
        config = demo_config(options.model)
    else:
        config = _provider_config(settings, env, model_lister, notes)
    store = SessionStore(sessions_dir(), options.workspace)
    session, resumed = _open_session(store, options, config)
    clean_stale(pending_writes_dir())  # temporary files of writes a killed lull left behind
    search = web_search_backend(settings, config, env, notes)
    registry = tool_registry(settings, loaded, search)
    trusted = TrustCheck(options.workspace)
    notes.extend(_env_notes(settings, trusted()))
    context = trusted_tool_context(settings, options.workspace, loaded, trusted(), notes, registry)
    runner = ToolRunner(registry, context, _mode(settings))
    runner.rules = rule_book(settings, options.workspace, trusted)
    runner.hooks = hook_runner(settings, context.workspace, trusted, notes)
    sandbox = confine_runner(runner, settings, options.workspace)
    runner.checkpoints = checkpoint_store(store)
    if resumed and options.fork_session:
        runner.checkpoints.fork(session.record.forked_from, session.id)
    runner.images_allowed = accepts_images(config.model)
    servers = mcp_manager(settings, registry, options, config.provider, env, sandbox)
    if servers is not None:
        runner.sources.append(servers)
    environment = session_environment(session, options.workspace)
    extra = servers.compactable_patterns() | {TOOL_SEARCH_TOOL} if servers else frozenset()
    configured = agent_config(
        settings, config, registry, environment, extra, explicit_idle_kinds(loaded)
    )
    provider = provider_factory(config)
    runtime: Runtime | None = None

    def current() -> Agent:
        return runtime.agent if runtime is not None else agent

    providers_for = subagent_providers(config, provider_factory, current, env)
    profiles = subagent_profiles(options.workspace, notes)
    setup = SubagentSetup(store, providers_for, configured)
    registry.add(TaskTool(setup, lambda: current().tools, lambda: current().session, profiles))
    registry.add(RecallTool(lambda: current().session))
    _offer_skills(registry, options.workspace, notes, lambda: current().tools.rules)
    if servers is not None:  # after every built-in: it joins the list with the first deferred
        offer_tool_search(registry, settings, config)
    agent = Agent(
        session,
        provider,
        runner,
        dataclasses.replace(configured, system=system_prompt(configured.system, options)),
        summary_provider=summary_provider(settings, config, provider_factory),
    )
    registry.deferred.restore(session.loaded_tools)
    registry.deferred.on_load = lambda names: current().session.record_loaded_tools(names)

    def added() -> Mapping[str, str]:
        """Why each tool joined the list after start-up (a server came up, a tool loaded)."""
        late = servers.added_tools if servers is not None else {}
        return {**late, **registry.deferred.causes}

    agent.request_hooks.append(CacheBreakDetector(lambda: session.edits, added))
    runtime = Runtime(
        agent,
        loaded,
        config,
        store,
        resumed=resumed,
        forked=resumed and options.fork_session,
        provider_factory=provider_factory,
        start_notes=tuple(notes),
        mcp=servers,
        trust=trusted,
    )
    return runtime


def _settings_and_environment(
    options: RunOptions, env: Mapping[str, str] | None
) -> tuple[LoadedSettings, dict[str, str]]:
    """The settings, and the environment with the variables of the ``env`` setting added
    (``os.environ`` too, so every process lull starts has them; a project's only in a
    trusted workspace)."""
    environment = dict(os.environ if env is None else env)
    loaded = load_settings(options.workspace, env=environment, cli=cli_overrides(options))
    variables = variables_in_force(loaded.settings.env, is_trusted(options.workspace))
    environment |= variables
    os.environ.update(variables)
    return loaded, environment


def _env_notes(settings: Settings, trusted: bool) -> list[str]:
    """A note per project file whose ``env`` waits for ``/trust``."""
    if trusted:
        return []
    return [
        f"{source}: env ({', '.join(names)}) is not applied: a project's variables decide what "
        "commands run, so they wait until you trust this workspace: /trust (commands, hooks "
        "and MCP servers started after it get them; the provider from the next start)"
        for source, names in waiting_for_trust(settings.env).items()
    ]


def _offer_skills(
    registry: ToolRegistry, workspace: Path, notes: list[str], rules: Callable[[], RuleBook]
) -> None:
    """The ``skill`` tool, when the user's or the project's skill folders hold any skill (a
    broken ``SKILL.md`` is a note); a loaded skill's ``allowed-tools`` become allow rules of
    the session (``rules``: the rule book in force), a project's only once trusted."""

    def loaded(skill: Skill) -> None:
        source = f"skill {skill.name} ({skill.instructions})"
        scope: RuleScope = "project" if skill.project else "session"
        rules().allow_for_session(skill.allowed_tools, source, scope)

    library = find_skills(skill_roots(workspace))
    notes.extend(library.notes)
    if library.skills:
        registry.add(SkillTool(library.skills, loaded))


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


def _open_session(
    store: SessionStore, options: RunOptions, config: ProviderConfig
) -> tuple[Session, bool]:
    try:
        if options.resume or options.continue_last:
            path = store.find(options.resume) if options.resume else store.latest()
            if options.fork_session:
                path = store.fork(path)
            with without_collections():  # a long history: ~10 objects a message, kept
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
