"""Cache-break detection: compare each request's prefix with the previous one, block by block.

Between context edits the conversation only grows, so every request should start with the
whole previous request, byte for byte, and read it from the provider's cache. When it does
not, the first block that differs (the model, a tool, the system prompt, the environment, the
thinking settings, a message) says where the cache stopped matching. Messages a request
carries for itself only (``ModelRequest.request_only``: a corrective note, a partial answer
being continued) are left out of what the next request is compared with. A break explained by a
context edit made since the previous request (idle cleanup, compression, restore), by a
model switch, or by tools a tool source announced (an MCP server that came up late adds its
tools once, after the existing ones, or its deferred tools to ``tool_search``'s listing; a
deferred tool loaded joins the list at its end) is expected and logged at info level; any
other break is a bug or an outside change, logged as a warning.
Both are kept in :attr:`CacheBreakDetector.breaks` for ``/context``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import assert_never

from lull.context.assemble import MessageDigests, PrefixBlock, fixed_blocks, message_blocks
from lull.model.edits import (
    ClearMedia,
    ClearThinking,
    ClearToolResults,
    ContextEdit,
    Restore,
    Rewind,
    Summary,
    Supersede,
)
from lull.model.messages import Image, Message, Part, Text, Thinking, ToolCall, ToolResult
from lull.model.provider import ModelRequest, ToolSpec

log = logging.getLogger("lull.cache")


@dataclass(frozen=True, slots=True)
class CacheBreak:
    """One request whose prefix stopped matching the previous request's before its end.

    ``request`` counts the requests this detector saw (1 = the first); ``block`` names the
    first changed block and ``change`` says how it changed; ``cause`` is the context edit
    that explains it ("" when nothing does, i.e. ``expected`` is False).
    """

    request: int
    block: str
    change: str
    expected: bool
    cause: str = ""

    def describe(self) -> str:
        """One line for the log and ``/context``."""
        status = f"expected: {self.cause}" if self.expected else "unexpected"
        where = f"request {self.request}: {self.block} {self.change}"
        return f"prompt cache break at {where} ({status})"


class CacheBreakDetector:
    """A request hook (``agent.request_hooks``) that finds and explains prefix changes.

    ``edits`` returns the session's context edits (an append-only list), so the detector
    knows which edits were made since the previous request; ``added_tools`` (optional) maps
    the names of tools added or changed after start-up to why ("MCP server github came up",
    "tool_search loaded it"), so a break at one of them is expected.
    """

    def __init__(
        self,
        edits: Callable[[], Sequence[ContextEdit]],
        added_tools: Callable[[], Mapping[str, str]] | None = None,
    ) -> None:
        self._edits = edits
        self.added_tools = added_tools
        self._previous: ModelRequest | None = None
        self._seen_edits = len(edits())
        self.requests = 0
        self.breaks: list[CacheBreak] = []
        self._digests = MessageDigests()

    def __call__(self, request: ModelRequest, index: int) -> None:
        """Compare ``request`` with the previous one (``index`` is the loop's step number)."""
        edits = list(self._edits())
        new_edits, self._seen_edits = edits[self._seen_edits :], len(edits)
        self.requests += 1
        kept = request
        if request.request_only:  # what the next request is compared with: the shared part
            shared = request.messages[: len(request.messages) - request.request_only]
            kept = replace(request, messages=shared)
        previous, self._previous = self._previous, kept
        if previous is None:
            return
        found = request_change(previous, request, self._digests)
        if found is None:
            return
        block, change = found
        cause = explain(block, new_edits)
        if not cause and block.kind == "tool" and change != "removed" and self.added_tools:
            cause = self.added_tools().get(block.label.removeprefix("tool "), "")
        brk = CacheBreak(self.requests, block.label, change, bool(cause), cause)
        self.breaks.append(brk)
        if brk.expected:
            log.info(brk.describe())
        else:
            log.warning(brk.describe())

    @property
    def unexpected(self) -> list[CacheBreak]:
        """The breaks no context edit explains."""
        return [b for b in self.breaks if not b.expected]


def find_detector(hooks: Iterable[object]) -> CacheBreakDetector | None:
    """The detector among an agent's ``request_hooks``, if one is attached."""
    return next((h for h in hooks if isinstance(h, CacheBreakDetector)), None)


def request_change(
    old: ModelRequest, new: ModelRequest, digests: MessageDigests
) -> tuple[PrefixBlock, str] | None:
    """:func:`first_change` between two requests' prefix blocks, built only from the first
    message that is not the very object sent before (a long history is not hashed again)."""
    found = first_change(fixed_blocks(old), fixed_blocks(new))
    if found is not None:
        return found
    start = 0
    for before, after in zip(old.messages, new.messages, strict=False):
        if before is not after:
            break
        start += 1
    found = first_change(
        message_blocks(old.messages[start:], start + 1, digests),
        message_blocks(new.messages[start:], start + 1, digests),
    )
    digests.done()
    return found


def first_change(
    old: Sequence[PrefixBlock], new: Sequence[PrefixBlock]
) -> tuple[PrefixBlock, str] | None:
    """The first block where ``new`` stops repeating ``old``, and how it changed; None when
    ``new`` starts with all of ``old`` (an append-only request). An added block is named
    from ``new``, a removed one from ``old``."""
    for before, after in zip(old, new, strict=False):
        if before.kind != after.kind:
            if after.kind == "tool":
                return after, "added"
            if before.kind == "tool":
                return before, "removed"
            return after, f"replaced {before.label}"
        if before.digest != after.digest:
            return after, describe_change(before, after)
    if len(new) < len(old):
        return old[len(new)], "removed"
    return None


def describe_change(before: PrefixBlock, after: PrefixBlock) -> str:
    """What differs between two blocks of the same kind, in a few words."""
    old, new = before.source, after.source
    if before.kind == "model":
        return f"changed from {old or '?'} to {new or '?'}"
    if isinstance(old, ToolSpec) and isinstance(new, ToolSpec):
        if old.name != new.name:
            return f"replaced by tool {new.name} (tool order or set changed)"
        changed = [
            name
            for name, a, b in (
                ("description", old.description, new.description),
                ("parameters", old.parameters, new.parameters),
            )
            if a != b
        ]
        return " and ".join(changed) + " changed" if changed else "key order changed"
    if isinstance(old, Message) and isinstance(new, Message):
        return message_change(old, new)
    if isinstance(old, str) and isinstance(new, str):
        return f"text changed ({len(old):,} -> {len(new):,} characters)"
    return f"changed ({old!r} -> {new!r})"


def message_change(old: Message, new: Message) -> str:
    """How one message differs from what was sent before."""
    if old.id != new.id:
        return "replaced by a different message"
    if old.role != new.role:
        return "role changed"
    for before, after in zip(old.parts, new.parts, strict=False):
        if before != after:
            return _part_change(before, after)
    if len(new.parts) < len(old.parts):
        removed = old.parts[len(new.parts)]
        return f"{_kind(removed)} removed"
    return f"{_kind(new.parts[len(old.parts)])} added"


def _part_change(before: Part, after: Part) -> str:
    if isinstance(before, ToolResult) and isinstance(after, ToolResult):
        if after.cleared and not before.cleared:
            return f"{after.name} result cleared"
        if before.cleared and not after.cleared:
            return f"{after.name} result restored"
        return f"{after.name} result content changed"
    if isinstance(before, Thinking) and not isinstance(after, Thinking):
        return "thinking removed"
    if type(before) is not type(after):
        return f"{_kind(before)} replaced by {_kind(after)}"
    return f"{_kind(after)} changed"


def _kind(part: Part) -> str:
    match part:
        case ToolCall(name=name):
            return f"{name} call"
        case ToolResult(name=name):
            return f"{name} result"
        case Thinking():
            return "thinking"
        case Text():
            return "text"
        case Image():
            return "image"
        case _:
            assert_never(part)


def explain(block: PrefixBlock, edits: Sequence[ContextEdit]) -> str:
    """Which of ``edits`` accounts for a change at ``block``; "" if none does.

    Context edits only ever change messages: a changed tool, system prompt, environment or
    thinking setting is never explained by them. A new model (``/model``) is a deliberate
    change, so it is expected too.
    """
    if block.kind == "model":
        return "the model changed (each model has its own cache)"
    if block.kind != "message":
        return ""
    for edit in edits:
        match edit:
            case ClearToolResults(call_ids=ids, images=images) if set(ids) & set(
                block.call_ids
            ) or any(ref.startswith(f"{block.message_id}#") for ref in images):
                return f"{edit.reason} cleanup cleared {len(ids) + len(images)} old outputs"
            case ClearThinking(message_ids=ids) if block.message_id in ids:
                return f"idle cleanup cleared thinking of {len(ids)} messages"
            case Supersede(call_ids=ids) if set(ids) & set(block.call_ids):
                return f"the light step replaced {len(ids)} superseded tool outputs"
            case Summary():
                return "compression replaced earlier messages with a summary"
            case ClearMedia(images=images) if any(
                ref.startswith(f"{block.message_id}#") for ref in images
            ):
                return f"the media window cleared {len(images)} old images"
            case Restore(edit_ids=ids):
                return f"/context restore brought back {len(ids)} edit(s)"
            case Rewind():
                return "/rewind took the conversation back to an earlier prompt"
            case ClearToolResults() | ClearThinking() | Supersede() | ClearMedia():
                continue  # it changed something else
            case _:
                assert_never(edit)
    return ""
