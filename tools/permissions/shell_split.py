"""A shell command line split into the simple commands it runs, for permission rules.

A rule such as ``run_shell_command(npm test*)`` must hold for *each* command of a compound
line, so ``npm test; rm -rf /`` is two commands and the second is not allowed. The splitter
understands quotes (``'…'``, ``"…"``, backslashes), the control operators ``&&``, ``||``,
``;``, ``|``, ``|&``, ``&`` and newlines, comments, and redirections (``> file`` writes a
file; ``2>&1`` and ``> /dev/null`` do not). What it does not fully understand makes the line
one that no rule may *allow* (:attr:`ParsedCommand.problem`): command and process
substitution, subshells, groups, here-documents and shell keywords (``if``, ``for``, …). The
commands inside substitutions and subshells are still collected (:attr:`ParsedCommand.nested`)
so that ``deny`` and ``ask`` rules see them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_DEPTH = 8
_OPERATORS = ("&&", "||", ";;", "|&", ";", "|", "&", "\n")
_REDIRECTIONS = ("&>>", "&>", ">>", ">|", ">&", "<<<", "<<-", "<<", "<&", "<>", ">", "<")
_WRITING = frozenset({"&>>", "&>", ">>", ">|", ">&", ">", "<>"})
_READING = frozenset({"<", "<>"})
_NOT_A_FILE = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
KEYWORDS = frozenset(
    {"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
     "function", "select", "coproc", "{", "}", "!", "[[", "]]"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """One command of a line: its words as written (``raw``, quotes kept) and as the shell
    passes them (``words``, quotes removed), redirections left out; ``writes`` are the files
    its output redirections write, ``reads`` those its input redirections read."""

    raw: tuple[str, ...]
    words: tuple[str, ...]
    writes: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The command as rules see it: its words as written, one space apart."""
        return " ".join(self.raw)


@dataclass(frozen=True, slots=True)
class ParsedCommand:
    """What a command line runs: ``commands`` at the top level, in order; ``nested`` inside
    substitutions and subshells; ``problem`` says why no rule may allow the line (None when
    it was fully understood)."""

    commands: tuple[SimpleCommand, ...]
    nested: tuple[SimpleCommand, ...] = ()
    problem: str | None = None

    @property
    def every_command(self) -> tuple[SimpleCommand, ...]:
        """The top-level commands and those found inside substitutions and subshells."""
        return self.commands + self.nested


def split_command(line: str) -> ParsedCommand:
    """The commands ``line`` runs (see the module docstring)."""
    return _Splitter(line, 0).run()


@dataclass
class _Word:
    raw: list[str] = field(default_factory=list)
    plain: list[str] = field(default_factory=list)
    started: bool = False

    def add(self, raw: str, plain: str) -> None:
        self.raw.append(raw)
        self.plain.append(plain)
        self.started = True


