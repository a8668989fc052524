"""/context (what the model sees, as a token breakdown), /context restore and /compact."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, assert_never

from lull.commands.base import CommandResult, hint, say
from lull.context.cachebreak import find_detector
from lull.context.estimate import estimate_part_tokens, estimate_spec_tokens, estimate_tokens
from lull.context.media import describe_media
from lull.context.restore import CompressionRecord, compression_history, parse_scope
from lull.context.view import active_edits
from lull.engine.fitting.restore import restore_context
from lull.engine.loop.agent import Agent
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
from lull.model.events import ContextEdited
from lull.model.messages import Image, Thinking, ToolResult
from lull.tools.deferral import tool_spec

if TYPE_CHECKING:
    from lull.runtime import Runtime

BAR_WIDTH = 40
CATEGORIES = (
    ("system", "█", "system prompt"),
    ("tools", "▓", "tools"),
    ("messages", "▒", "messages"),
    ("tool_results", "░", "tool results"),
    ("thinking", "▞", "thinking"),
    ("images", "▚", "images"),
)
FREE_GLYPH = "·"
MAX_BREAKS = 5


@dataclass(frozen=True)
class Breakdown:
    """Estimated tokens of the next prompt, by kind, and the model's context window."""

    system: int
    tools: int
    messages: int
    tool_results: int
    thinking: int
    window: int
    images: int = 0

    @property
    def total(self) -> int:
        """The whole prompt."""
        parts = (self.system, self.tools, self.messages, self.tool_results, self.thinking)
        return sum(parts) + self.images

    def share(self, tokens: int) -> float:
        """``tokens`` as a percentage of the window."""
        return 100.0 * tokens / self.window if self.window > 0 else 0.0


def context_breakdown(agent: Agent, window: int) -> Breakdown:
    """Estimate each part of the prompt the next request would send."""
    system = estimate_tokens(agent.config.system) + estimate_tokens(agent.config.environment)
    tools = sum(estimate_spec_tokens(spec) for spec in agent.tools.specs())
    messages = results = thinking = images = 0
    for message in agent.session.view():
        for part in message.parts:
            tokens = estimate_part_tokens(part)
            if isinstance(part, ToolResult):
                results += tokens
            elif isinstance(part, Thinking):
                thinking += tokens
            elif isinstance(part, Image):
                images += tokens
            else:
                messages += tokens
    return Breakdown(system, tools, messages, results, thinking, window, images)


def context_bar(breakdown: Breakdown, width: int = BAR_WIDTH) -> str:
    """The breakdown as a bar of ``width`` cells, one glyph per kind, free space dotted."""
    cells: list[str] = []
    for key, glyph, _ in CATEGORIES:
        tokens = getattr(breakdown, key)
        if tokens <= 0 or breakdown.window <= 0:
            continue
        count = max(1, round(width * tokens / breakdown.window))
        cells.extend(glyph * count)
    cells = cells[:width]
    return "[" + "".join(cells) + FREE_GLYPH * (width - len(cells)) + "]"


def describe(edit: ContextEdit) -> str:
    """One line saying what an edit changed."""
    match edit:
        case ClearToolResults():
            images = f" and {len(edit.images)} images" if edit.images else ""
            gap = f", gap {edit.gap_minutes:.1f} min" if edit.reason == "idle" else ""
            return (
                f"cleared {len(edit.call_ids)} tool results{images} (~{edit.tokens_saved:,} "
                f"tokens, {edit.reason}{gap})"
            )
        case Supersede():
            return (
                f"light step: {len(edit.call_ids)} superseded tool outputs replaced by "
                f"pointers (~{edit.tokens_saved:,} tokens)"
            )
        case ClearThinking():
            return (
                f"cleared thinking from {len(edit.message_ids)} messages "
                f"(~{edit.tokens_saved:,} tokens, {edit.reason})"
            )
        case Summary():
            return (
                f"summary ({edit.reason}) replaced earlier messages "
                f"(~{edit.tokens_before:,} -> ~{edit.tokens_after:,} tokens)"
            )
        case ClearMedia():
            return describe_media(edit)
        case Restore():
            return f"restored {len(edit.edit_ids)} edits"
        case Rewind():
            return f"/rewind hid {edit.hidden} later messages (the session file keeps them)"
        case _:
            assert_never(edit)


def context_report(runtime: Runtime, arg: str) -> CommandResult:
    """/context: the breakdown as a bar and a table, then the edits in force."""
    argument = arg.strip()
    word, _, rest = argument.partition(" ")
    if word == "restore":
        return restore(runtime.agent, rest.strip())
    if argument:
        return hint(
            f"unknown /context argument {argument!r}; try /context or /context restore "
            "[clears|compression|rewind]"
        )
    agent = runtime.agent
    breakdown = context_breakdown(agent, runtime.context_window())
    lines = [
        f"context: ~{breakdown.total:,} of {breakdown.window:,} tokens "
        f"({breakdown.share(breakdown.total):.1f}%) · {runtime.provider_config.model}",
        context_bar(breakdown),
    ]
    for key, glyph, label in CATEGORIES:
        tokens = getattr(breakdown, key)
        lines.append(f"  {glyph} {label:<14}{tokens:>10,}  {breakdown.share(tokens):5.1f}%")
    free = max(0, breakdown.window - breakdown.total)
    lines.append(f"  {FREE_GLYPH} {'free':<14}{free:>10,}  {breakdown.share(free):5.1f}%")
    lines.extend(deferred_lines(agent))
    view, transcript = len(agent.session.view()), len(agent.session.transcript)
    lines.append(f"view: {view} messages (transcript: {transcript}, all kept on disk)")
    live = active_edits(agent.session.edits)
    if not live:
        lines.append("no context edits: the model sees the whole transcript")
    else:
        lines.append("context edits in force (/context restore brings cleared content back):")
        for edit in live:
            lines.append("  " + describe(edit))
            lines.extend(kept_lines(edit))
    lines.extend(compression_lines(compression_history(agent.session.edits)))
    lines.extend(cache_break_lines(agent))
    lines.extend(rollback_lines(agent))
    lines.extend(checkpoint_lines(agent))
    return CommandResult(tuple(lines))


