"""The kept MCP tool listings: one file per launch config, secret values never in it nor in
its key, a changed config another file, a listing saved only when it changed."""

from __future__ import annotations

from pathlib import Path

from lull.mcp.cache import ListingCache, launch_key
from lull.mcp.listing import RemoteTool
from lull.model.mcp import McpServerConfig

ECHO = RemoteTool(
    "echo", "Say the text back.", {"type": "object", "properties": {"text": {"type": "string"}}}
)
ADD = RemoteTool("add", "Add two numbers.", {"type": "object"}, read_only_hint=True)


def _config(**fields: object) -> McpServerConfig:
    base: dict[str, object] = {"command": "srv", "args": ("--fast",), "env": (("TOKEN", "s3"),)}
    return McpServerConfig("gh", **{**base, **fields})  # type: ignore[arg-type]


def test_a_kept_listing_comes_back_as_it_was_saved(tmp_path: Path) -> None:
    cache = ListingCache(tmp_path / "kept", tmp_path)
    assert cache.load(_config()) is None
    assert cache.save(_config(), [ECHO, ADD]) is True
    assert cache.load(_config()) == [ECHO, ADD]
    assert cache.save(_config(), [ECHO, ADD]) is False  # unchanged: not written again
    assert cache.save(_config(), [ECHO]) is True
    assert cache.load(_config()) == [ECHO]


def test_secret_values_are_neither_kept_nor_in_the_key(tmp_path: Path) -> None:
    cache = ListingCache(tmp_path, tmp_path)
    secret = _config(env=(("TOKEN", "ghp_very_secret"),), headers=(("Authorization", "Bearer x"),))
    cache.save(secret, [ECHO])
    assert "ghp_very_secret" not in cache.path(secret).read_text()
    assert "Bearer x" not in cache.path(secret).read_text()
    other_value = _config(env=(("TOKEN", "another"),), headers=(("Authorization", "Bearer y"),))
    assert launch_key(other_value, tmp_path) == launch_key(secret, tmp_path)


def test_a_changed_launch_config_does_not_read_the_kept_listing(tmp_path: Path) -> None:
    cache = ListingCache(tmp_path, tmp_path)
    cache.save(_config(), [ECHO])
    for changed in (
        _config(command="srv2"),
        _config(args=("--slow",)),
        _config(env=(("TOKEN", "s3"), ("MORE", "1"))),
        _config(cwd="sub"),
        _config(transport="http", url="http://127.0.0.1:1/mcp"),
    ):
        assert cache.load(changed) is None, changed


def test_a_projects_server_is_kept_per_workspace(tmp_path: Path) -> None:
    config = _config(scope="project")
    ListingCache(tmp_path, tmp_path / "a").save(config, [ECHO])
    assert ListingCache(tmp_path, tmp_path / "b").load(config) is None
    assert ListingCache(tmp_path, tmp_path / "a").load(config) == [ECHO]


def test_an_unreadable_file_is_no_listing(tmp_path: Path) -> None:
    cache = ListingCache(tmp_path, tmp_path)
    cache.path(_config()).write_text("{not json")
    assert cache.load(_config()) is None
    cache.path(_config()).write_text('{"format": 1, "tools": [{"name": 3}]}')
    assert cache.load(_config()) is None
