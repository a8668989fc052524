"""The environment commands started by tools get: lull's own, minus anything secret.

lull is given API keys (``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``, ...) and the user's shell
often holds more (``GITHUB_TOKEN``, ``GH_PAT``, ``DATABASE_URL=postgres://u:pw@host/db``). A
command the model runs must not see them: ``env`` would put them in the session file and in
front of the model. A variable is withheld when

- its name is lull's own provider configuration (``ANTHROPIC_*``, ``OPENAI_*``);
- one of its name's parts (split on ``_``, compared in upper case) is a secret word
  (:data:`SECRET_PARTS`: ``KEY``, ``TOKEN``, ``PAT``, ``PRIVATE``, ``WEBHOOK``, ``AUTH``, ...),
  or the name holds a secret stem anywhere (:data:`SECRET_STEMS`: ``PASSWORD``, ``SECRET``,
  ``CREDENTIAL``, ...); whole parts only, so ``KEYBOARD_LAYOUT``, ``TOKENIZERS_PARALLELISM``,
  ``PATH`` and ``PWD`` stay;
- or its value holds a credential: a URL with a password (``scheme://user:pass@``) or a PEM
  block (``-----BEGIN``).

``SSH_AUTH_SOCK`` (:data:`KEPT`) passes: it is the path of the SSH agent's socket, not a key;
it lets a command use the agent (``git push`` over SSH signs with the user's keys, as in the
user's own shell; Claude Code passes it too) but never read a key. Names listed in
``tools.envPassthrough`` (exact names or glob patterns) pass whatever they look like.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable, Mapping

PROVIDER_PREFIXES = ("ANTHROPIC_", "OPENAI_")
"""lull's own provider configuration: keys, auth tokens, custom headers, base URLs (which
may carry credentials). None of it is for the commands the model runs."""

SECRET_PARTS = frozenset(
    {
        "KEY",
        "KEYS",
        "APIKEY",
        "TOKEN",
        "TOKENS",
        "PAT",
        "PRIVATE",
        "SECRET",
        "SECRETS",
        "PASS",
        "PASSPHRASE",
        "CREDS",
        "WEBHOOK",
        "WEBHOOKS",
        "AUTH",
        "DSN",
        "COOKIE",
    }
)
"""Name parts (between ``_``) that mark a secret: ``GH_PAT``, ``PRIVATE_KEY_PEM``, ``TOKEN``."""

SECRET_STEMS = ("PASSWORD", "PASSWD", "SECRET", "CREDENTIAL", "APIKEY", "PRIVATEKEY")
"""Stems that mark a secret anywhere in a name: ``PGPASSWORD``, ``CLIENTSECRET``."""

PWD_PART = "PWD"
"""A password in ``MYSQL_PWD``, but the working directory as the whole name ``PWD``."""

KEPT = frozenset({"SSH_AUTH_SOCK"})
"""Names that look secret but are not: the agent socket's path (see the module docstring)."""

_URL_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:]*:[^\s/?#@]*@")
_PEM = "-----BEGIN"


def is_secret_name(name: str) -> bool:
    """True if an environment variable called ``name`` probably holds a credential."""
    upper = name.upper()
    if upper in KEPT:
        return False
    if upper.startswith(PROVIDER_PREFIXES):
        return True
    if any(stem in upper for stem in SECRET_STEMS):
        return True
    parts = [part for part in upper.split("_") if part]
    if any(part in SECRET_PARTS for part in parts):
        return True
    return PWD_PART in parts and len(parts) > 1


def is_secret_value(value: str) -> bool:
    """True if ``value`` holds a credential: a URL with a password or a PEM block."""
    return _PEM in value or _URL_PASSWORD.search(value) is not None


def _passes(name: str, passthrough: Iterable[str]) -> bool:
    """True if ``name`` matches one of the user's pass-through names or glob patterns."""
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in passthrough)


def tool_environment(
    passthrough: Iterable[str] = (), base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """``base`` (default: ``os.environ``) without secret-looking variables (by name or by
    value), except those ``passthrough`` names."""
    source = os.environ if base is None else base
    kept = tuple(passthrough)
    return {
        name: value
        for name, value in source.items()
        if not (is_secret_name(name) or is_secret_value(value)) or _passes(name, kept)
    }


def withheld_names(
    passthrough: Iterable[str] = (), base: Mapping[str, str] | None = None
) -> list[str]:
    """The names of ``base``'s variables (default: ``os.environ``) that
    :func:`tool_environment` withholds: a command started elsewhere (an editor's terminal)
    gets them set empty."""
    source = os.environ if base is None else base
    kept = tool_environment(passthrough, source)
    return sorted(name for name in source if name not in kept)
