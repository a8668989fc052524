"""The catalogue of settings keys: JSON path, check, description, env var and flag.

This table is the single source for what the loader accepts, what the messages
say, what ``schema.json`` contains (see :mod:`lull.settings.schema`) and how a dotted
key maps onto the :class:`lull.settings.model.Settings` dataclasses.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Literal

from lull.model import defaults
from lull.model.approvals import ALL_APPROVAL_MODES
from lull.model.provider import CACHE_LIFETIMES, PROVIDERS, VENDORS
from lull.settings.checks import (
    AdditiveList,
    Boolean,
    Check,
    Choice,
    Integer,
    Number,
    PathList,
    PriceList,
    Seconds,
    Text,
    TextList,
    Thinking,
)
from lull.settings.directories import DirectoryList
from lull.settings.environment import EnvVariables
from lull.settings.hooks import Hooks
from lull.settings.mcp_servers import McpServers
from lull.settings.model import Settings
from lull.settings.permission_rules import RuleList
from lull.settings.tool_search import ToolSearch
from lull.settings.web_search import WebSearch

_MINUTES = Number()
_CAMEL_HUMP = re.compile(r"(?<!^)(?=[A-Z])")

ProjectRule = Literal["yes", "narrow", "trusted", "adds", "no"]
"""What a project file (``.lull/settings.json``, untrusted) may do with a key: ``yes`` set it
freely, ``narrow`` only make it stricter than the user's value, ``trusted`` add entries that
apply only once the user trusts the workspace (``/trust``), ``adds`` add entries to the
user's, which the engine applies as :attr:`Field.project_note` says (a project's deny rules
at once, its allow rules and hooks only once trusted), ``no`` nothing (user only)."""
PROJECT_RULES: tuple[ProjectRule, ...] = ("yes", "narrow", "trusted", "adds", "no")


@dataclass(frozen=True)
class Field:
    """One leaf setting: its dotted camelCase key and how it is checked and set."""

    key: str
    check: Check
    description: str
    env: str | None = None
    flag: str | None = None
    project: ProjectRule = "no"
    """What a project file may do with this key (new keys are user-only until decided)."""
    narrowest_first: tuple[str, ...] = ()
    """For a narrow-only choice: every value, from the narrowest to the widest."""
    null_limit: int | None = None
    """For a narrow-only number that may be null: the limit null stands for (None: none)."""
    project_note: str = ""
    """For an ``adds`` key: what of a project's entries applies when (docs, schema)."""

    @property
    def attrs(self) -> tuple[str, ...]:
        """The attribute path in :class:`Settings` ("model.baseUrl" -> model, base_url)."""
        return tuple(_CAMEL_HUMP.sub("_", part).lower() for part in self.key.split("."))


GROUPS: dict[str, str] = {
    "model": "Which model to talk to and how.",
    "tools": "How tools run and what they may touch.",
    "context": "Everything that shapes what the model sees.",
    "context.clearContextOnIdle": (
        "Idle cleanup: after a gap since the last model response, clear stale thinking and "
        "old tool results before the next request (the prompt cache is cold by then anyway)."
    ),
    "context.compression": (
        "Staged thresholds as fractions of the context window: watch (warning colour), light "
        "step (pointers, no model call), full compression (an LLM summary), emergency clear."
    ),
    "context.masking": (
        "Cache-aware masking inside long turns: older tool results become recall pointers in "
        "batches, only when the saving over the turn's remaining requests beats the cache write."
    ),
    "context.toolOutput": "Limits on one tool result as the model sees it.",
    "context.cache": "Provider prompt caching.",
    "context.media": "Images in the context.",
    "guardrails": (
        "Guards on model behaviour: roll back bad replies, answer duplicate calls with a "
        "pointer, stop loops and repeating answers, repair arguments, continue cut answers, "
        "retry transient tool failures and, with -p, retry the task. A project may make them "
        "stricter, never switch one off."
    ),
    "mcp": (
        "What every MCP server gets unless its mcpServers entry says otherwise "
        "(timeoutSeconds, toolTimeoutSeconds)."
    ),
    "sandbox": (
        "An OS sandbox for every command lull runs for the model (bubblewrap on Linux, "
        "Seatbelt on macOS): the file system read-only but for the workspace and a temp "
        "directory, credentials hidden, the network only through a proxy that admits "
        "network.allowedDomains. A project may turn it on or narrow it, never off or wider."
    ),
    "sandbox.network": "Where sandboxed commands may connect.",
    "sandbox.filesystem": "What sandboxed commands may write or read beyond the defaults.",
    "permissions": (
        "Saved permission rules, TOOL or TOOL(PATTERN) (run_shell_command(npm test*), "
        "read_file(src/**), edit(docs/**), web_fetch(domain:docs.python.org), mcp__github__*; "
        "Claude Code's Bash, Read, Edit, Write, WebFetch names work too). Precedence: deny > "
        "ask > allow > the approval mode. The rules of every settings file add up."
    ),
}
_AT_ONCE = "added to yours; they apply at once"
_ONCE_TRUSTED = "added to yours; they apply once you trust the workspace with /trust"

