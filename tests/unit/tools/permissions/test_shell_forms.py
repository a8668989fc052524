"""Commands in normal form: the program by name, flags as a set, what a command stands for."""

from __future__ import annotations

import pytest

from lull.tools.permissions.shell_forms import (
    computed_program,
    equivalents,
    form_matches,
    normal_form,
    path_words,
    searched_roots,
)


def _same(wanted: str, given: str) -> bool:
    return wanted == given


def test_flags_written_together_or_apart_are_one_set() -> None:
    forms = {
        normal_form(c.split()) for c in ["rm -rf x", "rm -fr x", "rm -r -f x", "/bin/rm -Rf x"]
    }
    assert len(forms) == 1
    form = forms.pop()
    assert form is not None
    assert (form.program, form.flags, form.others) == ("rm", frozenset({"-r", "-f"}), ("x",))


def test_find_options_are_words_and_after_double_dash_nothing_is_a_flag() -> None:
    form = normal_form(["find", ".", "-name", "x", "-delete"])
    assert form is not None and "-delete" in form.flags and "-d" not in form.flags
    form = normal_form(["rm", "--", "-rf"])
    assert form is not None and form.flags == frozenset() and form.others == ("-rf",)


@pytest.mark.parametrize(
    ("pattern", "command", "matches"),
    [
        ("rm -rf x", "rm -f -r -v x", True),
        ("rm -rf x", "rm -r x", False),
        ("rm -rf x", "rmdir -rf x", False),
        ("r* -rf x", "rm -fr x", True),
    ],
)
def test_form_matches(pattern: str, command: str, matches: bool) -> None:
    form = normal_form(command.split())
    assert form is not None
    assert form_matches(pattern, form, _same) is matches


def test_what_find_stands_for() -> None:
    assert list(equivalents(["find", "a", "b", "-type", "f", "-delete"])) == [
        ("rm", "-r", "-f", "a", "b")
    ]
    assert list(equivalents(["find", ".", "-exec", "shred", "-u", "{}", "+"])) == [
        ("shred", "-u", "{}")
    ]
    assert list(equivalents(["ls", "-delete"])) == []


def test_computed_names_paths_and_searched_roots() -> None:
    assert computed_program(["$(echo rm)", "-rf"]) and computed_program(["$X"])
    assert not computed_program(["rm", "$X"])
    assert list(path_words(["cat", "-n", "a", "--file=b"], ["c"])) == ["a", "b", "c"]
    assert searched_roots(["grep", "-rn", "x", "src", "docs"]) == ("src", "docs")
    assert searched_roots(["rg", "x"]) == (".",)
    assert searched_roots(["git", "grep", "x"]) == (".",)
    assert searched_roots(["grep", "x", "f"]) == ()
