"""The effective settings as rows of (key, value, source), for a ``/settings`` command."""

from __future__ import annotations

import json

from lull.settings.fields import FIELDS, get_value
from lull.settings.loader import LoadedSettings


def effective_rows(loaded: LoadedSettings) -> list[tuple[str, str, str]]:
    """Every setting in catalogue order: dotted key, value as JSON, and its source.

    The source is a file path, ``"env LULL_..."``, a flag, or ``"default"``, followed by a
    note when a project file's value was ignored or narrowed
    (``"/home/me/.config/lull/settings.json; /repo/.lull/settings.json ignored"``).
    """
    rows = []
    for key in FIELDS:
        value = FIELDS[key].check.to_json(get_value(loaded.settings, key))
        source = loaded.sources.get(key, "default")
        note = loaded.overruled.get(key)
        rows.append(
            (key, json.dumps(value, ensure_ascii=False), f"{source}; {note}" if note else source)
        )
    return rows
