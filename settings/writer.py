"""Writing a few keys into a settings file, keeping everything else that is in it.

Used when the user picks a local model server in the first-run setup: the choice goes to
the *user* settings file (never a project's ``.lull/settings.json``). The file is read,
the keys are set, and the result replaces the file atomically, so a crash leaves either
the old or the new file. A file lull cannot read as JSON is left alone: nothing of it is
lost, and the message says what to fix.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lull.settings.fields import FIELDS
from lull.settings.jsonfile import FileProblem, read_json_object


class WriteProblem(Exception):
    """Nothing was written; the message is one line naming the file and why."""


def save_settings(values: Mapping[str, Any], path: Path) -> Path:
    """Set the dotted keys of ``values`` ("model.baseUrl") in the settings file at ``path``,
    merged with what it holds; returns ``path``. Raises :class:`WriteProblem`."""
    unknown = sorted(key for key in values if key not in FIELDS)
    if unknown:
        raise ValueError(f"not settings keys: {', '.join(unknown)}")
    try:
        data = read_json_object(path) or {}
    except FileProblem as problem:
        reason = str(problem).removesuffix("; this file is ignored").removesuffix("; ignored")
        raise WriteProblem(f"not saved: {reason}; fix the file, then choose again") from None
    for key, value in values.items():
        _set(data, key, value, path)
    replace_file(path, dump_json(data))
    return path


def _set(data: dict[str, Any], key: str, value: Any, path: Path) -> None:
    """Set dotted ``key`` in ``data``, creating objects on the way (never replacing a value
    that is not one)."""
    *groups, leaf = key.split(".")
    node = data
    for depth, group in enumerate(groups):
        child = node.setdefault(group, {})
        if not isinstance(child, dict):
            where = ".".join(groups[: depth + 1])
            raise WriteProblem(
                f"not saved: {path}: {where} is not an object; fix it, then choose again"
            )
        node = child
    node[leaf] = value


def dump_json(data: dict[str, Any]) -> bytes:
    """The file's new bytes: readable UTF-8, or escapes where a string cannot be UTF-8."""
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a \ud800 escape: keep it escaped
        return (json.dumps(data, indent=2) + "\n").encode("ascii")


def replace_file(path: Path, content: bytes) -> None:
    """Write ``content`` to a temporary file next to ``path``, then rename it over ``path``
    (keeping the old file's permissions)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else None
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)  # umask applies
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except OSError as error:
        with contextlib.suppress(OSError):
            temporary.unlink()
        reason = error.strerror or str(error)
        raise WriteProblem(f"not saved: {path}: cannot write ({reason})") from None
