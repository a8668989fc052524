"""The pinned block of a summary: the critical content of the part it replaces, verbatim.

A compression may summarise standard and important content, never critical content
(``tiers.py``). What the user typed, the error results not yet followed by a success and
the session notes are therefore quoted word for word after the summary text. The block is
computed from the transcript up to the end of the summarised part, so it carries over
everything earlier summaries pinned, and an error fixed since is no longer pinned.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence

from lull.context.notes import Note, is_note_message, render_notes
from lull.context.tiers import calls_by_id, target
from lull.model.messages import Message, Text, ToolResult

PINNED_HEADING = "## Kept verbatim (never summarised)"
_ATTACHMENT = re.compile(r"\n\nContents of [^\n]+:\n`{3,}")


def typed_text(message: Message) -> str:
    """What the user typed in ``message``: its text without the files ``@path`` attached."""
    text = "".join(p.text for p in message.parts if isinstance(p, Text))
    found = _ATTACHMENT.search(text)
    if found is None:
        return text
    names = re.findall(r"\n\nContents of ([^\n]+):\n`{3,}", text[found.start() :])
    return text[: found.start()] + f"\n[attached: {', '.join(names)}]"


def user_prompts(prefix: Sequence[Message]) -> list[str]:
    """The texts the user typed in ``prefix``, oldest first (notes are listed apart)."""
    return [
        typed
        for m in prefix
        if m.origin == "user" and m.is_user_prompt and not is_note_message(m)
        if (typed := typed_text(m).strip())
    ]


def pinned_block(
    prefix: Sequence[Message],
    unresolved: Collection[str],
    notes: dict[str, Note],
    shorten: Callable[[ToolResult], ToolResult] = lambda result: result,
) -> str:
    """The Markdown block pinned after a summary of ``prefix`` ("" when nothing is critical).

    ``unresolved`` are the call ids of error results without a later success (over the whole
    conversation); ``shorten`` applies the per-result token limit the model sees them with.
    """
    sections: list[str] = []
    prompts = user_prompts(prefix)
    if prompts:
        quoted = "\n\n".join(_quote(f"{n}. {text}") for n, text in enumerate(prompts, 1))
        sections.append(f"### What the user wrote (oldest first)\n{quoted}")
    errors = _errors(prefix, unresolved, shorten)
    if errors:
        sections.append("### Errors not fixed yet\n" + "\n\n".join(errors))
    if notes:
        sections.append("### Session notes\n" + "\n".join(render_notes(notes)))
    if not sections:
        return ""
    return PINNED_HEADING + "\n" + "\n\n".join(sections)


def _errors(
    prefix: Sequence[Message],
    unresolved: Collection[str],
    shorten: Callable[[ToolResult], ToolResult],
) -> list[str]:
    calls = calls_by_id(prefix)
    lines = []
    for message in prefix:
        for result in message.tool_results:
            if result.call_id not in unresolved or not result.is_error:
                continue
            call = calls.get(result.call_id)
            what = target(call) if call is not None else result.name
            content = shorten(result).content
            lines.append(f"{result.name} ({what}, call {result.call_id}):\n{_quote(content)}")
    return lines


def _quote(text: str) -> str:
    """``text`` as a Markdown quote, every line kept as it is."""
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))
