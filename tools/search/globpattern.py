"""Glob patterns (``*``, ``?``, ``[...]``, ``{a,b}``, ``**``) compiled to regular expressions."""

from __future__ import annotations

import re
from functools import lru_cache


def _class(body: str) -> str:
    """A ``[...]`` glob class as a regex class (``!`` negates)."""
    negate = body.startswith("!")
    body = body[1:] if negate else body
    body = body.replace("\\", "\\\\")
    return f"[{'^' if negate else ''}{body}]"


def _translate(pattern: str) -> str:
    """The regex source for ``pattern`` (no anchors)."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and (end := pattern.find("]", i + 2)) != -1:
            out.append(_class(pattern[i + 1 : end]))
            i = end
        elif char == "{" and (end := pattern.find("}", i + 1)) != -1:
            alternatives = pattern[i + 1 : end].split(",")
            out.append("(?:" + "|".join(_translate(alt) for alt in alternatives) + ")")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


@lru_cache(maxsize=64)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """Compile a glob for matching whole ``/``-separated relative paths.

    ``*`` and ``?`` stay within one path segment; ``**`` crosses segments and
    ``**/`` also matches no directory at all (``**/*.py`` matches ``a.py``).
    """
    return re.compile(_translate(pattern) + r"\Z", re.DOTALL)


def glob_matches(pattern: str, relative_path: str) -> bool:
    """True if ``relative_path`` matches ``pattern``; a pattern without ``/`` matches the name."""
    target = relative_path if "/" in pattern else relative_path.rsplit("/", 1)[-1]
    return compile_glob(pattern).match(target) is not None
