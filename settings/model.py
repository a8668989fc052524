"""The typed settings model: frozen dataclasses with the built-in defaults.

Every field maps to a camelCase JSON key of the same name (``base_url`` ->
``model.baseUrl``). Validation lives in :mod:`lull.settings.fields`; these classes
only hold already-validated values.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lull.model import defaults
from lull.model.approvals import ApprovalMode
from lull.model.hooks import HookCommand
from lull.model.mcp import McpServerConfig
from lull.model.permissions import PermissionRule
from lull.model.provider import CacheLifetime, CacheTtl, ProviderName, Vendor
from lull.model.search import WebSearchConfig
from lull.model.tool_search import DEFAULT_TOOL_SEARCH, ToolSearchSetting
from lull.settings.directories import AddedDirectory
from lull.settings.environment import EnvVariable

__all__ = ["ApprovalMode", "CacheLifetime", "CacheTtl", "ProviderName", "Settings", "Vendor"]


@dataclass(frozen=True, slots=True)
class ModelSettings:
    """Which model to talk to and how (``model.*``)."""

    provider: ProviderName | None = None
    name: str | None = None
    base_url: str | None = None
    context_window: int | None = None
    max_output_tokens: int | None = None
    thinking: bool | int = False
    vendor: Vendor | None = None
    timeout_seconds: float = defaults.TIMEOUT_SECONDS


@dataclass(frozen=True, slots=True)
class ToolsSettings:
    """How tools run and what they may touch (``tools.*``)."""

    approval_mode: ApprovalMode = defaults.APPROVAL_MODE
    allowed_paths: tuple[str, ...] = ()
    max_output_chars: int = defaults.MAX_OUTPUT_CHARS
    shell_timeout_seconds: int = defaults.SHELL_TIMEOUT_SECONDS
    allow_private_network: bool = defaults.ALLOW_PRIVATE_NETWORK
    env_passthrough: tuple[str, ...] = ()
    web_search: WebSearchConfig | None = None
    exclude: tuple[str, ...] = ()
    tool_search: ToolSearchSetting = DEFAULT_TOOL_SEARCH


@dataclass(frozen=True, slots=True)
class IdleSettings:
    """Idle cleanup thresholds (``context.clearContextOnIdle.*``); < 0 disables one."""

    thinking_threshold_minutes: float = defaults.THINKING_THRESHOLD_MINUTES
    tool_results_threshold_minutes: float = defaults.TOOL_RESULTS_THRESHOLD_MINUTES
    tool_results_num_to_keep: int = defaults.TOOL_RESULTS_NUM_TO_KEEP
    compactable_tools: tuple[str, ...] = ()
    keep_working_set: bool = defaults.KEEP_WORKING_SET


@dataclass(frozen=True, slots=True)
class MaskingSettings:
    """Cache-aware masking of old tool results inside long turns (``context.masking.*``)."""

    enabled: bool = defaults.MASKING
    keep: int = defaults.MASKING_KEEP


@dataclass(frozen=True, slots=True)
class CompressionSettings:
    """The staged thresholds and how LLM summary compression runs (``context.compression.*``)."""

    threshold: float = defaults.COMPRESSION_THRESHOLD
    keep_recent_fraction: float = defaults.KEEP_RECENT_FRACTION
    model: str | None = None
    watch_threshold: float = defaults.WATCH_THRESHOLD
    light_threshold: float = defaults.LIGHT_THRESHOLD
    emergency_threshold: float = defaults.EMERGENCY_THRESHOLD
    cold_threshold: float = defaults.COLD_THRESHOLD


@dataclass(frozen=True, slots=True)
class ToolOutputSettings:
    """How big one tool result may be for the model (``context.toolOutput.*``)."""

    max_tokens: int = defaults.TOOL_OUTPUT_MAX_TOKENS


@dataclass(frozen=True, slots=True)
class CacheSettings:
    """Provider prompt caching (``context.cache.*``)."""

    enabled: bool = defaults.PROMPT_CACHING
    ttl: CacheLifetime = defaults.CACHE_TTL
    prompt_cache_key: bool = defaults.PROMPT_CACHE_KEY


@dataclass(frozen=True, slots=True)
class MediaSettings:
    """The media window (``context.media.*``)."""

    keep: int = defaults.MEDIA_KEEP


@dataclass(frozen=True, slots=True)
class ContextSettings:
    """Everything that shapes what the model sees (``context.*``)."""

    clear_context_on_idle: IdleSettings = field(default_factory=IdleSettings)
    compression: CompressionSettings = field(default_factory=CompressionSettings)
    masking: MaskingSettings = field(default_factory=MaskingSettings)
    tool_output: ToolOutputSettings = field(default_factory=ToolOutputSettings)
    cache: CacheSettings = field(default_factory=CacheSettings)
    media: MediaSettings = field(default_factory=MediaSettings)
    repeat_pointers: bool = defaults.REPEAT_POINTERS
    prompt_offload_threshold: float = defaults.PROMPT_OFFLOAD_THRESHOLD


@dataclass(frozen=True, slots=True)
class PermissionsSettings:
    """Saved permission rules (``permissions.allow`` / ``ask`` / ``deny``) and the folders
    added to the workspace (``permissions.additionalDirectories``), each with the file it came
    from; every file's entries add up."""

    allow: tuple[PermissionRule, ...] = ()
    ask: tuple[PermissionRule, ...] = ()
    deny: tuple[PermissionRule, ...] = ()
    additional_directories: tuple[AddedDirectory, ...] = ()

    def rules(self) -> tuple[PermissionRule, ...]:
        """Every rule, deny first (the order of precedence)."""
        return self.deny + self.ask + self.allow


