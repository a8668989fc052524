"""The context steps the fitter runs besides compression itself: the light step, and what a
summary pins verbatim and keeps in most detail. Small functions over the session, so
``fit.py`` only says *when* (``context/stages.py`` decides) and calls them."""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Sequence

from lull.catalog.pricing import price_for
from lull.context.light import MIN_SHARE, plan_light
from lull.context.masking import (
    ANTHROPIC_WRITE_PER_READ,
    MaskingPolicy,
    MaskingState,
    plan_masking,
)
from lull.context.media import describe_media, plan_media_window
from lull.context.notes import notes_from
from lull.context.pinning import pinned_block
from lull.context.tiers import calls_by_id, current_reads, file_path, unresolved_errors
from lull.context.tokens import TokenCounter
from lull.engine.sessions.session import Session
from lull.model.edits import Restore
from lull.model.events import ContextEdited, Event
from lull.model.messages import Message, ToolResult

log = logging.getLogger("lull.compress")


def light_step(
    session: Session, view: Sequence[Message], counter: TokenCounter, now: float, prompt: int
) -> list[Event]:
    """Replace superseded tool outputs of ``view`` by pointers: one recorded edit, no model
    call; none when what it frees is under :data:`MIN_SHARE` of the ``prompt`` (local tokens)."""

    def saving(result: ToolResult, pointer: str) -> int:
        replaced = ToolResult(result.call_id, result.name, pointer, result.is_error, True)
        return counter.part(result) - counter.part(replaced)

    edit = plan_light(view, saving, at=now, min_saving=int(MIN_SHARE * prompt))
    if edit is None:
        log.info("light step: nothing superseded worth a cache rewrite")
        return []
    session.add_edit(edit)
    line = (
        f"light step: replaced {len(edit.call_ids)} superseded tool output(s) with pointers "
        f"(~{edit.tokens_saved:,} tokens)"
    )
    log.info(line)
    return [ContextEdited(edit, line)]


def masking_step(
    session: Session,
    view: Sequence[Message],
    state: MaskingState,
    policy: MaskingPolicy,
    compactable: Collection[str],
    saving: Callable[[ToolResult], int],
    now: float,
) -> list[Event]:
    """Masking inside a turn: one recorded edit when a batch pays (``context/masking.py``)."""
    plan = plan_masking(view, state, policy, compactable, saving, now)
    if plan is None:
        return []
    session.add_edit(plan.edit)
    line = plan.describe()
    log.info(line)
    return [ContextEdited(plan.edit, line)]


def write_per_read(model: str) -> float:
    """The cache write price over the cache read price for ``model`` (Anthropic's when the
    price is unknown)."""
    rates = price_for(model)
    if rates is None or rates.cache_read <= 0 or rates.cache_write <= 0:
        return ANTHROPIC_WRITE_PER_READ
    return rates.cache_write / rates.cache_read


def media_step(session: Session, keep: int, now: float) -> list[Event]:
    """The media window: clear the images of all but the newest ``keep`` messages with
    images (one recorded edit; none when nothing is older)."""
    edit = plan_media_window(session.view(), keep, now)
    if edit is None:
        return []
    session.add_edit(edit)
    line = describe_media(edit)
    log.info(line)
    return [ContextEdited(edit, line)]


def cold_since(session: Session, ttl_minutes: float, now: float) -> bool:
    """Whether the prompt cache has gone cold: no response yet, or an idle gap of at least
    ``ttl_minutes`` since the last one, not counting a gap a /context restore started afresh
    (a restore is not undone by the next request)."""
    last = session.last_response_at
    if last is None:
        return True
    if any(isinstance(e, Restore) and e.at > last for e in session.edits):
        return False
    return now - last >= ttl_minutes * 60


def pinned_for(
    session: Session, through_id: str, limit_result: Callable[[ToolResult], ToolResult]
) -> str:
    """The verbatim block of a summary through ``through_id``: the critical content of the
    transcript up to there (``context/pinning.py``); errors as the model sees them."""
    transcript = session.transcript
    ids = [m.id for m in transcript]
    prefix = transcript[: ids.index(through_id) + 1] if through_id in ids else transcript
    return pinned_block(prefix, unresolved_errors(transcript), notes_from(prefix), limit_result)


def worked_on(view: Sequence[Message]) -> tuple[str, ...]:
    """Files whose latest read is important (written or edited, read since): the summary
    keeps the most detail on them."""
    calls = calls_by_id(view)
    paths = (file_path(calls[i]) for i in current_reads(view) if i in calls)
    return tuple(sorted({p for p in paths if p is not None}))
