"""Settings turned into the engine's parts: tool context, agent configuration, the summary
provider, request hooks and the environment block of a session."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from lull.catalog.aliases import resolve_alias
from lull.catalog.prompt import STATIC_SYSTEM_PROMPT, environment_prompt
from lull.catalog.server_tools import server_web_search
from lull.catalog.windows import context_window_for
from lull.context.cachebreak import CacheBreakDetector
from lull.context.compress_plan import CompressionPolicy
from lull.context.estimate import estimate_spec_tokens
from lull.context.idle import DEFAULT_COMPACTABLE, IdleKind, IdlePolicy
from lull.context.masking import MaskingPolicy
from lull.engine.checkpoints.files import CheckpointStore, prune
from lull.engine.guardrails.policy import GuardrailPolicy
from lull.engine.hooks.runner import HookRunner
from lull.engine.loop.agent import Agent, RequestHook
from lull.engine.loop.config import AgentConfig
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore, workspace_key
from lull.engine.subagents.task import AgentProfile
from lull.model import defaults
from lull.model.permissions import SaveScope
from lull.model.provider import Provider, ThinkingConfig
from lull.model.search import SearchBackend
from lull.model.tool_search import TOOL_SEARCH_TOOL
from lull.providers.config import (
    ProviderConfig,
    create_provider,
)
from lull.settings.loader import LoadedSettings
from lull.settings.model import Settings
from lull.settings.paths import checkpoints_dir, pending_writes_dir, tool_output_dir
from lull.tools.base import ToolContext
from lull.tools.builtin.tool_search import ToolSearchTool
from lull.tools.builtin.web_search import WebSearchTool
from lull.tools.confinement import CommandSandbox
from lull.tools.deferral import DeferralPolicy
from lull.tools.permissions.rules import RuleBook, RuleNotSaved
from lull.tools.registry import ToolRegistry, backoff_delays, default_registry

if TYPE_CHECKING:
    from lull.mcp.manager import McpManager
    from lull.runtime.options import RunOptions

# Within the longest cache lifetime (1 h) a resume reuses the saved environment block, so the
# provider's cached prefix still matches even if the date or git status changed meanwhile.
ENVIRONMENT_REUSE_SECONDS = 3600.0

ProviderFactory = Callable[[ProviderConfig], Provider]


def hooks_for_session(session: Session, hooks: list[RequestHook]) -> list[RequestHook]:
    """The request hooks for another session: a cache-break detector starts afresh on it."""
    return [
        CacheBreakDetector(lambda: session.edits, h.added_tools)
        if isinstance(h, CacheBreakDetector)
        else h
        for h in hooks
    ]


def mcp_manager(
    settings: Settings,
    registry: ToolRegistry,
    options: RunOptions,
    provider: str,
    env: Mapping[str, str] | None = None,
    sandbox: CommandSandbox | None = None,
) -> McpManager | None:
    """The MCP servers of ``mcpServers`` (user, project and ``.mcp.json``), None when there
    are none: nothing of the MCP client is imported then. A project's servers start only in a
    trusted workspace or with ``--allow-project-mcp``, inside ``sandbox`` when
    ``sandbox.mcpServers`` is on. A front end's servers (``options.client_mcp_servers``) join
    them, or are the only ones with ``--strict-mcp-config``."""
    own = () if options.strict_mcp_config else settings.mcp_servers
    servers = (*own, *options.client_mcp_servers)
    if not servers:
        return None
    from lull.mcp.cache import ListingCache
    from lull.mcp.manager import McpManager
    from lull.model.mcp import McpTimeouts
    from lull.settings.paths import mcp_listings_dir
    from lull.settings.workspaces import is_trusted

    workspace = options.workspace.resolve()
    return McpManager(
        servers,
        registry,
        workspace,
        provider,
        trusted=lambda: is_trusted(workspace),
        allow_project=options.allow_project_mcp,
        env=env,
        timeouts=McpTimeouts(settings.mcp.start_timeout_seconds, settings.mcp.tool_timeout_seconds),
        sandbox=sandbox if settings.sandbox.mcp_servers else None,
        listings=ListingCache(mcp_listings_dir(), workspace),
    )


def deferral_policy(settings: Settings, config: ProviderConfig) -> DeferralPolicy:
    """When MCP tools are deferred (``tools.toolSearch``): for ``auto``, once their schemas
    would take more than its share of the model's context window (the window at start-up: a
    later ``/model`` does not move tools that are offered already)."""
    chosen = settings.tools.tool_search
    window = context_window_for(config.model, settings.model.context_window)
    threshold = window * chosen.percent // 100
    return DeferralPolicy(chosen.mode, threshold, estimate_spec_tokens)


def offer_tool_search(registry: ToolRegistry, settings: Settings, config: ProviderConfig) -> None:
    """Let the MCP servers' tools be deferred as ``tools.toolSearch`` says, with the
    ``tool_search`` tool that loads them (offered only once a tool is deferred); with
    ``tool_search`` in ``tools.exclude`` nothing is deferred."""
    policy = deferral_policy(settings, config)
    if TOOL_SEARCH_TOOL in settings.tools.exclude:  # no way to load them: defer nothing
        policy = dataclasses.replace(policy, mode="off")
    registry.deferred.policy = policy
    if policy.mode != "off":
        registry.add(ToolSearchTool(registry.deferred))


def web_search_backend(
    settings: Settings, config: ProviderConfig, env: Mapping[str, str], notes: list[str]
) -> SearchBackend | None:
    """Who serves ``web_search`` (None: the tool is not offered): ``tools.webSearch``, or by
    default Anthropic's server-side search on Claude models. A configured API whose key
    variable is not set is said in ``notes``."""
    chosen = settings.tools.web_search
    if chosen is None or chosen.provider == "anthropic":
        if server_web_search(config.provider, config.model):
            from lull.providers.anthropic_search import AnthropicServerSearch

            return AnthropicServerSearch(config)
        if chosen is not None:
            notes.append(
                f"tools.webSearch: anthropic needs a Claude model on the Anthropic API (not "
                f"{config.provider} {config.model}); web_search is not offered"
            )
        return None
    if chosen.provider == "off":
        return None
    key_env = chosen.key_env()
    key = env.get(key_env) if key_env else None
    if key_env and not key and chosen.provider != "searxng":
        notes.append(
            f"tools.webSearch: {key_env} is not set, so web_search ({chosen.provider}) is not "
            "offered; set it, or name the variable with apiKeyEnv"
        )
        return None
    from lull.tools.net.search_backends import HttpSearchBackend

    return HttpSearchBackend(chosen.provider, api_key=key, key_name=key_env, url=chosen.url)


def subagent_profiles(workspace: Path, notes: list[str]) -> list[AgentProfile]:
    """The task tool's kinds of sub-agent: the built-in one, then the user's and the
    project's ``agents/*.md`` (a skipped file is said in ``notes``)."""
    from lull.engine.subagents.profiles import load_profiles
    from lull.settings.paths import claude_agents_dirs, project_agents_dir, user_agents_dir
    from lull.settings.workspaces import is_trusted

    loaded = load_profiles(
        user_agents_dir(),
        project_agents_dir(workspace),
        project_trusted=is_trusted(workspace),
        claude_dirs=claude_agents_dirs(workspace),
    )
    notes.extend(loaded.notes)
    return loaded.profiles


