"""Rows for a /settings command: every key, its JSON value and where it came from."""

from __future__ import annotations

import json

from lull.settings.describe import effective_rows
from lull.settings.fields import FIELDS
from tests.unit.settings.conftest import Home


def test_rows_cover_every_key_with_json_values_and_sources(home: Home) -> None:
    user = home.write_user({"tools": {"allowedPaths": ["/srv"]}, "model": {"thinking": 2048}})
    loaded = home.load(env={"LULL_MODEL": "m1"})
    rows = {key: (value, source) for key, value, source in effective_rows(loaded)}
    assert list(rows) == list(FIELDS)
    assert rows["tools.allowedPaths"] == ('["/srv"]', str(user))
    assert rows["model.thinking"] == ("2048", str(user))
    assert rows["model.name"] == ('"m1"', "env LULL_MODEL")
    assert rows["maxTurns"] == ("100", "default")
    assert rows["model.baseUrl"] == ("null", "default")
    for value, _ in rows.values():
        json.loads(value)


def test_a_refused_project_value_leaves_the_users_value_and_says_so(home: Home) -> None:
    user = home.write_user({"tools": {"approvalMode": "plan", "allowedPaths": ["/srv"]}})
    project = home.write_project(
        {"tools": {"approvalMode": "yolo", "allowedPaths": ["/srv/app", "/etc"]}, "maxTurns": 9}
    )
    rows = {key: (value, source) for key, value, source in effective_rows(home.load())}
    assert rows["tools.approvalMode"] == ('"plan"', f"{user}; {project} ignored")
    assert rows["tools.allowedPaths"] == (
        '["/srv/app"]',
        f"{project}; entries you did not allow were ignored",
    )
    assert rows["maxTurns"] == ("9", str(project))
