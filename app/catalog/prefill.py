"""Which models and servers continue a partial answer (a request ending with one).

Anthropic models up to the 4.5 generation continue a final assistant message (a prefill);
from Claude 4.6 on (and the 5.x families) a trailing assistant message is a 400. Unknown
names are assumed to accept it: a refusal is caught at run time and lull continues another
way. Of the OpenAI-compatible servers, vLLM and SGLang continue one when asked with
``continue_final_message``.
"""

from __future__ import annotations

import re

from lull.catalog.windows import normalize_model
from lull.model.provider import Vendor

CONTINUE_FINAL_VENDORS: frozenset[Vendor] = frozenset({"vllm", "sglang"})
"""Dialects whose servers continue a final assistant message (``continue_final_message``)."""

_CLAUDE_VERSION = re.compile(r"claude-(?:opus|sonnet|haiku)-(\d+)(?:-(\d))?(?!\d)")
_NO_PREFILL_FAMILIES = ("fable", "mythos")
NO_PREFILL_FROM = (4, 6)


def supports_prefill(model: str) -> bool:
    """Whether ``model`` (an Anthropic model name) continues a trailing assistant message."""
    name = normalize_model(model)
    if any(family in name for family in _NO_PREFILL_FAMILIES):
        return False
    match = _CLAUDE_VERSION.search(name)
    if match is None:
        return True
    major, minor = int(match.group(1)), int(match.group(2) or 0)
    return (major, minor) < NO_PREFILL_FROM