def subagent_providers(
    config: ProviderConfig,
    factory: ProviderFactory,
    agent: Callable[[], Agent],
    env: Mapping[str, str] | None = None,
) -> Callable[[str | None], Provider]:
    """How a sub-agent gets its provider: the current agent's, or one for the model its
    profile names (made once per model; on the Anthropic wire a Claude Code alias such as
    ``haiku`` is the model it stands for, ``inherit`` the current one)."""
    made: dict[str, Provider] = {}

    def provider_for(model: str | None) -> Provider:
        current = agent().provider
        if model and config.provider == "anthropic":
            model = resolve_alias(model, env)
        if not model or model == current.model:
            return current
        if model not in made:
            made[model] = factory(dataclasses.replace(config, model=model))
        return made[model]

    return provider_for


def rule_book(settings: Settings, workspace: Path, trusted: Callable[[], bool]) -> RuleBook:
    """The saved permission rules in force (a project's allow rules wait for ``trusted``),
    saving "allow always" answers to the user's files."""
    from lull.settings.rule_files import save_rule
    from lull.settings.writer import WriteProblem

    resolved = workspace.resolve()

    def save(text: str, scope: SaveScope) -> str:
        try:
            return save_rule(text, resolved if scope == "workspace" else None)
        except WriteProblem as problem:
            raise RuleNotSaved(str(problem)) from None

    return RuleBook(settings.permissions.rules(), trusted=trusted, saver=save)


