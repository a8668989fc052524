"""``--mcp-config``: servers from a file or from JSON text, as the user's own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lull.settings.mcp_config import McpConfigError, servers_from_config


def test_a_file_and_json_text_give_the_users_servers(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text(json.dumps({"mcpServers": {"a": {"command": "x"}}}))
    [from_file] = servers_from_config("s.json", tmp_path)
    assert (from_file.name, from_file.command, from_file.scope) == ("a", "x", "user")
    assert from_file.source == str(tmp_path / "s.json")
    [inline] = servers_from_config('{"mcpServers": {"b": {"url": "https://h/mcp"}}}', tmp_path)
    assert (inline.name, inline.url, inline.scope) == ("b", "https://h/mcp", "user")


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("nothere.json", "nothere.json: no such file"),
        ("{bad", "the JSON is not valid"),
        ('{"mcp": {}}', 'expected {"mcpServers"'),
        ('{"mcpServers": {"c": {"url": "ftp://x"}}}', "http:// or https://"),
    ],
)
def test_a_bad_value_says_what_is_wrong(tmp_path: Path, value: str, says: str) -> None:
    with pytest.raises(McpConfigError) as caught:
        servers_from_config(value, tmp_path)
    assert says in str(caught.value)