class _Splitter:
    """One pass over a line: words, operators, redirections, substitutions."""

    def __init__(self, line: str, depth: int) -> None:
        self.line = line
        self.depth = depth
        self.i = 0
        self.commands: list[SimpleCommand] = []
        self.nested: list[SimpleCommand] = []
        self.problems: list[str] = []
        self._reset()

    def _reset(self) -> None:
        self.word = _Word()
        self.raw: list[str] = []
        self.words: list[str] = []
        self.writes: list[str] = []
        self.reads: list[str] = []
        self.redirect: str | None = None

    def run(self) -> ParsedCommand:
        """Split the whole line."""
        if self.depth > MAX_DEPTH:
            return ParsedCommand((), (), "substitutions nested too deeply")
        while self.i < len(self.line):
            self._step()
        self._finish()
        problem = self.problems[0] if self.problems else None
        return ParsedCommand(tuple(self.commands), tuple(self.nested), problem)

    def _step(self) -> None:
        line, i = self.line, self.i
        char = line[i]
        if char in " \t\r":
            self._end_word()
            self.i += 1
        elif char == "\\":
            if line.startswith("\\\n", i):
                self.i += 2
                return
            self.word.add(line[i : i + 2], line[i + 1 : i + 2])
            self.i += 2
        elif char == "'":
            end = line.find("'", i + 1)
            if end < 0:
                self._problem("an unterminated ' quote")
                self.word.add(line[i:], line[i + 1 :])
                self.i = len(line)
                return
            self.word.add(line[i : end + 1], line[i + 1 : end])
            self.i = end + 1
        elif char == '"':
            self._double_quoted()
        elif line.startswith("$(", i) or char == "`" or line.startswith(("<(", ">("), i):
            self._substitution()
        elif char == "#" and not self.word.started:
            end = line.find("\n", i)
            self.i = len(line) if end < 0 else end
        elif (operator := _operator_at(line, i)) is not None:
            self._end_word()
            self._finish()
            self.i += len(operator)
        elif (redirection := _redirection_at(line, i, self.word)) is not None:
            self._redirection(redirection)
        elif char == "(":
            self._subshell()
        elif char == ")":
            self._problem("an unmatched )")
            self._end_word()
            self.i += 1
        else:
            self.word.add(char, char)
            self.i += 1

    def _problem(self, text: str) -> None:
        self.problems.append(text)

    def _double_quoted(self) -> None:
        line, start = self.line, self.i
        i = start + 1
        plain: list[str] = []
        while i < len(line) and line[i] != '"':
            if line[i] == "\\" and i + 1 < len(line):
                plain.append(line[i + 1] if line[i + 1] in '"\\$`\n' else line[i : i + 2])
                i += 2
            elif line.startswith("$(", i) or line[i] == "`":
                end = self._nested_at(i)
                plain.append(line[i:end])
                i = end
            else:
                plain.append(line[i])
                i += 1
        if i >= len(line):
            self._problem('an unterminated " quote')
        self.word.add(line[start : i + 1], "".join(plain))
        self.i = i + 1

    def _substitution(self) -> None:
        end = self._nested_at(self.i)
        self.word.add(self.line[self.i : end], self.line[self.i : end])
        self.i = end

    def _nested_at(self, i: int) -> int:
        """Parse the substitution starting at ``i`` (``$(``, a backtick, ``<(`` or ``>(``);
        its commands go to :attr:`nested`; returns the index after it."""
        line = self.line
        if line[i] == "`":
            end = i + 1
            while end < len(line) and line[end] != "`":
                end += 2 if line[end] == "\\" else 1
            inner, after = line[i + 1 : min(end, len(line))], end + 1
            self._problem("command substitution (`...`)")
        else:
            opening = i + 1
            close = matching_paren(line, opening)
            inner = line[opening + 1 : close if close >= 0 else len(line)]
            after = close + 1 if close >= 0 else len(line)
            kind = "command substitution ($(...))" if line[i] == "$" else "process substitution"
            self._problem(kind)
        self._take_nested(inner)
        return min(after, len(line))

    def _take_nested(self, inner: str) -> None:
        parsed = _Splitter(inner, self.depth + 1).run()
        self.nested.extend(parsed.every_command)
        if parsed.problem:
            self._problem(parsed.problem)

    def _subshell(self) -> None:
        if self.word.started or self.raw:
            self._problem("parentheses inside a command")
            self.word.add("(", "(")
            self.i += 1
            return
        close = matching_paren(self.line, self.i)
        end = close if close >= 0 else len(self.line)
        self._problem("a subshell ( ... )")
        self._take_nested(self.line[self.i + 1 : end])
        self.i = end + 1

    def _redirection(self, operator: str) -> None:
        self._end_word()
        self.i += len(operator)
        symbol = operator.lstrip("0123456789")
        if symbol in ("<<", "<<-"):
            self._problem("a here-document")
        self.redirect = symbol

    def _end_word(self) -> None:
        if not self.word.started:
            return
        raw, plain = "".join(self.word.raw), "".join(self.word.plain)
        self.word = _Word()
        if self.redirect is not None:
            symbol, self.redirect = self.redirect, None
            duplicate = symbol in (">&", "<&") and (plain.isdigit() or plain == "-")
            if symbol in _WRITING and not duplicate and plain not in _NOT_A_FILE:
                self.writes.append(plain)
            if symbol in _READING:
                self.reads.append(plain)
            return
        self.raw.append(raw)
        self.words.append(plain)

    def _finish(self) -> None:
        self._end_word()
        if self.redirect is not None:
            self._problem("a redirection without a target")
        if self.words and self.words[0] in KEYWORDS:
            self._problem(f"shell syntax ({self.words[0]})")
        if self.words or self.writes or self.reads:
            self.commands.append(
                SimpleCommand(
                    tuple(self.raw), tuple(self.words), tuple(self.writes), tuple(self.reads)
                )
            )
        self._reset()


def _operator_at(line: str, i: int) -> str | None:
    """The control operator starting at ``i`` (``&>`` is a redirection, not ``&``)."""
    if line.startswith("&>", i):
        return None
    return next((op for op in _OPERATORS if line.startswith(op, i)), None)


def _redirection_at(line: str, i: int, word: _Word) -> str | None:
    """The redirection operator starting at ``i``, or None. When the word so far is only
    digits (``2>``), they are the operator's file descriptor and leave the word."""
    symbol = next((s for s in _REDIRECTIONS if line.startswith(s, i)), None)
    if symbol is not None and word.started and all(part.isdigit() for part in word.plain):
        word.raw.clear()
        word.plain.clear()
        word.started = False
    return symbol


def matching_paren(line: str, opening: int) -> int:
    """The index of the ``)`` closing the ``(`` at ``opening`` (quotes and nesting followed),
    or -1 when it is never closed."""
    depth = 0
    i = opening
    while i < len(line):
        char = line[i]
        if char == "\\":
            i += 2
            continue
        if char == "'":
            end = line.find("'", i + 1)
            i = len(line) if end < 0 else end + 1
            continue
        if char == '"':
            i += 1
            while i < len(line) and line[i] != '"':
                i += 2 if line[i] == "\\" else 1
            i += 1
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1