_IDLE = "context.clearContextOnIdle"
_GUARD = "guardrails"
_ON_ONLY = ("true", "false")  # a guard switch: on is the narrower value
_OFF_ONLY = ("false", "true")  # a widening switch: off is the narrower value
_TABLE = (
    Field("model.provider", Choice(PROVIDERS, nullable=True),
          "API family to use; null picks one from the available API keys.", flag="--provider",
          project="no"),
    Field("model.name", Text(nullable=True), "Model name sent to the provider.",
          env="LULL_MODEL", flag="--model", project="no"),
    Field("model.baseUrl", Text(nullable=True),
          "API base URL (an OpenAI-compatible server, a proxy); null uses the SDK default.",
          flag="--base-url", project="no"),
    Field("model.contextWindow", Integer(1, nullable=True),
          "Context window in tokens; null uses the known size for the model.", project="narrow"),
    Field("model.maxOutputTokens", Integer(1, nullable=True),
          "Maximum tokens per response; null uses the model default.",
          project="narrow", null_limit=defaults.MAX_OUTPUT_TOKENS),
    Field("model.thinking", Thinking(),
          "Extended thinking: false, true (provider default budget) or a budget in tokens.",
          project="yes"),
    Field("model.vendor", Choice(VENDORS, nullable=True),
          "Dialect of an OpenAI-compatible server; null detects it from the base URL.",
          project="no"),
    Field("model.timeoutSeconds", Number(0, exclusive_minimum=True),
          "Seconds the server may stay silent, before the first byte of an answer and between "
          "chunks, before the request fails (connecting may take at most 10 s). Raise it for a "
          "slow local model.",
          env="LULL_TIMEOUT_SECONDS", project="no"),
    Field("tools.approvalMode", Choice(ALL_APPROVAL_MODES),
          "default asks before edits and commands, auto-edit allows edits, yolo allows "
          "everything, plan allows read-only tools only, dont-ask refuses what default asks "
          "about (Claude Code's dontAsk).",
          env="LULL_APPROVAL_MODE", flag="--approval-mode",
          project="narrow",
          narrowest_first=("plan", "dont-ask", "default", "auto-edit", "yolo")),
    Field("tools.allowedPaths", PathList(),
          "Paths outside the workspace that tools may read and write.", project="narrow"),
    Field("tools.maxOutputChars", Integer(1),
          "Tool output longer than this is truncated for the model (full text kept on disk).",
          project="yes"),
    Field("tools.shellTimeoutSeconds", Integer(1),
          "Default timeout of one shell command in seconds (a call may ask for up to 600).",
          project="yes"),
    Field("tools.allowPrivateNetwork", Boolean(),
          "Let web_fetch reach loopback, private-network, link-local and cloud-metadata "
          "addresses without asking.",
          env="LULL_ALLOW_PRIVATE_NETWORK", project="no"),
    Field("tools.envPassthrough", TextList(),
          "Environment variables (names or glob patterns such as NPM_*) that commands run by "
          "tools get although they look like secrets (a name part such as KEY, TOKEN, PAT, "
          "PASSWORD or WEBHOOK, ANTHROPIC_*, a URL with a password, a PEM block).",
          project="narrow"),
    Field("tools.webSearch", WebSearch(),
          "Who serves the web_search tool: null uses Anthropic's server-side search on Claude "
          "models (no tool otherwise); \"brave\", \"tavily\", \"searxng\" or \"exa\" (or "
          "{\"provider\", \"apiKeyEnv\", \"url\"}: the variable holding the key, default "
          "BRAVE_API_KEY / TAVILY_API_KEY / EXA_API_KEY; SearXNG needs its url); \"off\" offers "
          "no web search.", project="no"),
    Field("tools.exclude", AdditiveList(),
          "Tools the model is never offered (e.g. [\"web_fetch\"]); a call to one is rolled "
          "back like a call to an unknown tool.", flag="--exclude-tools", project="narrow"),
    Field("tools.toolSearch", ToolSearch(),
          "Offer MCP tools by name and one line, their schemas loaded on demand by the "
          "tool_search tool (Claude Code's ENABLE_TOOL_SEARCH): true defers every MCP tool, "
          f"false none, \"auto\" a server's tools once all MCP schemas would take more than "
          f"{defaults.TOOL_SEARCH_AUTO_PERCENT}% of the context window (\"auto:N\": N%). "
          "Built-in tools and servers with alwaysLoad are never deferred.",
          env="ENABLE_TOOL_SEARCH", project="yes"),
    Field(f"{_IDLE}.thinkingThresholdMinutes", _MINUTES,
          "Idle minutes after which earlier turns' thinking is cleared; < 0 disables.",
          env="LULL_THINKING_THRESHOLD_MINUTES", project="yes"),
    Field(f"{_IDLE}.toolResultsThresholdMinutes", _MINUTES,
          "Idle minutes after which old tool results are cleared; < 0 disables.",
          env="LULL_TOOL_RESULTS_THRESHOLD_MINUTES", project="yes"),
    Field(f"{_IDLE}.toolResultsNumToKeep", Integer(0),
          "How many of the newest compactable tool results (and inline images) an idle "
          "cleanup keeps; 0 keeps none.",
          env="LULL_TOOL_RESULTS_NUM_TO_KEEP", project="yes"),
    Field(f"{_IDLE}.keepWorkingSet", Boolean(),
          "Besides the newest results, keep those the work still uses: quoted by recent "
          "messages, the latest read of a file being edited, the latest run of a repeated "
          "command (/context says why each was kept).", project="yes"),
    Field(f"{_IDLE}.compactableTools", TextList(),
          "Extra tool names (e.g. MCP tools) whose results idle cleanup may clear.",
          project="yes"),
    Field("context.compression.watchThreshold", Number(0, 1, exclusive_minimum=True),
          "Show the context in a warning colour (status bar, line-mode toolbar) from this "
          "fraction of the context window.", project="yes"),
    Field("context.compression.lightThreshold", Number(0, 1, exclusive_minimum=True),
          "Light step (no model call) once the prompt crosses this fraction of the window: "
          "superseded tool outputs (a file read again, a read made stale by a write, exact "
          "duplicates) become pointers; reversible with /context restore.", project="yes"),
    Field("context.masking.enabled", Boolean(),
          "Inside a long turn, replace older tool results (beyond the newest `keep` and the "
          "working set) with recall pointers, in batches, only when what that saves over the "
          "turn's remaining requests beats the cache write it causes.",
          project="yes"),
    Field("context.masking.keep", Integer(0),
          "How many of the newest tool results masking always leaves in place.",
          project="yes"),
    Field("context.compression.threshold", Number(0, 1, exclusive_minimum=True),
          "Full compression (an LLM summary) when the prompt exceeds this fraction of the "
          "context window.",
          project="yes"),
    Field("context.compression.coldThreshold", Number(0, 1, exclusive_minimum=True),
          "Full compression already from this fraction of the window when the prompt cache "
          "is cold anyway (the user is back after it expired); on a warm cache compression "
          "waits past threshold, until just under emergencyThreshold.", project="yes"),
    Field("context.compression.emergencyThreshold", Number(0, 1, exclusive_minimum=True),
          "Safety net: clear the oldest tool outputs (never errors or notes) when the prompt "
          "still reaches this fraction of the window after compression.", project="yes"),
    Field("context.compression.keepRecentFraction",
          Number(0, 1, exclusive_minimum=True, exclusive_maximum=True),
          "Fraction of the budget kept verbatim as the recent tail when compressing.",
          project="yes"),
    Field("context.compression.model", Text(nullable=True),
          "Model used to write summaries; null uses the session's model.", project="no"),
    Field("context.toolOutput.maxTokens", Integer(1),
          "A tool result larger than this many tokens is truncated for the model; the full "
          "text is saved on disk and the marker says where.", project="yes"),
    Field("context.cache.enabled", Boolean(),
          "Ask the provider to cache the prompt prefix (Anthropic cache_control markers, "
          "OpenAI prompt_cache_key); false sends neither, e.g. to measure what caching saves.",
          env="LULL_PROMPT_CACHING", project="no"),
    Field("context.cache.ttl", Choice(CACHE_LIFETIMES),
          "Anthropic prompt-cache lifetime: 5m or 1h on every marker (1h writes cost 2x "
          "input instead of 1.25x), or auto: the moving tail on 5m and the stable part "
          "(tools, system prompt, history through the latest user message) on 1h when the "
          "session's pauses and the prices make it pay. Idle cleanup waits for the part it "
          "changes to go cold.",
          project="no"),
    Field("context.cache.promptCacheKey", Boolean(),
          "Send the session id as OpenAI's prompt_cache_key (better cache routing).",
          project="no"),
    Field("context.media.keep", Integer(0),
          "The media window: only the newest this many messages with images keep them in "
          "what the model sees; older images become [Old image cleared: <type>, <size>] "
          "(reversible; applied only when the prompt cache is rewritten anyway or has gone "
          "cold).", env="LULL_MEDIA_KEEP", project="yes"),
    Field("context.repeatPointers", Boolean(),
          "A repeated read_file of an unchanged file, or a repeated grep_search, glob or "
          "list_directory with the same output, whose earlier result is still in the context "
          "in full gets a pointer to that result instead of a second copy.", project="yes"),
    Field("context.promptOffloadThreshold", Number(0, 1, exclusive_minimum=True),
          "A prompt (typed, pasted, piped to -p, or a custom command's expansion) larger than "
          "this fraction of the context window is saved to a file that the model reads in "
          "parts with read_file; it is never sent whole.", project="yes"),
    Field(f"{_GUARD}.rollback", Boolean(),
          "Roll back a reply that writes a tool call as text, refuses, says nothing or calls "
          "an unknown tool: it is not kept, not counted against maxTurns, and asked again.",
          project="narrow", narrowest_first=_ON_ONLY),
    Field(f"{_GUARD}.maxConsecutiveRollbacks", Integer(1),
          "Rolled-back replies in a row before the turn ends.", project="narrow"),
    Field(f"{_GUARD}.extraRequests", Integer(0),
          "Model requests one user turn may make beyond maxTurns (rolled-back replies, "
          "retries, continuations); the turn ends when they are used up.", project="narrow"),
    Field(f"{_GUARD}.duplicateCalls", Boolean(),
          "A read-only call identical to one already run in this turn (nothing written or run "
          "since) is not run again: the model gets a pointer to the earlier result.",
          project="narrow", narrowest_first=_ON_ONLY),
    Field(f"{_GUARD}.doomLoop", Boolean(),
          "Stop the loop when the model makes the same call doomLoopRepeats times in a row "
          "(the interactive UIs ask whether to go on; -p fails).",
          project="narrow", narrowest_first=_ON_ONLY),
    Field(f"{_GUARD}.doomLoopRepeats", Integer(2),
          "How many identical calls in a row count as a loop.", project="narrow"),
    Field(f"{_GUARD}.streamRepetition", Boolean(),
          "Cut off an answer that keeps repeating the same text while it streams; it is "
          "rolled back once, then reported.", project="narrow", narrowest_first=_ON_ONLY),
    Field(f"{_GUARD}.argumentRepair", Boolean(),
          "Repair known argument mistakes before a call runs (parameter aliases such as "
          "file_path for path, a JSON object sent as a string, numbers sent as strings).",
          project="narrow", narrowest_first=_ON_ONLY),
    Field(f"{_GUARD}.continuation", Boolean(),
          "Continue an answer cut at the output token limit (prefill, continue_final_message, "
          "or a retry with a 10% larger limit).", project="narrow", narrowest_first=_ON_ONLY),
    Field(f"{_GUARD}.maxContinuations", Integer(1),
          "Continuations of one cut answer at most.", project="narrow"),
    Field(f"{_GUARD}.maxToolFailures", Integer(1),
          "Failed tool calls in a row that stop the loop.", project="narrow"),
    Field(f"{_GUARD}.toolRetries", Integer(0),
          "How often a transient tool failure (a network error, a 5xx, a timeout) is tried "
          "again, after 1 s, 2 s, 4 s, ..., before it becomes an error result.",
          project="narrow"),
    Field(f"{_GUARD}.maxAttempts", Integer(1),
          "-p: attempts at the task; after an attempt that ends without an answer, a fresh "
          "session starts with a summary of what failed.", flag="--max-attempts",
          project="narrow"),
    Field("maxTurns", Integer(1), "Maximum model requests for one user message.",
          flag="--max-turns", project="narrow"),
    Field("pricing", PriceList(),
          "Price overrides for /cost, USD per million tokens: \"MODEL=INPUT/OUTPUT[/CACHE_READ"
          "[/CACHE_WRITE[/CACHE_WRITE_1H]]]\" (MODEL matches names containing it; missing "
          "cache prices default to 0.1x, 1.25x and 2x INPUT).", project="no"),
    Field("mcpServers", McpServers(),
          "MCP servers by name: {\"command\", \"args\", \"env\", \"cwd\"} for a local (stdio) "
          "server, {\"url\", \"headers\"} for streamable HTTP (\"type\": \"sse\" for legacy "
          "SSE); each may set enabled, timeoutSeconds (starting it), toolTimeoutSeconds (each "
          "call), includeTools, excludeTools, "
          "compactable and alwaysLoad (never deferred by tools.toolSearch). Their tools appear "
          "as mcp__<server>__<tool>.", project="trusted"),
    Field("mcp.startTimeoutSeconds", Seconds(),
          "Seconds an MCP server may take to start and list its tools (an entry's "
          "timeoutSeconds wins); the environment variable MCP_TIMEOUT (Claude Code's) gives "
          "milliseconds.", env="MCP_TIMEOUT", project="yes"),
    Field("mcp.toolTimeoutSeconds", Seconds(),
          "Seconds one call of an MCP tool may take before it is cancelled (the server keeps "
          "running; an entry's toolTimeoutSeconds wins); the environment variable "
          "MCP_TOOL_TIMEOUT (Claude Code's) gives milliseconds.",
          env="MCP_TOOL_TIMEOUT", project="yes"),
    Field("permissions.allow", RuleList(effect="allow"),
          "Rules for calls that run without asking (a shell rule must match every command of "
          "a compound line).", flag="--allowedTools", project="adds",
          project_note=_ONCE_TRUSTED),
    Field("permissions.ask", RuleList(effect="ask"),
          "Rules for calls that are always asked about, in every approval mode.",
          project="adds", project_note=_AT_ONCE),
    Field("permissions.deny", RuleList(effect="deny"),
          "Rules for calls that never run (the model is told which rule refused it).",
          flag="--disallowedTools", project="adds", project_note=_AT_ONCE),
    Field("permissions.additionalDirectories", DirectoryList(),
          "Folders beyond the workspace that tools may read and edit as if they were in it "
          "(and sandboxed commands may write), Claude Code's key; ~ and paths relative to the "
          "workspace work. --add-dir DIR adds one.", flag="--add-dir",
          project="adds", project_note=_ONCE_TRUSTED),
    Field("env", EnvVariables(),
          "Environment variables for the session, Claude Code's key (e.g. ANTHROPIC_BASE_URL): "
          "the provider's configuration and every command, hook and MCP server lull starts see "
          "them; a variable already in lull's environment is replaced.", project="trusted"),
    Field("hooks", Hooks(),
          "Commands run at lifecycle events, in Claude Code's shape: {\"PreToolUse\": "
          "[{\"matcher\": \"Bash|Edit\", \"hooks\": [{\"type\": \"command\", \"command\": "
          "\"./check.sh\", \"timeout\": 60}]}]}; every event Claude Code documents that lull "
          "fires (PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure, "
          "UserPromptSubmit, Stop, StopFailure, SubagentStart, SubagentStop, SessionStart, "
          "SessionEnd, PreCompact, PostCompact, Notification). Each command gets "
          "the event as JSON on stdin; exit 2 blocks (stderr goes to the model).",
          project="adds", project_note="added to yours; they run once you trust the workspace "
          "with /trust"),
    Field("sandbox.enabled", Boolean(),
          "Run shell commands (run_shell_command, ! lines, a custom command's !`...` lines) "
          "inside the OS sandbox.", env="LULL_SANDBOX", project="narrow",
          narrowest_first=_ON_ONLY),
    Field("sandbox.autoAllowBashIfSandboxed", Boolean(),
          "Sandboxed commands run without asking (deny and ask rules still apply).",
          project="narrow", narrowest_first=_OFF_ONLY),
    Field("sandbox.excludedCommands", TextList(),
          "Commands that run outside the sandbox, asked about as without one (a prefix such "
          "as \"docker\" or a pattern such as \"docker *\").", project="narrow"),
    Field("sandbox.allowUnsandboxedCommands", Boolean(),
          "A command that fails in the sandbox may be run again outside it "
          "(dangerously_disable_sandbox), always asked about.",
          project="narrow", narrowest_first=_OFF_ONLY),
    Field("sandbox.failIfUnavailable", Boolean(),
          "Refuse to run commands when the sandbox cannot start (instead of a warning and "
          "asking as without one).", project="narrow", narrowest_first=_ON_ONLY),
    Field("sandbox.hooks", Boolean(),
          "Run hook commands inside the sandbox too.", project="narrow",
          narrowest_first=_ON_ONLY),
    Field("sandbox.mcpServers", Boolean(),
          "Run the project's stdio MCP servers (.mcp.json, .lull/settings.json) inside the "
          "sandbox too.", project="narrow", narrowest_first=_ON_ONLY),
    Field("sandbox.network.allowedDomains", TextList(),
          "Domains sandboxed commands may reach through lull's proxy (\"*.example.com\" "
          "covers subdomains); any other is refused and reported.", project="narrow"),
    Field("sandbox.network.allowUnixSockets", PathList(),
          "Unix sockets outside the workspace sandboxed commands may connect to (a socket, or "
          "a folder of them, e.g. the SSH agent's); every other one they cannot reach.",
          project="narrow"),
    Field("sandbox.network.allowLocalBinding", Boolean(),
          "Sandboxed commands may bind and serve on localhost ports (Claude Code: macOS only; "
          "on Linux a command always has a loopback of its own, unreachable from outside).",
          project="narrow", narrowest_first=_OFF_ONLY),
    Field("sandbox.filesystem.allowWrite", PathList(),
          "Paths outside the workspace sandboxed commands may write.", project="narrow"),
    Field("sandbox.filesystem.denyWrite", AdditiveList(),
          "Paths inside writable places that sandboxed commands may not write.",
          project="narrow"),
    Field("sandbox.filesystem.denyRead", AdditiveList(),
          "Paths sandboxed commands may not read, besides ~/.ssh, cloud credentials and "
          "lull's own directories.", project="narrow"),
    Field("sandbox.filesystem.allowRead", PathList(),
          "Paths sandboxed commands may read although they are inside an unreadable one "
          "(denyRead, ~/.ssh, ...): e.g. one file of a denied folder.", project="narrow"),
)  # fmt: skip

