"""Anthropic Messages request validation, as strict as the real service (400s with real texts)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tests.fakes.errors import WireError, bad_request
from tests.fakes.images import check_anthropic_image
from tests.fakes.server_tools import check_server_tool
from tests.fakes.signing import Signer

if TYPE_CHECKING:
    from tests.fakes.anthropic_accepted import AcceptedPrefixes

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
THINKING_TYPES = ("thinking", "redacted_thinking")
MAX_BREAKPOINTS = 4
MODIFIED_THINKING = (
    "{where}: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be "
    "modified. These blocks must remain as they were in the original response."
)
BUDGET_DOC = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
#: Models that reject a trailing assistant message (a prefill): Claude 4.6 on, the 5.x families.
NO_PREFILL_MODELS = (
    "opus-4-6", "sonnet-4-6", "opus-4-7", "opus-4-8", "opus-5", "sonnet-5", "haiku-5",
    "fable", "mythos",
)  # fmt: skip
NO_PREFILL = (
    "This model does not support assistant message prefill. The conversation must end with a "
    "user message."
)
TRAILING_WHITESPACE = "messages: final assistant content cannot end with trailing whitespace"


@dataclass
class Turn:
    """Consecutive same-role messages merged: role plus (message index, block index, block)."""

    role: str
    first: int
    items: list[tuple[int, int, dict[str, Any]]] = field(default_factory=list)
    _by_kind: dict[Any, list[tuple[int, int, dict[str, Any]]]] | None = None

    def blocks_of(self, kind: str) -> list[tuple[int, int, dict[str, Any]]]:
        """Items whose block ``type`` is ``kind`` (sorted by kind once, when first asked:
        the pairing checks ask each turn two or three times); the list is the turn's own."""
        if self._by_kind is None:  # (made whole, then set: accepted turns are shared)
            by_kind: dict[Any, list[tuple[int, int, dict[str, Any]]]] = {}
            for item in self.items:
                by_kind.setdefault(item[2].get("type"), []).append(item)
            self._by_kind = by_kind
        return self._by_kind.get(kind, [])


def content_blocks(content: Any) -> list[dict[str, Any]]:
    """A message's content as a block list (a string is one text block)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def system_blocks(system: Any) -> list[dict[str, Any]]:
    """The ``system`` field as a block list (empty string -> no blocks)."""
    if isinstance(system, str):
        return [{"type": "text", "text": system}] if system else []
    return content_blocks(system)


def merge_turns(messages: list[Any], start: int = 0, turns: list[Turn] | None = None) -> list[Turn]:
    """Validate message shapes and merge consecutive same-role messages into turns (from
    message ``start`` on, onto ``turns``: those of the messages before it)."""
    turns = [] if turns is None else turns
    last = len(messages) - 1
    for i in range(start, len(messages)):
        message = messages[i]
        if not isinstance(message, dict):
            raise bad_request(f"messages.{i}: Input should be a valid dictionary")
        role = message.get("role")
        if role not in ("user", "assistant", "system"):
            raise bad_request(f"messages.{i}.role: Input should be 'user', 'assistant' or 'system'")
        content = message.get("content")
        if not isinstance(content, str | list):
            raise bad_request(f"messages.{i}.content: Field required")
        if not content and not (role == "assistant" and i == last):
            raise bad_request(
                f"messages.{i}: all messages must have non-empty content except for the "
                "optional final assistant message"
            )
        if not turns or turns[-1].role != role or role == "system":
            turns.append(Turn(role, i))
        for j, block in enumerate(content_blocks(content)):
            turns[-1].items.append((i, j, block))
    return turns


def _check_required(body: dict[str, Any]) -> None:
    for name in ("model", "max_tokens", "messages"):
        if name not in body:
            raise bad_request(f"{name}: Field required")
    if not isinstance(body["model"], str) or not body["model"]:
        raise bad_request("model: Input should be a non-empty string")
    max_tokens = body["max_tokens"]
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 0:
        raise bad_request("max_tokens: Input should be a valid integer >= 0")
    if not isinstance(body["messages"], list) or not body["messages"]:
        raise bad_request("messages: at least one message is required")


def thinking_type(body: dict[str, Any]) -> str:
    """The request's thinking mode ("disabled" when absent)."""
    thinking = body.get("thinking")
    return str(thinking.get("type", "")) if isinstance(thinking, dict) else "disabled"


