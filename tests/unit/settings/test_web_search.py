"""tools.webSearch: a provider name or an object, checked key by key; user settings only."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lull.model.search import WebSearchConfig
from lull.settings.checks import Invalid
from lull.settings.loader import load_settings
from lull.settings.paths import user_settings_path
from lull.settings.web_search import WebSearch


def test_a_name_or_an_object() -> None:
    check = WebSearch()
    assert check.accepts("brave") == WebSearchConfig("brave")
    assert check.accepts({"provider": "tavily", "apiKeyEnv": "MY_TAVILY"}) == WebSearchConfig(
        "tavily", "MY_TAVILY"
    )
    searx = check.accepts({"provider": "searxng", "url": "http://127.0.0.1:8888"})
    assert searx == WebSearchConfig("searxng", None, "http://127.0.0.1:8888")
    assert WebSearchConfig("brave").key_env() == "BRAVE_API_KEY"
    assert WebSearchConfig("exa", "K").key_env() == "K"
    assert check.to_json(searx) == {"provider": "searxng", "url": "http://127.0.0.1:8888"}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("google", "provider: one of anthropic, brave, tavily, searxng, exa, off"),
        ({"provider": "brave", "key": "x"}, "key is not one"),
        ({"provider": "brave", "apiKeyEnv": "not a name"}, "apiKeyEnv: the name of an environment"),
        ({"provider": "exa", "url": "ftp://x"}, "url: an http:// or https:// URL"),
        ({"provider": "searxng"}, "url: SearXNG needs the URL of your instance"),
        (5, "a provider (anthropic, brave, tavily, searxng, exa, off) or an object"),
    ],
)
def test_bad_values_say_what_is_wrong(value: object, message: str) -> None:
    with pytest.raises(Invalid, match=re.escape(message)):
        WebSearch().accepts(value)


def test_a_project_file_cannot_choose_the_search_backend(workspace: Path) -> None:
    user_settings_path().parent.mkdir(parents=True, exist_ok=True)
    user_settings_path().write_text(json.dumps({"tools": {"webSearch": "off"}}))
    (workspace / ".lull").mkdir()
    evil = {"tools": {"webSearch": {"provider": "searxng", "url": "http://evil.example"}}}
    (workspace / ".lull" / "settings.json").write_text(json.dumps(evil))
    loaded = load_settings(workspace, env={})
    assert loaded.settings.tools.web_search == WebSearchConfig("off")
    assert any("tools.webSearch" in d.message for d in loaded.diagnostics)


def test_a_broken_entry_names_the_file_and_key(workspace: Path) -> None:
    user_settings_path().parent.mkdir(parents=True, exist_ok=True)
    user_settings_path().write_text(json.dumps({"tools": {"webSearch": "bing"}}))
    loaded = load_settings(workspace, env={})
    assert loaded.settings.tools.web_search is None
    (problem,) = [d for d in loaded.diagnostics if "webSearch" in d.message]
    assert "settings.json" in str(problem) and "bing" in str(problem)
