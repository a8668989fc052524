"""What one shell command means to a deny or ask rule, however it is spelled.

A deny rule such as ``run_shell_command(rm -rf *)`` is written once, but the command it means
can be written many ways: ``/bin/rm -rf x``, ``rm -fr x``, ``rm -r -f x``, ``rm --recursive
--force x``, ``find x -delete``. :func:`normal_form` turns a command's words into one form —
the program by its name (no directory), its flags as a set (short flags written together or
apart are the same; a few long flags are their short synonyms), and the other words in order —
and :func:`form_matches` matches a rule's pattern, put in the same form, against it: same
program, every flag of the pattern present, the other words matched like a shell pattern.
:func:`equivalents` adds the commands a command stands for (``find … -delete`` is an
``rm -r -f``, ``find … -exec CMD {} ;`` runs ``CMD``).

:func:`computed_program` says when a command's name is computed (``$(echo rm) -rf x``): no rule
can tell what such a command runs. :func:`path_words` are the words that may name files a
command reads (its arguments and input redirections), and :func:`searched_roots` the
directories a recursive search (``grep -r``, ``rg``) reads whole.

These widen what deny and ask rules catch; they never widen an allow rule. They are best
effort: a shell can always compute a name or a path (see ``docs/permissions.md``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

FLAG_SYNONYMS: dict[str, dict[str, str]] = {
    "rm": {"--recursive": "-r", "-R": "-r", "--force": "-f", "--dir": "-d"},
    "cp": {"--recursive": "-r", "-R": "-r", "--force": "-f"},
    "chmod": {"--recursive": "-R"},
    "chown": {"--recursive": "-R"},
    "grep": {"--recursive": "-r", "-R": "-r", "--dereference-recursive": "-r"},
    "git": {"--force": "-f"},
}
"""Long flags (and ``-R``) that mean the same as a short flag, per program."""
_WORD_OPTIONS = frozenset({"find"})
"""Programs whose single-dash options are words (``-delete``), not clusters of letters."""
_CLUSTER = re.compile(r"-[A-Za-z]{2,}")
_FIND_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_SEARCHERS = frozenset({"rg", "ag", "ack", "ack-grep"})
"""Programs that search a directory tree by default."""
_GREPS = frozenset({"grep", "egrep", "fgrep"})
_GLOB = re.compile(r"[*?\[]")


@dataclass(frozen=True, slots=True)
class NormalForm:
    """A command as deny and ask rules compare it: the program's name, its flags as a set,
    and the other words in order."""

    program: str
    flags: frozenset[str]
    others: tuple[str, ...]


def program_name(word: str) -> str:
    """A program by its name: ``/bin/rm`` and ``\\rm`` are ``rm``."""
    return PurePosixPath(word.lstrip("\\")).name or word


def normal_form(words: Sequence[str]) -> NormalForm | None:
    """``words`` (a command as the shell passes them) in normal form; None when empty."""
    if not words:
        return None
    program = program_name(words[0])
    synonyms = FLAG_SYNONYMS.get(program, {})
    flags: set[str] = set()
    others: list[str] = []
    options_end = False
    for word in words[1:]:
        if options_end or not word.startswith("-") or word in ("-", "--"):
            options_end = options_end or word == "--"
            if word != "--":
                others.append(word)
            continue
        if program not in _WORD_OPTIONS and _CLUSTER.fullmatch(word):
            flags.update(synonyms.get(f"-{letter}", f"-{letter}") for letter in word[1:])
        else:
            flags.add(synonyms.get(word, word))
    return NormalForm(program, frozenset(flags), tuple(others))


def form_matches(pattern: str, form: NormalForm, others_match: Callable[[str, str], bool]) -> bool:
    """Whether a shell rule's ``pattern`` (``rm -rf *``) means the command in ``form``:
    the same program (a ``*`` in it is a wildcard), every flag of the pattern among the
    command's, and the pattern's other words matching the command's
    (``others_match(pattern_text, command_text)``)."""
    wanted = normal_form(pattern.split())
    if wanted is None or any("*" in flag for flag in wanted.flags):
        return False
    if "*" in wanted.program:
        program = re.compile(".*".join(map(re.escape, wanted.program.split("*"))))
        if not program.fullmatch(form.program):
            return False
    elif wanted.program != form.program:
        return False
    if not wanted.flags <= form.flags:
        return False
    return others_match(" ".join(wanted.others), " ".join(form.others))


def equivalents(words: Sequence[str]) -> Iterator[tuple[str, ...]]:
    """Commands ``words`` stands for besides itself: ``find PATH… -delete`` is
    ``rm -r -f PATH…``; ``find … -exec CMD … ;`` (and ``-execdir``, ``-ok``) runs ``CMD …``."""
    if not words or program_name(words[0]) != "find":
        return
    paths: list[str] = []
    for word in words[1:]:
        if word.startswith(("-", "(", "!")):
            break
        paths.append(word)
    if "-delete" in words:
        yield ("rm", "-r", "-f", *(paths or ["."]))
    for index, word in enumerate(words):
        if word in _FIND_ACTIONS:
            inner: list[str] = []
            for part in words[index + 1 :]:
                if part in (";", "+"):
                    break
                inner.append(part)
            if inner:
                yield tuple(inner)


def computed_program(raw: Sequence[str]) -> bool:
    """Whether a command's name is computed when it runs (``$(echo rm)``, `` `…` ``,
    ``$CMD``): what it runs cannot be known from its text."""
    return bool(raw) and ("$" in raw[0] or "`" in raw[0])


def path_words(words: Sequence[str], reads: Sequence[str] = ()) -> Iterator[str]:
    """Words of a command that may name files it reads: its arguments (the value of a
    ``--option=value``) and its input redirections."""
    for word in words[1:]:
        if word.startswith("-"):
            _, equals, value = word.partition("=")
            if equals and value:
                yield value
            continue
        if word:
            yield word
    yield from reads


def searched_roots(words: Sequence[str]) -> tuple[str, ...]:
    """The directories a recursive search reads whole (``grep -r x dir``, ``rg x``: ``.``);
    empty for any other command."""
    form = normal_form(words)
    if form is None:
        return ()
    recursive_grep = form.program in _GREPS and "-r" in form.flags
    git_grep = form.program == "git" and form.others[:1] == ("grep",)
    if not (recursive_grep or git_grep or form.program in _SEARCHERS):
        return ()
    operands = form.others[1:] if git_grep else form.others
    roots = tuple(operands[1:])  # the first is the pattern
    return roots or (".",)


def has_glob(word: str) -> bool:
    """Whether the shell would expand ``word`` as a file pattern."""
    return _GLOB.search(word) is not None
