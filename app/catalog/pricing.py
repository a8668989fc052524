"""Model prices and what a request or a session cost, in US dollars.

Prices are USD per million tokens, from the providers' pricing pages (November 2026; verify
before relying on them for billing). Tiered prices (Haiku 5.5 above 100k prompt tokens, Qwen
above 32k, DeepSeek off-peak) are not modelled: the table holds the base tier. The ``pricing``
setting overrides or adds models ("MODEL=INPUT/OUTPUT[/CACHE_READ[/CACHE_WRITE[/CACHE_WRITE_1H]]]").

A table key matches a model whose name contains it (any case), unless the key is followed by
a digit or a dot there ("gpt-5" prices "gpt-5-mini-2025" but not "gpt-5.4"); the longest
matching key wins, and overrides win over the table.

A model served from this machine or a private network (``local``) costs nothing unless the
``pricing`` setting names it: it runs on the user's own hardware, and local servers report
whatever name they like (llama-server answers as "gpt-3.5-turbo"). A local proxy to a paid API
is priced by a ``pricing`` entry.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from lull.model.provider import Usage

PER_TOKENS = 1_000_000
READ_FACTOR = 0.1
WRITE_FACTOR = 1.25
WRITE_1H_FACTOR = 2.0


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """USD per million tokens: uncached input, output, cache read, 5-minute and 1-hour writes."""

    input: float
    output: float
    cache_read: float
    cache_write: float
    cache_write_1h: float


def price(
    input: float,
    output: float,
    read: float | None = None,
    write: float | None = None,
    write_1h: float | None = None,
) -> ModelPrice:
    """A price with the usual cache multipliers (0.1x read, 1.25x / 2x write) where not given."""
    return ModelPrice(
        input,
        output,
        round(input * READ_FACTOR, 6) if read is None else read,
        round(input * WRITE_FACTOR, 6) if write is None else write,
        round(input * WRITE_1H_FACTOR, 6) if write_1h is None else write_1h,
    )


def _no_write_premium(input: float, output: float, read: float) -> ModelPrice:
    """Vendors that bill cache misses as plain input (OpenAI before 5.6, DeepSeek, Kimi, Qwen)."""
    return ModelPrice(input, output, read, input, input)


_CLAUDE: dict[str, ModelPrice] = {
    "fable-5-1": price(10, 50, read=0.25),
    "mythos-5-1": price(10, 50, read=0.25),
    "fable": price(10, 50, read=1.0),
    "mythos": price(10, 50, read=1.0),
    "opus-5-5": price(4, 20, read=0.20),
    "opus": price(5, 25),  # Opus 4.5 - 5
    "opus-4-1": price(15, 75),
    "opus-4-0": price(15, 75),
    "claude-opus-4-20250514": price(15, 75),
    "3-opus": price(15, 75),
    "sonnet-5-5": price(2, 10, read=0.10),
    "sonnet-5": price(2, 10, read=0.20),
    "sonnet": price(3, 15),  # Sonnet 3.5 - 4.6
    "haiku-5-5": price(0.10, 0.50, read=0.01),
    "haiku": price(1, 5),  # Haiku 4.5
    "haiku-3-5": price(0.80, 4),
    "3-5-haiku": price(0.80, 4),
    "3-haiku": price(0.25, 1.25, read=0.03, write=0.30, write_1h=0.50),
}
_OPENAI: dict[str, ModelPrice] = {
    "gpt-5.5": _no_write_premium(5, 30, 0.50),
    "gpt-5.5-pro": _no_write_premium(30, 180, 30),
    "gpt-5.4": _no_write_premium(2.50, 15, 0.25),
    "gpt-5.4-mini": _no_write_premium(0.75, 4.50, 0.075),
    "gpt-5.4-nano": _no_write_premium(0.20, 1.25, 0.02),
    "gpt-5.2": _no_write_premium(1.75, 14, 0.175),
    "gpt-5.1": _no_write_premium(1.25, 10, 0.125),
    "gpt-5": _no_write_premium(1.25, 10, 0.125),
    "gpt-5-mini": _no_write_premium(0.25, 2, 0.025),
    "gpt-5-nano": _no_write_premium(0.05, 0.40, 0.005),
}
_OTHERS: dict[str, ModelPrice] = {
    "deepseek-chat": _no_write_premium(0.28, 0.42, 0.028),
    "deepseek-reasoner": _no_write_premium(0.28, 0.42, 0.028),
    "kimi-k2": _no_write_premium(0.60, 2.50, 0.15),
    "kimi-k2-turbo": _no_write_premium(1.15, 8, 0.15),
    "qwen3-coder-plus": _no_write_premium(1, 5, 0.20),
    "qwen3-coder-flash": _no_write_premium(0.30, 1.50, 0.06),
    "qwen3-max": _no_write_premium(1.20, 6, 0.24),
    "qwen-plus": _no_write_premium(0.40, 1.20, 0.08),
}
PRICES: dict[str, ModelPrice] = {**_CLAUDE, **_OPENAI, **_OTHERS}
FREE = ModelPrice(0.0, 0.0, 0.0, 0.0, 0.0)
"""The price of an unpriced model on a local endpoint."""


def parse_price(text: str) -> tuple[str, ModelPrice]:
    """One ``pricing`` entry ("MODEL=IN/OUT[/READ[/WRITE[/WRITE_1H]]]", already checked by the
    settings loader) as the model key and its price."""
    model, _, prices = text.strip().partition("=")
    return model, price(*(float(p) for p in prices.split("/")))


def parse_overrides(entries: Iterable[str]) -> dict[str, ModelPrice]:
    """The ``pricing`` setting's entries as key -> price."""
    return dict(parse_price(entry) for entry in entries)


