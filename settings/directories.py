"""``permissions.additionalDirectories`` (Claude Code's key, and ``--add-dir DIR``): folders
beyond the workspace that tools may read and edit as if they were in it.

Each entry keeps the file (or flag) it came from: a project file's entries widen what tools
may touch, so they apply only once the user trusts the workspace (``/trust``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from lull.settings.checks import Check, Invalid

_PATH_PATTERN = "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"
"""Not blank, no NUL: what the loader takes as a path, said in the schema too."""


@dataclass(frozen=True, slots=True)
class AddedDirectory:
    """One added folder as written (``~`` and paths relative to the workspace allowed), where
    it came from, and whether that is a project file (then it waits for trust)."""

    path: str
    source: str = ""
    project: bool = False


@dataclass(frozen=True)
class DirectoryList(Check):
    """A list of folder paths; the message names the entry that is wrong."""

    @property
    def expected(self) -> str:
        """What the setting accepts, in words."""
        return "a list of directory paths"

    def accepts(self, value: object) -> object:
        """A tuple of :class:`AddedDirectory` (source and scope are set by :meth:`stamped`)."""
        if not isinstance(value, list | tuple):
            raise self.fail()
        found: list[AddedDirectory] = []
        for index, item in enumerate(value):
            if isinstance(item, AddedDirectory):
                found.append(item)
            elif isinstance(item, str) and item.strip() and "\0" not in item:
                found.append(AddedDirectory(item.strip()))
            else:
                raise Invalid(f"{self.describe()}; entry {index} ({item!r}) is not a path")
        return tuple(found)

    def parse_value(self, text: str) -> object:
        """One path per flag (``--add-dir`` repeats)."""
        return [text]

    def value_schema(self) -> dict[str, Any]:
        """An array of path strings."""
        return {"type": "array", "items": {"type": "string", "pattern": _PATH_PATTERN}}

    def to_json(self, value: object) -> object:
        """The paths as written."""
        if not isinstance(value, tuple):
            return value
        return [entry.path if isinstance(entry, AddedDirectory) else entry for entry in value]

    def stamped(self, value: object, source: str, project: bool) -> object:
        """The entries marked with the file (or flag) they came from."""
        if not isinstance(value, tuple):
            return value
        return tuple(
            replace(entry, source=source, project=project)
            if isinstance(entry, AddedDirectory)
            else entry
            for entry in value
        )