def _check_thinking_config(body: dict[str, Any]) -> None:
    thinking = body.get("thinking")
    if thinking is None:
        return
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    if kind not in ("enabled", "adaptive", "disabled", "between_tools"):
        raise bad_request(
            "thinking.type: Input should be 'enabled', 'adaptive', 'disabled' or 'between_tools'"
        )
    if kind == "enabled":
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or isinstance(budget, bool):
            raise bad_request("thinking.enabled.budget_tokens: Field required")
        if budget < 1024:
            raise bad_request(
                "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
            )
        if budget >= body["max_tokens"]:
            raise bad_request(
                "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
                f"documentation at {BUDGET_DOC}#max-tokens-and-context-window-size"
            )
    choice = body.get("tool_choice")
    forced = isinstance(choice, dict) and choice.get("type") in ("any", "tool")
    if forced and kind in ("enabled", "adaptive"):
        raise bad_request("Thinking may not be enabled when tool_choice forces tool use.")


def _check_tools(body: dict[str, Any]) -> None:
    tools = body.get("tools")
    if tools is None:
        return
    if not isinstance(tools, list):
        raise bad_request("tools: Input should be a valid list")
    names: set[str] = set()
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict):
            raise bad_request(f"tools.{i}: Input should be a valid dictionary")
        name = tool.get("name")
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            raise bad_request(
                f"tools.{i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'"
            )
        if name in names:
            raise bad_request("tools: Tool names must be unique.")
        names.add(name)
        if tool.get("type", "custom") != "custom":
            check_server_tool(i, tool)
        else:
            schema = tool.get("input_schema")
            if not isinstance(schema, dict):
                raise bad_request(f"tools.{i}.custom.input_schema: Field required")
            if schema.get("type") != "object":
                raise bad_request(f"tools.{i}.custom.input_schema.type: Input should be 'object'")
            if any(key in schema for key in ("oneOf", "anyOf", "allOf")):
                raise bad_request(
                    f"tools.{i}.custom.input_schema: input_schema does not support oneOf, "
                    "allOf, or anyOf at the top level"
                )


def _check_block(where: str, block: dict[str, Any], signer: Signer) -> None:
    kind = block.get("type")
    if not isinstance(kind, str):
        raise bad_request(f"{where}.type: Field required")
    if kind == "text" and (not isinstance(block.get("text"), str) or not block["text"]):
        if block.get("cache_control") is not None:
            raise bad_request(f"{where}.text: cache_control cannot be set for empty text blocks")
        raise bad_request("messages: text content blocks must be non-empty")
    if kind == "text" and not block["text"].strip():
        raise bad_request("messages: text content blocks must contain non-whitespace text")
    if kind in THINKING_TYPES and "cache_control" in block:
        raise bad_request(f"{where}.{kind}.cache_control: Extra inputs are not permitted")
    if kind == "thinking":
        text, sig = block.get("thinking"), block.get("signature")
        if not isinstance(text, str) or not isinstance(sig, str):
            raise bad_request(f"{where}.thinking.signature: Field required")
        if not signer.verify_thinking(text, sig):
            raise bad_request(MODIFIED_THINKING.format(where=where))
    if kind == "redacted_thinking":
        data = block.get("data")
        if not isinstance(data, str) or not signer.verify_redacted(data):
            raise bad_request(MODIFIED_THINKING.format(where=where))
    if kind == "tool_use":
        if not isinstance(block.get("id"), str) or not isinstance(block.get("name"), str):
            raise bad_request(f"{where}.tool_use.id: Field required")
        if not isinstance(block.get("input"), dict):
            raise bad_request(f"{where}.tool_use.input: Input should be a valid dictionary")
    if kind == "tool_result" and not isinstance(block.get("tool_use_id"), str):
        raise bad_request(f"{where}.tool_result.tool_use_id: Field required")
    if kind == "image":
        check_anthropic_image(where, block)


def _plainly_valid(kind: Any, block: dict[str, Any]) -> bool:
    """True for the common blocks ``_check_block`` would pass (non-blank text, a well-formed
    tool use or result): a long prompt has thousands, checked without writing their paths."""
    if kind == "text":
        text = block.get("text")
        return isinstance(text, str) and bool(text.strip())
    if kind == "tool_use":
        return (
            isinstance(block.get("id"), str)
            and isinstance(block.get("name"), str)
            and isinstance(block.get("input"), dict)
        )
    if kind == "tool_result":
        return isinstance(block.get("tool_use_id"), str)
    return False


def _check_blocks(
    turns: list[Turn], signer: Signer, start: int = 0, seen_ids: set[str] | None = None
) -> None:
    """Check every block of messages ``start`` on (``seen_ids``: the tool use ids before)."""
    seen_ids = set() if seen_ids is None else seen_ids
    for turn in turns:
        for i, j, block in turn.items:
            if i < start:
                continue
            kind = block.get("type")
            if not _plainly_valid(kind, block):
                _check_block(f"messages.{i}.content.{j}", block, signer)
            if kind == "tool_use":
                if block["id"] in seen_ids:
                    raise bad_request(f"messages.{i}.content.{j}: `tool_use` ids must be unique")
                seen_ids.add(block["id"])


