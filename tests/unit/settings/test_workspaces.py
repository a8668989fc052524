"""Trusted workspaces: kept in the user's config directory, covering the directories below."""

from __future__ import annotations

from pathlib import Path

import pytest

from lull.settings.workspaces import distrust, is_trusted, trust, trust_path, trusted_root
from lull.settings.writer import WriteProblem


def test_trust_covers_the_directory_and_what_is_under_it(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    assert not is_trusted(repo)
    saved = trust(repo)
    assert saved == trust_path() and saved.is_file()
    assert is_trusted(repo) and is_trusted(repo / "sub")
    assert trusted_root(repo / "sub") == repo.resolve()
    assert not is_trusted(tmp_path) and not is_trusted(tmp_path / "repository")


def test_distrust_takes_back_only_that_directory(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    trust(repo)
    assert not distrust(repo / "elsewhere")
    assert distrust(repo) and not is_trusted(repo)


def test_a_broken_trust_file_trusts_nothing_and_is_not_overwritten(tmp_path: Path) -> None:
    trust_path().parent.mkdir(parents=True, exist_ok=True)
    trust_path().write_text("{not json")
    assert not is_trusted(tmp_path)
    with pytest.raises(WriteProblem, match="not saved"):
        trust(tmp_path)
    assert trust_path().read_text() == "{not json"