FIELDS: dict[str, Field] = {field.key: field for field in _TABLE}
ENV_FIELDS: dict[str, Field] = {f.env: f for f in _TABLE if f.env is not None}
KNOWN_KEYS: tuple[str, ...] = (*GROUPS, *FIELDS)


def get_value(settings: Settings, key: str) -> Any:
    """Read the value of a dotted key from ``settings``."""
    value: Any = settings
    for attr in FIELDS[key].attrs:
        value = getattr(value, attr)
    return value


def with_value(settings: Settings, key: str, value: object) -> Settings:
    """Return a copy of ``settings`` with the dotted key set to an already-checked value."""
    updated: Settings = _replace(settings, FIELDS[key].attrs, value)
    return updated


def _replace(obj: Any, attrs: tuple[str, ...], value: object) -> Any:
    """Replace a nested attribute of frozen dataclasses, copying along the path."""
    head, *rest = attrs
    new = _replace(getattr(obj, head), tuple(rest), value) if rest else value
    return dataclasses.replace(obj, **{head: new})


def _normalise(key: str) -> str:
    """Fold case, underscores and dashes so "approval_mode" meets "approvalMode"."""
    return key.replace("_", "").replace("-", "").lower()


def suggest(key: str) -> str | None:
    """The known key an unknown ``key`` probably meant, if any is close."""
    import difflib

    folded = _normalise(key)
    for known in KNOWN_KEYS:
        if _normalise(known) == folded:
            return known
    leaf = _normalise(key.rsplit(".", 1)[-1])
    by_leaf = {_normalise(known.rsplit(".", 1)[-1]): known for known in KNOWN_KEYS}
    if leaf in by_leaf:
        return by_leaf[leaf]
    close = difflib.get_close_matches(key, KNOWN_KEYS, n=1, cutoff=0.75)
    if close:
        return close[0]
    close = difflib.get_close_matches(leaf, list(by_leaf), n=1, cutoff=0.75)
    return by_leaf[close[0]] if close else None
