"""Claude Code's headless message shapes (``claude -p --output-format stream-json|json``).

Documented in the Agent SDK reference, "Message types" (``SDKSystemMessage``,
``SDKAssistantMessage``, ``SDKUserMessage``, ``SDKResultMessage``:
https://docs.claude.com/en/docs/agent-sdk/typescript) and on the headless page
(https://docs.claude.com/en/docs/claude-code/headless); ``tests/fixtures/claude_code/`` holds
lines Claude Code printed, which the tests hold these shapes against. Each builder returns one
line's object. lull adds keys of its own to a known type (parsers ignore unknown keys) but
never changes the type of a documented key; events Claude Code has no type for are lull's own
lines (:mod:`lull.ui.headless.extras`).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from lull.model.approvals import (
    ALL_APPROVAL_MODES,
    CLAUDE_CODE_MODES,
    CLAUDE_CODE_NEAREST,
    ApprovalMode,
    ClaudeCodeMode,
)
from lull.model.messages import ToolCall, ToolResult
from lull.model.permissions import claude_code_input, claude_code_name
from lull.model.provider import Usage

PermissionMode = ClaudeCodeMode
"""Claude Code's permission modes (``--permission-mode``) that lull has."""
PERMISSION_MODES: Mapping[str, ApprovalMode] = {
    **{claude: mode for mode, claude in CLAUDE_CODE_MODES.items()},
    **{claude: mode for claude, (mode, _) in CLAUDE_CODE_NEAREST.items()},
    **{mode: mode for mode in ALL_APPROVAL_MODES},
}
"""``--permission-mode`` values (Claude Code's and lull's own names) as lull's approval mode."""
CLAUDE_MODES: Mapping[ApprovalMode, PermissionMode] = CLAUDE_CODE_MODES
"""lull's approval mode as Claude Code names it (the ``permissionMode`` of ``init``)."""

ResultSubtype = Literal["success", "error_max_turns", "error_during_execution"]
"""The ``subtype`` of a ``result`` line (lull's finer reason is its ``lull_subtype``)."""

McpStatus = Literal["connected", "failed", "pending", "disabled", "needs-auth"]


def new_uuid() -> str:
    """The ``uuid`` every line carries."""
    return str(uuid.uuid4())


def claude_usage(usage: Usage) -> dict[str, Any]:
    """Token counts under the Messages API's names (``input_tokens`` is the uncached part)."""
    return {
        "input_tokens": usage.input,
        "cache_creation_input_tokens": usage.cache_write,
        "cache_read_input_tokens": usage.cache_read,
        "output_tokens": usage.output,
    }


def model_usage_entry(usage: Usage, cost_usd: float | None, context_window: int) -> dict[str, Any]:
    """One model's entry in a result's ``modelUsage`` (``costUSD`` None: its price is
    unknown; ``contextWindow`` 0: not known)."""
    return {
        "inputTokens": usage.input,
        "outputTokens": usage.output,
        "cacheReadInputTokens": usage.cache_read,
        "cacheCreationInputTokens": usage.cache_write,
        "webSearchRequests": 0,
        "costUSD": cost_usd,
        "contextWindow": context_window,
    }


def init_message(
    *,
    session_id: str,
    cwd: str,
    tools: Sequence[str],
    mcp_servers: Sequence[tuple[str, McpStatus]],
    model: str,
    permission_mode: PermissionMode,
    slash_commands: Sequence[str],
    lull_version: str,
    agents: Sequence[str] = (),
    skills: Sequence[str] = (),
) -> dict[str, Any]:
    """The ``system``/``init`` line that starts a session's stream (``tools`` by Claude Code's
    names, ``lull_tools`` by lull's)."""
    return {
        "type": "system",
        "subtype": "init",
        "cwd": cwd,
        "session_id": session_id,
        "tools": [claude_code_name(tool) for tool in tools],
        "mcp_servers": [{"name": name, "status": status} for name, status in mcp_servers],
        "model": model,
        "permissionMode": permission_mode,
        "slash_commands": list(slash_commands),
        "apiKeySource": "none",
        "output_style": "default",
        "agents": list(agents),
        "skills": list(skills),
        "plugins": [],
        "uuid": new_uuid(),
        "lull_version": lull_version,
        "lull_tools": list(tools),
    }