def _matches(key: str, name: str) -> bool:
    """Whether table key ``key`` names model ``name`` (see the module docstring)."""
    start = name.find(key)
    while start >= 0:
        after = name[start + len(key) : start + len(key) + 1]
        if not (after.isdigit() or after == "."):
            return True
        start = name.find(key, start + 1)
    return False


def _lookup(table: dict[str, ModelPrice], name: str) -> ModelPrice | None:
    keys = [key for key in table if _matches(key.lower(), name)]
    return table[max(keys, key=len)] if keys else None


def price_for(
    model: str, overrides: Sequence[str] = (), *, local: bool = False
) -> ModelPrice | None:
    """The price of ``model``: an override first, then $0 on a ``local`` endpoint, then the
    table; None if unknown."""
    name = model.lower()
    override = _lookup(parse_overrides(overrides), name)
    if override is not None:
        return override
    return FREE if local else _lookup(PRICES, name)


def cost_of(usage: Usage, rates: ModelPrice) -> float:
    """What ``usage`` costs at ``rates``, in USD (reasoning is part of output already)."""
    write_5m = max(usage.cache_write - usage.cache_write_1h, 0)
    total = (
        usage.input * rates.input
        + usage.output * rates.output
        + usage.cache_read * rates.cache_read
        + write_5m * rates.cache_write
        + usage.cache_write_1h * rates.cache_write_1h
    )
    return total / PER_TOKENS


def cost_usd(
    usage: Usage, model: str, overrides: Sequence[str] = (), *, local: bool = False
) -> float | None:
    """What ``usage`` of ``model`` costs in USD, or None when the model's price is unknown.

    Works for one request and for a session total alike (cost is linear in tokens).
    ``overrides`` is the ``pricing`` setting (``settings.pricing``); ``local`` says the
    endpoint is on this machine or network (see :func:`price_for`).
    """
    rates = price_for(model, overrides, local=local)
    return None if rates is None else cost_of(usage, rates)


def cost_by_model(
    usage: Mapping[str, Usage], overrides: Sequence[str] = (), *, local: bool = False
) -> float | None:
    """What a session's usage, kept per model, costs in USD; None when any model that was
    used has no known price (a partial sum would look like the whole bill)."""
    total = 0.0
    for model, used in usage.items():
        cost = cost_usd(used, model, overrides, local=local)
        if cost is None:
            return None
        total += cost
    return total
