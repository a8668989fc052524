"""Build the JSON Schema for settings files from the catalogue in :mod:`settings.fields`.

``settings/schema.json`` is this schema written out (a test keeps the two equal);
regenerate it with ``python -m settings.schema > settings/schema.json``. The README's table
of what a project file may set comes from here too (``python -m settings.schema
--project-table``; a test keeps it equal to the README).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from settings.fields import FIELDS, GROUPS, get_value
from settings.model import Settings
from settings.trust import rule_text, schema_sentence

SCHEMA_PATH = Path(__file__).with_name("schema.json")
DRAFT = "https://json-schema.org/draft/2020-12/schema"
PROJECT_KEYWORD = "x-lull-project"
"""Each key's rule for project files: "yes", "narrow" (only stricter) or "no" (user only)."""


def _object(description: str) -> dict[str, Any]:
    """An empty closed object schema with a description."""
    return {
        "type": "object",
        "description": description,
        "additionalProperties": False,
        "properties": {},
    }


def build_schema() -> dict[str, Any]:
    """The draft 2020-12 schema of a settings file, with every key's type, default and range."""
    root = _object("Settings for lull, the terminal coding assistant.")
    root = {"$schema": DRAFT, "title": "lull settings", **root}
    root["properties"]["$schema"] = {
        "type": "string",
        "description": "URL or path of this schema, for editors.",
    }
    for key, description in GROUPS.items():
        _parent(root, key)["properties"][key.rsplit(".", 1)[-1]] = _object(description)
    defaults = Settings()
    for key, spec in FIELDS.items():
        default = get_value(defaults, key)
        leaf = {
            **spec.check.schema(),
            "default": list(default) if isinstance(default, tuple) else default,
            "description": spec.description,
        }
        if spec.env:
            leaf["description"] += f" Environment override: {spec.env}."
        leaf["description"] += " " + schema_sentence(spec)
        leaf[PROJECT_KEYWORD] = spec.project
        _parent(root, key)["properties"][key.rsplit(".", 1)[-1]] = leaf
    return root


def _parent(root: dict[str, Any], key: str) -> dict[str, Any]:
    """The object schema that holds the last segment of a dotted key."""
    node = root
    for part in key.split(".")[:-1]:
        node = node["properties"][part]
    return node


def render() -> str:
    """The schema as the exact text of ``schema.json``."""
    return json.dumps(build_schema(), indent=2, ensure_ascii=False) + "\n"


def project_table() -> str:
    """The README's table: every key and what a project file may do with it."""
    lines = ["| key | in `.lull/settings.json` |", "|---|---|"]
    lines.extend(f"| `{key}` | {rule_text(spec)} |" for key, spec in FIELDS.items())
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(project_table() if "--project-table" in sys.argv[1:] else render(), end="")
