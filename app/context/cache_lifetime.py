"""A cache lifetime per block: where the stable part ends, and when the one-hour cache pays.

Anthropic accepts one-hour and five-minute markers in one request (the longer ones first). lull
splits a prompt in two: the **stable part** — tools, system prompt, environment and the
conversation through the latest user message, which only a rewrite on a cold cache changes —
and the **moving tail** after it (the current turn's tool loop). The tail always lives five
minutes. With ``context.cache.ttl: "auto"`` the stable part goes on the one-hour cache for a
stretch of work (the requests between two pauses of five minutes or more) when the pauses seen
so far and the prices make it pay (:func:`stable_lifetime`).

The trade, per token of the prompt and in multiples of the input price (read r = 0.1, 5-minute
write w5 = 1.25, one-hour write w1 = 2 for Claude), with f the share idle cleanup frees after
a pause, l the share the last turn added after its user message and n the requests of a
stretch (averages over the pauses seen):

* the next pause lasts 5-60 minutes (share p of the pauses of 5 minutes or more): with five
  minutes the cache is cold, the cleaned prompt is written again and read by the next
  stretch, ``(1 - f) (w5 + n r)``; with one hour the stable part is read, the last turn's tool
  loop written again, and the next stretch reads the uncleaned prompt,
  ``(1 - l) r + l w5 + n r``;
* a longer pause: cold either way;
* starting the stretch on a cold cache costs the one-hour premium on the whole stable part,
  ``w1 - w5``.

The premium is paid once: the stretches after it start on a warm one-hour cache. So one hour
is chosen when ``p`` times the saving over the pauses still ahead beats that premium; as many
pauses are expected ahead as were seen (at most :data:`PAUSES_AHEAD`). Pure functions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lull.catalog.cache_policy import TTL_MINUTES
from lull.catalog.pricing import READ_FACTOR, WRITE_1H_FACTOR, WRITE_FACTOR, ModelPrice
from lull.model.messages import Message, Text
from lull.model.provider import SHORT_TTL, CacheTtl

SHORT_MINUTES = TTL_MINUTES["5m"]
LONG_MINUTES = TTL_MINUTES["1h"]
PAUSES_AHEAD = 3
"""The most pauses of five minutes or more a session is assumed to have ahead."""


@dataclass(frozen=True, slots=True)
class CachePrices:
    """Cache prices as multiples of the uncached input price."""

    read: float = READ_FACTOR
    write: float = WRITE_FACTOR
    write_1h: float = WRITE_1H_FACTOR


def cache_prices(price: ModelPrice | None) -> CachePrices:
    """The multiples for a model's price (the usual Claude ones when unknown or free)."""
    if price is None or price.input <= 0:
        return CachePrices()
    return CachePrices(
        price.cache_read / price.input,
        price.cache_write / price.input,
        price.cache_write_1h / price.input,
    )


@dataclass(frozen=True, slots=True)
class Pause:
    """A pause before a user message: its length (minutes) and, at that moment, the shares of
    the prompt idle cleanup would free (``clearable``) and the last turn had added after its
    user message (``last_turn``)."""

    minutes: float
    clearable: float = 0.0
    last_turn: float = 0.0


def stable_lifetime(
    pauses: Sequence[Pause],
    requests_per_stretch: float,
    prices: CachePrices = CachePrices(),
    *,
    cold_now: bool = True,
) -> CacheTtl:
    """The stable part's lifetime for the stretch starting now under ``auto`` (see the module
    docstring); ``cold_now``: nothing of the conversation is cached, so choosing one hour
    pays its premium on the whole stable part now."""
    counted = [p for p in pauses if p.minutes >= SHORT_MINUTES]
    medium = [p for p in counted if p.minutes < LONG_MINUTES]
    if not medium:
        return SHORT_TTL
    f = _mean(min(max(p.clearable, 0.0), 1.0) for p in counted)
    share = _mean(min(max(p.last_turn, 0.0), 1.0) for p in counted)
    n = max(requests_per_stretch, 0.0)
    short_cost = (1 - f) * (prices.write + n * prices.read)
    long_cost = (1 - share) * prices.read + share * prices.write + n * prices.read
    ahead = min(len(counted), PAUSES_AHEAD)
    saving = ahead * len(medium) / len(counted) * (short_cost - long_cost)
    premium = prices.write_1h - prices.write if cold_now else 0.0
    return "1h" if saving > premium else SHORT_TTL


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return sum(items) / len(items) if items else 0.0


def stable_end(messages: Sequence[Message]) -> int:
    """How many leading messages form the conversation's stable part: through the latest user
    message with text (a prompt, a summary; tool results alone are the moving tail). 0 when
    there is none."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role == "user" and any(isinstance(p, Text) and p.text for p in message.parts):
            return index + 1
    return 0