def text_block(text: str) -> dict[str, Any]:
    """A ``text`` content block."""
    return {"type": "text", "text": text}


def thinking_block(text: str) -> dict[str, Any]:
    """A ``thinking`` content block (lull's events carry no signature: it is empty)."""
    return {"type": "thinking", "thinking": text, "signature": ""}


def tool_use_block(call: ToolCall, workspace: Path) -> dict[str, Any]:
    """A ``tool_use`` content block: ``name`` as Claude Code names the tool (``Read``,
    ``Bash``, ``mcp__server__tool``), ``lull_name`` as lull does (``read_file``); ``input``
    lull's arguments plus Claude Code's absolute ``file_path`` next to ``path``."""
    return {
        "type": "tool_use",
        "id": call.id,
        "name": claude_code_name(call.name),
        "input": claude_code_input(call.arguments, workspace),
        "lull_name": call.name,
    }


def assistant_message(
    *,
    session_id: str,
    message_id: str,
    model: str,
    content: Sequence[Mapping[str, Any]],
    usage: Usage,
) -> dict[str, Any]:
    """An ``assistant`` line: a Messages API message with the given content blocks."""
    return {
        "type": "assistant",
        "message": {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [dict(block) for block in content],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": claude_usage(usage),
        },
        "parent_tool_use_id": None,
        "session_id": session_id,
        "uuid": new_uuid(),
    }


def tool_result_message(*, session_id: str, result: ToolResult) -> dict[str, Any]:
    """A ``user`` line carrying one tool call's result."""
    block = {
        "type": "tool_result",
        "tool_use_id": result.call_id,
        "content": result.content,
        "is_error": result.is_error,
    }
    return {
        "type": "user",
        "message": {"role": "user", "content": [block]},
        "parent_tool_use_id": None,
        "session_id": session_id,
        "uuid": new_uuid(),
    }


def permission_denial(call: ToolCall, workspace: Path) -> dict[str, Any]:
    """One entry of a result's ``permission_denials``: the refused call as Claude Code lists
    it (``tool_name`` by Claude Code's name, ``tool_input`` with its ``file_path``)."""
    return {
        "tool_name": claude_code_name(call.name),
        "tool_use_id": call.id,
        "tool_input": claude_code_input(call.arguments, workspace),
    }


def result_subtype(lull_subtype: str) -> ResultSubtype:
    """Claude Code's ``subtype`` for lull's verdict (``success``, ``error_max_turns``, else
    ``error_during_execution``)."""
    match lull_subtype:
        case "success":
            return "success"
        case "error_max_turns":
            return "error_max_turns"
        case _:
            return "error_during_execution"


def result_message(
    *,
    lull_subtype: str,
    error: str | None,
    duration_ms: int,
    duration_api_ms: int,
    num_turns: int,
    result: str,
    session_id: str,
    total_cost_usd: float | None,
    usage: Usage,
    stop_reason: str | None,
    model_usage: Mapping[str, Mapping[str, Any]] | None = None,
    denied: Sequence[ToolCall] = (),
    workspace: Path,
) -> dict[str, Any]:
    """The ``result`` line that ends a turn (and the whole ``--output-format json`` output).

    ``total_cost_usd`` is None (``null``) when a model's price is unknown: lull does not
    guess a cost. ``denied``: the calls a permission refused, as ``permission_denials``
    (``workspace`` makes their ``file_path``)."""
    return {
        "type": "result",
        "subtype": result_subtype(lull_subtype),
        "is_error": error is not None,
        "duration_ms": duration_ms,
        "duration_api_ms": duration_api_ms,
        "num_turns": num_turns,
        "result": result,
        "session_id": session_id,
        "total_cost_usd": total_cost_usd,
        "usage": claude_usage(usage),
        "modelUsage": dict(model_usage or {}),
        "permission_denials": [permission_denial(call, workspace) for call in denied],
        "stop_reason": stop_reason,
        "errors": [] if error is None else [error],
        "uuid": new_uuid(),
        "lull_subtype": lull_subtype,
        "error": error,
    }
