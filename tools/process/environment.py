"""The environment commands started by tools get: lull's own, minus anything secret.

lull is given API keys (``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``, ...) and the user's shell
often holds more (``GITHUB_TOKEN``, ``AWS_SECRET_ACCESS_KEY``). A command the model runs
must not see them: ``env`` would put them in the session file and in front of the model.
Names listed in ``tools.envPassthrough`` (exact names or glob patterns) pass anyway.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Mapping

PROVIDER_PREFIXES = ("ANTHROPIC_", "OPENAI_")
"""lull's own provider configuration: keys, auth tokens, custom headers, base URLs (which
may carry credentials). None of it is for the commands the model runs."""

SECRET_PATTERNS = (
    "*_API_KEY",
    "*_APIKEY",
    "*_KEY",
    "*_TOKEN",
    "*_SECRET",
    "*SECRET_*",
    "*PASSWORD*",
    "*PASSWD*",
    "*_PWD",
    "*CREDENTIAL*",
    "*_AUTH",
)
"""Names (compared in upper case) that look like secrets."""


def is_secret_name(name: str) -> bool:
    """True if an environment variable called ``name`` probably holds a credential."""
    upper = name.upper()
    if upper.startswith(PROVIDER_PREFIXES):
        return True
    return any(fnmatch.fnmatchcase(upper, pattern) for pattern in SECRET_PATTERNS)


def _passes(name: str, passthrough: Iterable[str]) -> bool:
    """True if ``name`` matches one of the user's pass-through names or glob patterns."""
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in passthrough)


def tool_environment(
    passthrough: Iterable[str] = (), base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """``base`` (default: ``os.environ``) without secret-looking variables, except those
    ``passthrough`` names."""
    source = os.environ if base is None else base
    kept = tuple(passthrough)
    return {
        name: value
        for name, value in source.items()
        if not is_secret_name(name) or _passes(name, kept)
    }
