"""lull's version: read from the installed package's metadata, never written twice."""

from __future__ import annotations

from functools import cache

DISTRIBUTION = "lullcode"


@cache
def version() -> str:
    """The installed version of lull (``0+unknown`` when run from a tree that is not
    installed)."""
    from importlib import metadata

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "0+unknown"