def checkpoint_store(store: SessionStore) -> CheckpointStore:
    """The workspace's file checkpoints (under the data directory); those of sessions that
    no longer exist are removed."""
    root = checkpoints_dir() / workspace_key(store.workspace)
    if root.is_dir():  # nothing to list on a start without checkpoints
        prune(root, [path.stem for path in store.list_sessions()])
    return CheckpointStore(root)


def hook_runner(
    settings: Settings, workspace: Path, trusted: Callable[[], bool], notes: list[str]
) -> HookRunner:
    """The ``hooks`` of the settings files; a project's run only in a trusted workspace (said
    in ``notes`` when some wait)."""
    runner = HookRunner(
        settings.hooks,
        workspace=workspace,
        trusted=trusted,
        env_passthrough=settings.tools.env_passthrough,
    )
    waiting = runner.waiting_for_trust()
    if waiting:
        shown = ", ".join(sorted({f"{hook.event}: {hook.command}" for hook in waiting}))
        notes.append(
            f"this workspace's project settings define hooks ({shown}); they run commands from "
            "the repository, so they run only once you trust it: /trust"
        )
    return runner


def summary_provider(
    settings: Settings, config: ProviderConfig, factory: ProviderFactory = create_provider
) -> Provider | None:
    """A separate provider for summaries when ``context.compression.model`` names another model."""
    model = settings.context.compression.model
    if not model or model == config.model:
        return None
    return factory(dataclasses.replace(config, model=model))


def tool_context(
    settings: Settings, workspace: Path, loaded: LoadedSettings | None = None, trusted: bool = False
) -> ToolContext:
    """Where tools run and what they may touch, from settings (an unusable
    ``tools.allowedPaths`` entry is left out, with a warning in ``loaded``; a project file's
    ``permissions.additionalDirectories`` count only when ``trusted``)."""
    allowed = allowed_paths(settings, loaded, workspace, trusted)
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


def allowed_paths(
    settings: Settings,
    loaded: LoadedSettings | None = None,
    workspace: Path | None = None,
    trusted: bool = False,
) -> tuple[Path, ...]:
    """``tools.allowedPaths`` and the ``permissions.additionalDirectories`` in force (the
    user's, and a project file's when ``trusted``; relative to ``workspace``), resolved; an
    entry no file name can hold (a lone surrogate escaped in JSON) is left out and said in
    ``loaded``'s diagnostics."""
    entries = [("tools.allowedPaths", entry) for entry in settings.tools.allowed_paths]
    entries += [
        ("permissions.additionalDirectories", added.path)
        for added in settings.permissions.additional_directories
        if trusted or not added.project
    ]
    paths: list[Path] = []
    for key, entry in entries:
        try:
            path = Path(entry).expanduser()
            if key != "tools.allowedPaths" and workspace is not None:
                path = workspace / path
            paths.append(path.resolve())
        except (OSError, ValueError) as error:  # UnicodeEncodeError is a ValueError
            if loaded is not None:
                source = loaded.sources.get(key, "settings")
                message = f"{source}: {key}: {entry!r} is left out: it is no usable path ({error})"
                loaded.report("warning", message, source)
    return tuple(paths)


def added_directories(settings: Settings, workspace: Path, trusted: bool) -> tuple[Path, ...]:
    """The ``permissions.additionalDirectories`` in force, resolved (sandboxed commands may
    write them)."""
    bare = dataclasses.replace(
        settings, tools=dataclasses.replace(settings.tools, allowed_paths=())
    )
    return allowed_paths(bare, None, workspace, trusted)


def directories_waiting_for_trust(settings: Settings) -> list[str]:
    """The project files' added directories that apply once the workspace is trusted."""
    return [
        f"{added.path} ({added.source})"
        for added in settings.permissions.additional_directories
        if added.project
    ]


