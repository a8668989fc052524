"""Reading one settings file: a JSON object, or one clear line saying why it is ignored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class FileProblem(Exception):
    """The file cannot be used at all; the message names the file (and line:col)."""


def read_json_object(path: Path) -> dict[str, Any] | None:
    """Return the file's top-level object, or None when the file does not exist.

    An empty (or blank) file counts as ``{}``. Raises :class:`FileProblem` when
    the file cannot be read, is not JSON, or its top level is not an object.
    """
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise FileProblem(f"{path}: is a directory, not a settings file; ignored") from None
    except UnicodeDecodeError as exc:
        raise FileProblem(
            f"{path}: not UTF-8 text (bad byte at offset {exc.start}); this file is ignored"
        ) from None
    except OSError as exc:
        raise FileProblem(f"{path}: cannot read ({exc.strerror}); this file is ignored") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileProblem(
            f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}{_hint(exc)}; "
            "this file is ignored"
        ) from None
    except (ValueError, RecursionError) as exc:  # e.g. a 5000-digit number, 10^5 nested [
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise FileProblem(f"{path}: invalid JSON: {reason}; this file is ignored") from None
    if not isinstance(data, dict):
        raise FileProblem(
            f"{path}: expected a JSON object at the top level, got {_kind(data)}; "
            "this file is ignored"
        )
    return data


def _hint(exc: json.JSONDecodeError) -> str:
    """A short hint for the two mistakes JSON users make most: comments, trailing commas."""
    rest = exc.doc[exc.pos : exc.pos + 2]
    if rest in ("//", "/*") or rest.startswith("#"):
        return " (comments are not allowed in JSON)"
    before = exc.doc[: exc.pos].rstrip()
    if before.endswith(",") and rest[:1] in ("}", "]"):
        return " (trailing comma?)"
    return ""


def _kind(value: object) -> str:
    """Name a JSON value's type the way a JSON user would ("an array")."""
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"
