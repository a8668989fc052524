"""Hypothesis strategies shared by the property tests: valid conversation histories.

A history is user turns; each is a prompt, tool steps (an assistant message with one to three
calls, then every call's result, batched in one user message or one per message) and maybe a
final answer (none: the turn was cut off in its tool loop). What goes into the calls, results,
prompts and answers is each test's own (its strategies are the keyword arguments).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from hypothesis import strategies as st

from lull.model.messages import Message, Part, Text, ToolCall, ToolResult

Ids = Iterator[int]
"""Where call ids come from: one counter for a whole history."""

NO_ARGUMENTS: st.SearchStrategy[Mapping[str, Any]] = st.builds(dict)
NOTHING_SAID: st.SearchStrategy[list[Part]] = st.builds(list)


@st.composite
def tool_step(
    draw: st.DrawFn,
    ids: Ids,
    *,
    names: st.SearchStrategy[str],
    answer: Callable[[ToolCall], st.SearchStrategy[ToolResult]],
    arguments: st.SearchStrategy[Mapping[str, Any]] = NO_ARGUMENTS,
    prefix: st.SearchStrategy[list[Part]] = NOTHING_SAID,
    provider: str | None = None,
) -> list[Message]:
    """An assistant message (``prefix`` parts, then one to three calls named from ``names``,
    ids ``call_N`` from ``ids``) and ``answer(call)`` for each call, batched or one per message."""
    calls = [
        ToolCall(f"call_{next(ids)}", draw(names), dict(draw(arguments)))
        for _ in range(draw(st.integers(1, 3)))
    ]
    parts = (*draw(prefix), *calls)
    messages = [Message("assistant", parts, origin="model", provider=provider)]
    answers = [draw(answer(c)) for c in calls]
    if draw(st.booleans()):
        messages.append(Message("user", tuple(answers), origin="tool"))
    else:
        messages += [Message("user", (a,), origin="tool") for a in answers]
    return messages


@st.composite
def histories(
    draw: st.DrawFn,
    *,
    turns: st.SearchStrategy[int],
    prompts: st.SearchStrategy[str],
    steps: st.SearchStrategy[int],
    step: Callable[[Ids], st.SearchStrategy[list[Message]]],
    answers: st.SearchStrategy[Message | None],
) -> list[Message]:
    """A valid history of ``turns`` turns: a prompt, ``steps`` tool steps (``step(ids)``, the
    call ids counted across the history) and an answer (None: cut off in its tool loop)."""
    ids = itertools.count()
    history: list[Message] = []
    for _ in range(draw(turns)):
        history.append(Message("user", (Text(draw(prompts)),)))
        for _ in range(draw(steps)):
            history += draw(step(ids))
        answer = draw(answers)
        if answer is not None:
            history.append(answer)
    return history