def _check_results_answer_previous(turns: list[Turn], index: int) -> None:
    turn = turns[index]
    prev = turns[index - 1] if index > 0 else None
    offered = {b["id"] for _, _, b in prev.blocks_of("tool_use")} if prev else set()
    if prev is not None and prev.role != "assistant":
        offered = set()
    answered: set[str] = set()
    seen_other = False
    for i, j, block in turn.items:
        if block.get("type") != "tool_result":
            seen_other = True
            continue
        where = f"messages.{i}.content.{j}"
        tool_use_id = block["tool_use_id"]
        if tool_use_id not in offered:
            raise bad_request(
                f"{where}: unexpected `tool_use_id` found in `tool_result` blocks: {tool_use_id}. "
                "Each `tool_result` block must have a corresponding `tool_use` block in the "
                "previous message."
            )
        if tool_use_id in answered:
            raise bad_request(f"{where}: duplicate `tool_result` for tool_use_id {tool_use_id}")
        if seen_other:
            raise bad_request(
                f"messages.{i}: `tool_result` blocks must come first in the user message content, "
                "before any other blocks"
            )
        answered.add(tool_use_id)


def _check_pairing(turns: list[Turn], first: int = 0) -> None:
    """Check the pairing of tool uses and results, from turn ``first`` on."""
    for index in range(first, len(turns)):
        turn = turns[index]
        if turn.role == "user":
            _check_results_answer_previous(turns, index)
        if turn.role != "assistant":
            continue
        ids = [b["id"] for _, _, b in turn.blocks_of("tool_use")]
        nxt = turns[index + 1] if index + 1 < len(turns) else None
        answered = set()
        if nxt is not None and nxt.role == "user":
            answered = {b["tool_use_id"] for _, _, b in nxt.blocks_of("tool_result")}
        missing = [i for i in ids if i not in answered]
        if missing:
            raise bad_request(
                f"messages.{turn.first}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
                "corresponding `tool_result` block in the next message."
            )


def _is_tool_results_only(turn: Turn) -> bool:
    return bool(turn.items) and all(b.get("type") == "tool_result" for _, _, b in turn.items)


def _check_thinking_starts_tool_loop(body: dict[str, Any], turns: list[Turn]) -> None:
    """With thinking enabled, an open tool loop's first assistant turn must start with thinking."""
    if thinking_type(body) != "enabled" or not _is_tool_results_only(turns[-1]):
        return
    start = len(turns) - 1
    while start > 0 and not (
        turns[start].role == "user" and not _is_tool_results_only(turns[start])
    ):
        start -= 1
    first_assistant = next((t for t in turns[start:] if t.role == "assistant"), None)
    if first_assistant is None or not first_assistant.items:
        return
    i, j, block = first_assistant.items[0]
    if block.get("type") not in THINKING_TYPES:
        raise bad_request(
            f"messages.{i}.content.{j}.type: Expected `thinking` or `redacted_thinking`, but found "
            f"`{block.get('type')}`. When `thinking` is enabled, a final `assistant` message must "
            "start with a thinking block (preceeding the lastmost set of `tool_use` and "
            "`tool_result` blocks). We recommend you include thinking blocks from previous turns. "
            "To avoid this requirement, disable `thinking`. Please consult our documentation at "
            f"{BUDGET_DOC}"
        )


def _check_prefill(body: dict[str, Any], turns: list[Turn]) -> None:
    """A trailing assistant turn is a prefill: not on every model, never ending in whitespace,
    and with thinking on it must start with a thinking block."""
    final = turns[-1]
    if final.role != "assistant" or not final.items:
        return
    model = str(body["model"]).lower()
    if any(name in model for name in NO_PREFILL_MODELS):
        raise bad_request(NO_PREFILL)
    i, j, block = final.items[-1]
    if block.get("type") == "text" and block["text"] != block["text"].rstrip():
        raise bad_request(TRAILING_WHITESPACE)
    i, j, first = final.items[0]
    if thinking_type(body) == "enabled" and first.get("type") not in THINKING_TYPES:
        raise bad_request(
            f"messages.{i}.content.{j}.type: Expected `thinking` or `redacted_thinking`, but "
            f"found `{first.get('type')}`. When `thinking` is enabled, a final `assistant` "
            "message must start with a thinking block. To avoid this requirement, disable "
            f"`thinking`. Please consult our documentation at {BUDGET_DOC}"
        )


