from __future__ import annotations

import pytest

from lull.tools.search.globpattern import compile_glob, glob_matches


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.py", "a.py", True),
        ("*.py", "src/a.py", False),
        ("**/*.py", "a.py", True),
        ("**/*.py", "src/deep/a.py", True),
        ("src/**", "src/a/b.txt", True),
        ("src/**/test_*.py", "src/test_a.py", True),
        ("src/**/test_*.py", "src/x/y/test_a.py", True),
        ("src/**/test_*.py", "lib/test_a.py", False),
        ("?.txt", "a.txt", True),
        ("?.txt", "ab.txt", False),
        ("[ab].txt", "b.txt", True),
        ("[!ab].txt", "b.txt", False),
        ("*.{ts,tsx}", "x.tsx", True),
        ("*.{ts,tsx}", "x.js", False),
        ("a+b(1).txt", "a+b(1).txt", True),
    ],
)
def test_compile_glob(pattern: str, path: str, expected: bool) -> None:
    assert (compile_glob(pattern).match(path) is not None) is expected


def test_pattern_without_slash_matches_the_file_name_anywhere() -> None:
    assert glob_matches("*.py", "src/deep/a.py")
    assert not glob_matches("src/*.py", "src/deep/a.py")
