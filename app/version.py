"""lull's version: read from the installed package's metadata, never written twice.

The metadata folder's name holds the version (``lullcode-0.1.0.dist-info``), so finding it
on ``sys.path`` answers ``lull --version`` without importing :mod:`importlib.metadata` (20 ms
of imports); where no such folder is found the metadata API decides.
"""

from __future__ import annotations

import os
import sys

DISTRIBUTION = "lullcode"
_FOLDER_START, _FOLDER_END = f"{DISTRIBUTION}-", ".dist-info"
_found: list[str] = []


def version() -> str:
    """The installed version of lull (``0+unknown`` when run from a tree that is not
    installed)."""
    if not _found:
        _found.append(_from_folder_name() or _from_metadata())
    return _found[0]


def _from_folder_name() -> str | None:
    """The version in the name of the first ``lullcode-*.dist-info`` folder on ``sys.path``."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.startswith(_FOLDER_START) and name.endswith(_FOLDER_END):
                return name[len(_FOLDER_START) : -len(_FOLDER_END)]
    return None


def _from_metadata() -> str:
    from importlib import metadata

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "0+unknown"