MAX_KEPT_SHOWN = 12


def kept_lines(edit: ContextEdit) -> list[str]:
    """Under a clear: the older results it kept because the work still uses them, and why."""
    if not isinstance(edit, ClearToolResults) or not edit.kept_for:
        return []
    lines = [f"    kept {len(edit.kept_for)} older results the work still uses:"]
    lines += ["      " + reason for reason in edit.kept_for[:MAX_KEPT_SHOWN]]
    if len(edit.kept_for) > MAX_KEPT_SHOWN:
        lines.append(f"      … and {len(edit.kept_for) - MAX_KEPT_SHOWN} more")
    return lines


def deferred_lines(agent: Agent) -> list[str]:
    """The MCP tools offered by name only (``tools.toolSearch``) and the schema tokens that
    keeps out of the tools above."""
    pending = agent.tools.registry.deferred.pending()
    if not pending:
        return []
    kept = sum(estimate_spec_tokens(tool_spec(entry.tool)) for entry in pending)
    return [
        f"deferred tools: {len(pending)} offered by name only, ~{kept:,} tokens of schemas "
        "kept out (tool_search loads them; /mcp lists them)"
    ]


def checkpoint_lines(agent: Agent) -> list[str]:
    """The file checkpoints kept for /undo and /rewind in this session."""
    if agent.tools.checkpoints is None:
        return []
    log = agent.tools.checkpoints.session(agent.session.id)
    changes, stored = log.size()
    if not changes:
        return ["checkpoints: none (no file changes by lull in this session)"]
    files = len({change.path for change in log.changes()})
    return [
        f"checkpoints: {changes} file change(s) to {files} file(s) in {len(log.turns())} "
        f"prompt(s), {stored:,} bytes stored ({log.directory}); /undo, /rewind"
    ]


def rollback_lines(agent: Agent) -> list[str]:
    """The replies the guardrails rolled back in this session (saved, never sent)."""
    rolled = agent.session.record.rollbacks
    if not rolled:
        return []
    lines = [
        f"rolled-back replies: {len(rolled)} (saved in the session file, never sent to the "
        "model; latest first):"
    ]
    lines.extend("  " + r.describe() for r in reversed(rolled[-MAX_BREAKS:]))
    return lines


def cache_break_lines(agent: Agent) -> list[str]:
    """What the cache-break detector (if attached) saw: the latest prefix changes."""
    detector = find_detector(agent.request_hooks)
    if detector is None or detector.requests < 2:
        return []
    if not detector.breaks:
        return [f"prompt cache: no prefix change in {detector.requests} requests"]
    unexpected = len(detector.unexpected)
    lines = [
        f"prompt cache: {len(detector.breaks)} prefix change(s) in {detector.requests} "
        f"requests, {unexpected} unexpected (latest first):"
    ]
    lines.extend("  " + b.describe() for b in reversed(detector.breaks[-MAX_BREAKS:]))
    return lines


def compression_lines(history: list[CompressionRecord]) -> list[str]:
    """What each compression replaced (each is an archive checkpoint the session file keeps)."""
    if not history:
        return []
    lines = ["compressions (the session file keeps every message; /context restore undoes "
             "the latest):"]  # fmt: skip
    for record in history:
        summary = record.summary
        pinned = ", critical content pinned verbatim" if summary.pinned else ""
        lines.append(
            f"  #{record.number} ({summary.reason}, {record.state}): replaced "
            f"{summary.replaced} messages (~{summary.head_tokens:,} tokens) with a summary"
            f"{pinned}; context ~{summary.tokens_before:,} -> ~{summary.tokens_after:,} tokens"
        )
    return lines


def restore(agent: Agent, argument: str = "") -> CommandResult:
    """/context restore [clears|compression|rewind]: undo every clear in force and the latest
    compression (or only one of them), or the latest /rewind of the conversation, if the
    restored context fits under the threshold."""
    scope = parse_scope(argument)
    if scope is None:
        return hint(
            f"unknown /context restore argument {argument!r}; try /context restore, "
            "/context restore clears or /context restore compression"
        )
    outcome = restore_context(agent.fitter, agent.shape(), scope, agent.clock())
    if outcome.edit is None:
        return say(outcome.line)
    return CommandResult((outcome.line,), (ContextEdited(outcome.edit, outcome.line),))


def compact(runtime: Runtime, arg: str) -> CommandResult:
    """/compact [focus]: summarise older messages now; the front end drives the stream."""
    focus = arg.strip() or None
    lines = (f"compacting the conversation (focus: {focus})",) if focus else ("compacting…",)
    return CommandResult(lines, stream=runtime.agent.compact(focus))