def tool_registry(
    settings: Settings, loaded: LoadedSettings | None = None, search: SearchBackend | None = None
) -> ToolRegistry:
    """The built-in tools (``web_search`` when ``search`` serves it) with the guardrails'
    tool settings (argument repair, retries of transient failures) and ``tools.exclude``
    applied; a name that is no tool is said in ``loaded``'s diagnostics."""
    guards = settings.guardrails
    registry = default_registry()
    if search is not None:
        registry.add(WebSearchTool(search))
    registry.repair = guards.argument_repair
    registry.retry_delays = backoff_delays(guards.tool_retries)
    later = (WebSearchTool.name, TOOL_SEARCH_TOOL)  # tools that may not be offered at all
    unknown = [n for n in registry.exclude(settings.tools.exclude) if n not in later]
    if unknown and loaded is not None:
        source = loaded.sources.get("tools.exclude", "settings")
        names = ", ".join(repr(name) for name in unknown)
        message = (
            f"{source}: tools.exclude: no tool named {names} (the tools: "
            f"{', '.join(registry.names() + sorted(registry.excluded))}); nothing to exclude"
        )
        loaded.report("warning", message, source)
    return registry


def guardrail_policy(settings: Settings) -> GuardrailPolicy:
    """The engine's guardrails from ``guardrails.*``."""
    guards = settings.guardrails
    return GuardrailPolicy(
        rollback=guards.rollback,
        max_consecutive_rollbacks=guards.max_consecutive_rollbacks,
        extra_requests=guards.extra_requests,
        duplicate_calls=guards.duplicate_calls,
        doom_loop=guards.doom_loop,
        doom_loop_repeats=guards.doom_loop_repeats,
        stream_repetition=guards.stream_repetition,
        continuation=guards.continuation,
        max_continuations=guards.max_continuations,
        max_tool_failures=guards.max_tool_failures,
    )


def session_environment(session: Session, workspace: Path, now: float | None = None) -> str:
    """The environment block: the saved one on a quick resume (the cache may still be warm),
    else computed afresh (date, git status) and saved with the session."""
    now = time.time() if now is None else now
    last = session.last_response_at
    saved = session.record.environment
    if saved and last is not None and now - last < ENVIRONMENT_REUSE_SECONDS:
        return saved
    from lull.settings.workspaces import is_trusted

    resolved = workspace.resolve()
    text = environment_prompt(resolved, trusted=is_trusted(resolved))
    session.use_environment(text)
    return text


IDLE_THRESHOLD_KEYS: dict[IdleKind, str] = {
    "tool_results": "context.clearContextOnIdle.toolResultsThresholdMinutes",
    "thinking": "context.clearContextOnIdle.thinkingThresholdMinutes",
}


def explicit_idle_kinds(loaded: LoadedSettings) -> frozenset[IdleKind]:
    """The idle cleanups whose threshold the user set: applied as given, warm cache or not."""
    return frozenset(kind for kind, key in IDLE_THRESHOLD_KEYS.items() if loaded.set_by_user(key))


def agent_config(
    settings: Settings,
    config: ProviderConfig,
    registry: ToolRegistry,
    environment: str,
    extra_compactable: frozenset[str] = frozenset(),
    explicit_idle: frozenset[IdleKind] = frozenset(),
) -> AgentConfig:
    """The agent's per-session configuration (``extra_compactable``: names or ``prefix*``
    patterns of tools added later whose results idle cleanup may clear, e.g. an MCP server's
    with ``compactable``; ``explicit_idle``: the idle cleanups whose threshold the user set)."""
    idle = settings.context.clear_context_on_idle
    compactable = (
        frozenset(name for name in registry.names() if registry.is_compactable(name))
        | DEFAULT_COMPACTABLE
        | frozenset(idle.compactable_tools)
        | extra_compactable
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
            explicit=explicit_idle,
            keep_working_set=idle.keep_working_set,
        ),
        masking=MaskingPolicy(
            enabled=settings.context.masking.enabled,
            keep=settings.context.masking.keep,
            keep_working_set=idle.keep_working_set,
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
            watch_threshold=compression.watch_threshold,
            light_threshold=compression.light_threshold,
            emergency_threshold=compression.emergency_threshold,
            cold_threshold=compression.cold_threshold,
        ),
        tool_output_max_tokens=settings.context.tool_output.max_tokens,
        media_keep=settings.context.media.keep,
        guardrails=guardrail_policy(settings),
        repeat_pointers=settings.context.repeat_pointers,
        prompt_offload_threshold=settings.context.prompt_offload_threshold,
    )


def thinking_config(value: bool | int, max_output: int) -> ThinkingConfig:
    """``model.thinking`` (false / true / a budget) as a ThinkingConfig."""
    if value is False:
        return ThinkingConfig(False)
    if value is True:
        return ThinkingConfig(True)
    return ThinkingConfig(True, min(int(value), max(1024, max_output - 1)))