@dataclass(frozen=True, slots=True)
class GuardrailSettings:
    """Guards on model behaviour (``guardrails.*``): each on by default, with its limits."""

    rollback: bool = defaults.ROLLBACK
    max_consecutive_rollbacks: int = defaults.MAX_CONSECUTIVE_ROLLBACKS
    extra_requests: int = defaults.EXTRA_REQUESTS
    duplicate_calls: bool = defaults.DUPLICATE_CALLS
    doom_loop: bool = defaults.DOOM_LOOP
    doom_loop_repeats: int = defaults.DOOM_LOOP_REPEATS
    stream_repetition: bool = defaults.STREAM_REPETITION
    argument_repair: bool = defaults.ARGUMENT_REPAIR
    continuation: bool = defaults.CONTINUATION
    max_continuations: int = defaults.MAX_CONTINUATIONS
    max_tool_failures: int = defaults.MAX_TOOL_FAILURES
    tool_retries: int = defaults.TOOL_RETRIES
    max_attempts: int = defaults.MAX_ATTEMPTS


@dataclass(frozen=True, slots=True)
class McpSettings:
    """What every MCP server gets unless its entry says otherwise (``mcp.*``)."""

    start_timeout_seconds: float = defaults.MCP_TIMEOUT_SECONDS
    tool_timeout_seconds: float = defaults.MCP_TOOL_TIMEOUT_SECONDS


@dataclass(frozen=True, slots=True)
class SandboxNetworkSettings:
    """Where sandboxed commands may connect (``sandbox.network.*``)."""

    allowed_domains: tuple[str, ...] = ()
    allow_unix_sockets: tuple[str, ...] = ()
    allow_local_binding: bool = False


@dataclass(frozen=True, slots=True)
class SandboxFilesystemSettings:
    """What sandboxed commands may read and write beyond the defaults
    (``sandbox.filesystem.*``)."""

    allow_write: tuple[str, ...] = ()
    deny_write: tuple[str, ...] = ()
    deny_read: tuple[str, ...] = ()
    allow_read: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SandboxSettings:
    """The OS sandbox commands run in (``sandbox.*``, Claude Code's shape)."""

    enabled: bool = False
    auto_allow_bash_if_sandboxed: bool = True
    excluded_commands: tuple[str, ...] = ()
    allow_unsandboxed_commands: bool = True
    fail_if_unavailable: bool = False
    hooks: bool = False
    mcp_servers: bool = False
    network: SandboxNetworkSettings = field(default_factory=SandboxNetworkSettings)
    filesystem: SandboxFilesystemSettings = field(default_factory=SandboxFilesystemSettings)


@dataclass(frozen=True, slots=True)
class Settings:
    """All of lull's settings after merging defaults, files, env and CLI flags."""

    model: ModelSettings = field(default_factory=ModelSettings)
    tools: ToolsSettings = field(default_factory=ToolsSettings)
    context: ContextSettings = field(default_factory=ContextSettings)
    guardrails: GuardrailSettings = field(default_factory=GuardrailSettings)
    max_turns: int = defaults.MAX_TURNS
    pricing: tuple[str, ...] = ()
    mcp_servers: tuple[McpServerConfig, ...] = ()
    mcp: McpSettings = field(default_factory=McpSettings)
    permissions: PermissionsSettings = field(default_factory=PermissionsSettings)
    hooks: tuple[HookCommand, ...] = ()
    env: tuple[EnvVariable, ...] = ()
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
