"""The built-in default of every setting, declared once.

``settings/model.py`` (what a user who sets nothing gets) and the engine's own policy objects
(``IdlePolicy``, ``CompressionPolicy``, ``AgentConfig``, ``ToolContext``, ``ModelRequest``)
read their defaults from here, so changing one value here changes it everywhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from lull.model.approvals import ApprovalMode
    from lull.model.provider import CacheLifetime

# model.*
MAX_OUTPUT_TOKENS: Final = 8192  # model.maxOutputTokens when null (the model's own default)
# model.timeoutSeconds: how long the server may stay silent (first byte, between chunks). Cloud
# APIs send keep-alive pings within seconds; the slowest legitimate silence is a local model on
# CPU evaluating a long prompt (20-50 tokens/s: ~8-15k tokens in 5 minutes).
TIMEOUT_SECONDS: Final = 300.0
# maxTurns
MAX_TURNS: Final = 100
# tools.*
APPROVAL_MODE: Final[ApprovalMode] = "default"
MAX_OUTPUT_CHARS: Final = 30_000
SHELL_TIMEOUT_SECONDS: Final = 120
ALLOW_PRIVATE_NETWORK: Final = False
# tools.toolSearch (Claude Code's ENABLE_TOOL_SEARCH): defer an MCP server's tool schemas once
# all MCP schemas would take more than this share of the context window
TOOL_SEARCH: Final = "auto"
TOOL_SEARCH_AUTO_PERCENT: Final = 10
TOOL_SEARCH_MAX_RESULTS: Final = 5  # tools one keyword search of tool_search loads at most
# context.clearContextOnIdle.*
THINKING_THRESHOLD_MINUTES: Final = 5.0
TOOL_RESULTS_THRESHOLD_MINUTES: Final = 5.0
TOOL_RESULTS_NUM_TO_KEEP: Final = 5
MASKING: Final = True
"""Cache-aware masking of old tool results inside long turns (``context.masking``): on, as
the cost benchmark's real runs show it pays a little with its recalls charged (0.98x of caching
alone on one long turn each; ``docs/benchmarks.md``)."""
MASKING_KEEP: Final = 5
MASKING_MIN_REQUESTS: Final = 8
KEEP_WORKING_SET: Final = True
"""Clearing keeps, beyond the newest N, results the work still uses (quoted, the latest read
of an edited file, the latest run of a repeated command)."""
# context.compression.*
COMPRESSION_THRESHOLD: Final = 0.8  # full compression (an LLM summary)
WATCH_THRESHOLD: Final = 0.4  # the status bar shows the context in a warning colour
LIGHT_THRESHOLD: Final = 0.5  # the light step: superseded outputs become pointers
EMERGENCY_THRESHOLD: Final = 0.9  # the safety net: the oldest outputs are cleared
COLD_THRESHOLD: Final = 0.5  # full compression already from here when the cache is cold
KEEP_RECENT_FRACTION: Final = 0.3
# context.repeatPointers: a repeated read or query whose output is still in the context gets a
# pointer to it instead of a second copy
REPEAT_POINTERS: Final = True
# context.promptOffloadThreshold: a prompt larger than this fraction of the context window is
# saved to a file the model reads in parts, never sent whole
PROMPT_OFFLOAD_THRESHOLD: Final = 0.25
# context.media.*
MEDIA_KEEP: Final = 2  # the media window: messages with images that keep them
# context.toolOutput.*
TOOL_OUTPUT_MAX_TOKENS: Final = 12_000
# context.cache.*
PROMPT_CACHING: Final = True
CACHE_TTL: Final[CacheLifetime] = "auto"
PROMPT_CACHE_KEY: Final = True
# mcpServers.<name>.*
MCP_TIMEOUT_SECONDS: Final = 60.0  # starting a server (mcp.startTimeoutSeconds, MCP_TIMEOUT)
# one call of a server's tool (mcp.toolTimeoutSeconds, MCP_TOOL_TIMEOUT): long, since a tool may
# build, search or generate for minutes (Claude Code's own default is longer still)
MCP_TOOL_TIMEOUT_SECONDS: Final = 600.0
HOOK_TIMEOUT_SECONDS: Final = 60.0  # a hook command without its own "timeout" (Claude Code's)
# the task tool (sub-agents)
SUBAGENT_MAX_TURNS: Final = 30
# guardrails.* (each guard on by default; a project may only make them stricter)
ROLLBACK: Final = True  # roll back a reply that writes a call as text, refuses, is empty, …
MAX_CONSECUTIVE_ROLLBACKS: Final = 5
EXTRA_REQUESTS: Final = 200  # a user turn may make maxTurns + this many requests in all
DUPLICATE_CALLS: Final = True  # a repeated read-only call gets a pointer, not a second run
DOOM_LOOP: Final = True
DOOM_LOOP_REPEATS: Final = 3  # the same call this many times in a row stops the loop
STREAM_REPETITION: Final = True  # cut off an answer that keeps repeating itself
ARGUMENT_REPAIR: Final = True  # parameter aliases, JSON sent as a string, numeric strings
CONTINUATION: Final = True  # continue an answer cut at the output limit
MAX_CONTINUATIONS: Final = 3
MAX_TOOL_FAILURES: Final = 8  # this many failed tool calls in a row stop the loop
TOOL_RETRIES: Final = 3  # transient tool failures are retried after 1 s, 2 s, 4 s
MAX_ATTEMPTS: Final = 1  # -p: fresh attempts (with a failure summary) before giving up
