"""What a request of a ``-p`` run cost (for its ``result`` and lull's ``request`` lines)."""

from __future__ import annotations

from collections.abc import Sequence

from lull.catalog.pricing import FREE, cost_usd, price_for
from lull.model.events import RequestFinished
from lull.model.provider import Usage


def request_cost(
    event: RequestFinished, pricing: Sequence[str], *, local: bool = False
) -> float | None:
    """What one request cost; None when its price or its usage is unknown (a server that
    reports no usage has not told us what it counted)."""
    return usage_cost(event.usage, event.model, pricing, local=local)


def usage_cost(
    usage: Usage, model: str, pricing: Sequence[str], *, local: bool = False
) -> float | None:
    """What ``usage`` of ``model`` cost; None when its price or the usage is unknown (a
    model that costs nothing costs $0 whether or not its server reports usage)."""
    if not usage.reported:
        return 0.0 if price_for(model, pricing, local=local) == FREE else None
    return cost_usd(usage, model, pricing, local=local)