def cache_markers(
    body: dict[str, Any], message_markers: list[tuple[int, str, Any]] | None = None
) -> list[tuple[str, Any]]:
    """Every (path, cache_control) in processing order: tools, system, messages (+ nested);
    the messages' from ``message_markers`` when given (:func:`markers_of_messages`)."""
    found: list[tuple[str, Any]] = []
    for i, tool in enumerate(body.get("tools") or []):
        if isinstance(tool, dict) and tool.get("cache_control") is not None:
            found.append((f"tools.{i}", tool["cache_control"]))
    for i, block in enumerate(system_blocks(body.get("system"))):
        if block.get("cache_control") is not None:
            found.append((f"system.{i}", block["cache_control"]))
    if message_markers is None:
        message_markers = markers_of_messages(body.get("messages") or [])
    found += [(where, marker) for _, where, marker in message_markers]
    if body.get("cache_control") is not None:
        found.append(("cache_control", body["cache_control"]))
    return found


def markers_of_messages(messages: list[Any], start: int = 0) -> list[tuple[int, str, Any]]:
    """(message index, path, cache_control) of every marker in messages ``start`` on."""
    found: list[tuple[int, str, Any]] = []
    for i in range(start, len(messages)):
        for j, block in enumerate(content_blocks(messages[i].get("content"))):
            # paths are written only for the few blocks that carry a marker (a long prompt
            # has thousands of blocks and at most four markers)
            if block.get("cache_control") is not None:
                found.append((i, f"messages.{i}.content.{j}", block["cache_control"]))
            if block.get("type") != "tool_result":
                continue
            for k, part in enumerate(content_blocks(block.get("content"))):
                if part.get("cache_control") is not None:
                    where = f"messages.{i}.content.{j}.content.{k}"
                    found.append((i, where, part["cache_control"]))
    return found


def marker_ttl(where: str, marker: Any) -> str:
    """The TTL ("5m"/"1h") of a cache_control marker, validating its shape."""
    if not isinstance(marker, dict) or marker.get("type") != "ephemeral":
        raise bad_request(f"{where}.cache_control.type: Input should be 'ephemeral'")
    ttl = marker.get("ttl", "5m")
    if ttl not in ("5m", "1h"):
        raise bad_request(f"{where}.cache_control.ttl: Input should be '5m' or '1h'")
    return str(ttl)


def _check_cache_control(
    body: dict[str, Any], message_markers: list[tuple[int, str, Any]] | None = None
) -> None:
    markers = cache_markers(body, message_markers)
    if len(markers) > MAX_BREAKPOINTS:
        raise bad_request(
            f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. "
            f"Found {len(markers)}."
        )
    seen_5m = False
    for where, marker in markers:
        ttl = marker_ttl(where, marker)
        if ttl == "1h" and seen_5m:
            raise bad_request(
                f"{where}.cache_control: a ttl='1h' cache_control block must not come after a "
                "ttl='5m' cache_control block. Note that blocks are processed in the following "
                "order: `tools`, `system`, `messages`."
            )
        seen_5m = seen_5m or ttl == "5m"


def validate_anthropic(
    body: dict[str, Any],
    signer: Signer,
    texts: Sequence[str] | None = None,
    accepted: AcceptedPrefixes | None = None,
) -> None:
    """Raise WireError(400) for anything the real Messages API would reject.

    With the text each message was sent as and the ``accepted`` requests, the leading
    messages an accepted request sent as the same text (all but its last) are not checked
    again: each check of a message, or of a pair of turns, within them passed then.
    """
    _check_required(body)
    _check_thinking_config(body)
    _check_tools(body)
    system = body.get("system")
    if system is not None and not isinstance(system, str | list):
        raise bad_request("system: Input should be a valid string or list of text blocks")
    for j, block in enumerate(system_blocks(system)):
        if block.get("type") != "text" or not block.get("text"):
            raise bad_request(f"system.{j}: system blocks must be non-empty text blocks")
    messages = body["messages"]
    resumed = accepted.resume(messages, texts) if accepted is not None else None
    start, turns, boundary, seen_ids, markers = (
        (resumed.start, resumed.turns, resumed.boundary, resumed.tool_use_ids, resumed.markers)
        if resumed is not None
        else (0, [], 0, set(), [])
    )
    turns = merge_turns(messages, start, turns)
    _check_blocks(turns[boundary:], signer, start, seen_ids)
    _check_pairing(turns, max(0, boundary - 1))
    _check_thinking_starts_tool_loop(body, turns)
    _check_prefill(body, turns)
    markers += markers_of_messages(messages, start)
    _check_cache_control(body, markers)
    if accepted is not None and texts is not None:
        accepted.add(list(texts), turns, markers)


__all__ = ["WireError", "validate_anthropic"]
