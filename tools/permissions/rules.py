"""Saved permission rules matched against tool calls: deny > ask > allow.

A rule is ``tool`` or ``tool(pattern)`` (:mod:`lull.model.permissions`). What the pattern
matches depends on the tool:

- ``run_shell_command``: each command of the line (:mod:`lull.tools.permissions.shell_split`). ``*``
matches
  anything, ``npm test *`` also matches ``npm test`` itself, and Claude Code's ``npm run:*``
  means ``npm run`` or ``npm run …``. An ``allow`` rule must match *every* command of a
  compound line, and never allows a line with substitutions, subshells, keywords or an output
  redirection to a file; ``deny`` and ``ask`` rules match *any* command, also inside
  substitutions and subshells, and look through ``VAR=x``, ``sudo``, ``env``, ``nohup``,
  ``time``, ``timeout``, ``nice``, ``xargs``, ``command``, ``exec``, ``bash -c`` and ``eval``.
- file tools (``read_file``, ``write_file``, ``edit``, ``list_directory``, ``grep_search``,
  ``glob``): the path, as a glob relative to the workspace (``src/**``; ``.env`` is the name at
  any depth, ``./.env`` or ``/.env`` the top one's; a directory covers what is inside it);
  ``//abs/path`` is absolute and ``~/`` is the home directory, as in Claude Code.
- ``web_fetch``: ``domain:docs.python.org`` (``domain:*.python.org`` for subdomains), or a
  glob over the URL.
- any other tool: a glob over the call's key argument.

A tool part with ``*`` matches tool names (``mcp__github__*``); ``mcp__github`` alone covers
every tool of that server.

Deny and ask rules reach further than they are written, so that they mean what they say
(:mod:`lull.tools.permissions.shell_forms`): a shell rule also matches the command however its
program and flags are spelled (``/bin/rm -fr x`` for ``rm -rf *``, ``find x -delete``); a
``read_file``/``Read`` rule also covers ``grep_search``, ``glob`` and ``list_directory`` (whose
results leave such files out or mark them: :meth:`RuleBook.reading_rule`), and a shell command
that names such a file, or searches a tree that may hold it (``grep -r``, ``rg``); an
``edit``/``Edit`` rule also covers a shell redirection that writes such a file; a
``web_fetch(domain:…)`` rule compares addresses, not spellings (``2130706433`` is
``127.0.0.1``). When any deny rule names a shell command, a command whose name is computed
(``$(echo rm) -rf x``) is asked about, never run unasked.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lull.model.permissions import PermissionRule, RuleEffect, RuleScope, SaveScope, rule_tools
from lull.tools.base import ApprovalNeed, Tool, ToolContext
from lull.tools.permissions.hosts import canonical_host
from lull.tools.permissions.paths import (
    absolute_path,
    expanded_paths,
    may_hold,
    path_matches,
    seen_as,
)
from lull.tools.permissions.shell_forms import (
    computed_program,
    equivalents,
    form_matches,
    normal_form,
    path_words,
    searched_roots,
)
from lull.tools.permissions.shell_split import SimpleCommand, split_command

SHELL_TOOL = "run_shell_command"
FETCH_TOOL = "web_fetch"
PATH_TOOLS = frozenset({"read_file", "write_file", "edit", "list_directory", "grep_search", "glob"})
READ_TOOLS = frozenset({"read_file", "list_directory", "grep_search", "glob"})
"""The built-in tools that read files or directories: a ``read_file`` (``Read``) deny or ask
rule covers them all."""
_WRAPPERS = frozenset(
    {"sudo", "doas", "env", "command", "builtin", "exec", "nohup", "time", "nice", "timeout",
     "xargs", "stdbuf", "setsid", "then", "do", "else", "elif", "if", "while", "until", "!",
     "{"}
)  # fmt: skip
_OPTION_VALUES: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-h", "-p", "-C", "-U"}),
    "nice": frozenset({"-n"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "xargs": frozenset({"-I", "-n", "-P", "-L", "-d", "-a", "-E", "-s"}),
    "env": frozenset({"-u", "-C", "-S"}),
}
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_SUBCOMMAND = re.compile(r"[A-Za-z][\w:.+-]*")
_WITH_SUBCOMMANDS = frozenset(
    {"git", "npm", "pnpm", "yarn", "bun", "npx", "cargo", "go", "docker", "kubectl", "make",
     "pip", "pip3", "uv", "poetry", "bundle", "gradle", "mvn", "dotnet", "brew", "apt",
     "apt-get", "gh", "terraform", "helm", "deno", "rustup", "composer", "conda", "just",
     "systemctl", "podman"}
)  # fmt: skip
"""Programs whose second word picks what they do (``npm test``, ``git status``): an "allow
always" answer suggests both words for them, the first word alone for anything else."""

RuleSaver = Callable[[str, SaveScope], str]
"""Saves one ``allow`` rule for this workspace or everywhere; returns where it went (one
line). Raises :class:`RuleNotSaved` saying why it could not."""


class RuleNotSaved(Exception):
    """An "allow always" rule could not be written; the message is one line saying why."""


@dataclass(frozen=True, slots=True)
class RuleMatch:
    """The rule that decided a call, and what it decided; ``why`` says how a rule reached a
    call it does not name (``the command reads secret.txt``), empty when it names it."""

    effect: RuleEffect
    rule: PermissionRule
    why: str = ""

    def described(self) -> str:
        """The rule as messages name it, with how it reached this call."""
        return self.rule.described() + (f" ({self.why})" if self.why else "")


class RuleBook:
    """The rules in force: from settings (user, workspace, project files) and the answers of
    this session. A project file's ``allow`` rules apply only while ``trusted()`` is true."""

    def __init__(
        self,
        rules: tuple[PermissionRule, ...] | list[PermissionRule] = (),
        *,
        trusted: Callable[[], bool] = lambda: False,
        saver: RuleSaver | None = None,
    ) -> None:
        self.saved: list[PermissionRule] = list(rules)
        self.session: list[PermissionRule] = []
        self.exact: set[str] = set()
        self.trusted = trusted
        self.saver = saver

    def all(self) -> list[PermissionRule]:
        """Every rule, saved ones first, whether it applies now or not."""
        return [*self.saved, *self.session]

    def applies(self, rule: PermissionRule) -> bool:
        """Whether ``rule`` is in force (a project's allow rule waits for trust)."""
        return rule.scope != "project" or rule.effect != "allow" or self.trusted()

    def match(self, tool: Tool, args: Mapping[str, Any], ctx: ToolContext) -> RuleMatch | None:
        """The rule that decides this call (deny, then ask, then allow), or None."""
        call = _Call(tool, args, ctx)
        in_force = [rule for rule in self.all() if self.applies(rule)]
        for effect in ("deny", "ask"):
            for rule in in_force:
                if rule.effect != effect:
                    continue
                if call.named(rule) and call.touches(rule.pattern):
                    return RuleMatch(rule.effect, rule)
                why = call.reached_by(rule)
                if why:
                    return RuleMatch(rule.effect, rule, why)
        computed = call.computed_name()
        if computed:
            shell_denial = next(
                (r for r in in_force if r.effect == "deny" and r.pattern and call.named(r)), None
            )
            if shell_denial is not None:
                why = f"the command's name {computed} is computed, so the rule cannot be checked"
                return RuleMatch("ask", shell_denial, why)
        allowing = [r for r in in_force if r.effect == "allow" and call.named(r)]
        decided = call.allowed_by(allowing)
        return RuleMatch("allow", decided) if decided is not None else None

    def reading_rule(self, path: Path, workspace: Path) -> PermissionRule | None:
        """The deny (else ask) rule in force that keeps reading tools from ``path``, or None."""
        in_force = [rule for rule in self.all() if self.applies(rule)]
        for effect in ("deny", "ask"):
            for rule in in_force:
                if rule.effect == effect and "read_file" in rule_tools(rule.tool):
                    pattern = rule.pattern
                    if pattern is None or any(
                        path_matches(pattern, seen, workspace) for seen in seen_as(path)
                    ):
                        return rule
        return None

    def read_guard(self, workspace: Path) -> Callable[[Path], str | None]:
        """For a tool's context: the description of the rule that keeps reading tools from a
        path (``deny rule "Read(.env)" from FILE``), or None when none does."""

        def guard(path: Path) -> str | None:
            rule = self.reading_rule(path, workspace)
            return rule.described() if rule is not None else None

        return guard

    def allowed_exactly(self, tool: Tool, args: Mapping[str, Any]) -> bool:
        """Whether the user allowed this very call for the session (no rule could say it)."""
        return _exact_key(tool.name, args) in self.exact

    def remember(
        self, tool: Tool, args: Mapping[str, Any], texts: tuple[str, ...], scope: SaveScope
    ) -> list[str]:
        """Keep an "allow always" answer: ``texts`` as allow rules for ``scope`` (the session,
        or saved through the saver); the call itself when no rule describes it. Returns
        lines for the user (where the rules went, or why they could not be saved)."""
        if not texts:
            self.exact.add(_exact_key(tool.name, args))
            return [f"allowed this exact {tool.name} call for the rest of the session"]
        notes: list[str] = []
        for text in texts:
            source, rule_scope = "this session", "session"
            if scope != "session" and self.saver is not None:
                try:
                    source = self.saver(text, scope)
                    rule_scope = "workspace" if scope == "workspace" else "user"
                except RuleNotSaved as problem:
                    notes.append(f"{problem}; {text} is allowed for this session only")
            rule = PermissionRule("allow", text, source, rule_scope)  # type: ignore[arg-type]
            kept = self.session if rule_scope == "session" else self.saved
            if rule not in kept:
                kept.append(rule)
            if rule_scope != "session":
                notes.append(f'saved allow rule "{text}" in {source}')
        return notes

    def allow_for_session(self, texts: Sequence[str], source: str, scope: RuleScope) -> None:
        """Allow rules for the rest of this session (a loaded skill's ``allowed-tools``;
        ``scope`` "project" waits for trust like a project file's allow rules)."""
        for text in texts:
            rule = PermissionRule("allow", text, source, scope)
            if rule not in self.session:
                self.session.append(rule)

    def forget_session(self) -> None:
        """Forget this session's answers (a new or another session starts); saved rules stay."""
        self.session.clear()
        self.exact.clear()


def suggest_rules(
    tool: Tool, args: Mapping[str, Any], need: ApprovalNeed | None
) -> tuple[str, ...]:
    """The allow rules an "allow always" answer would save for this call: the need's scope
    (``web_fetch(domain:localhost)``), ``run_shell_command(PREFIX *)`` for each command of a
    shell line, else the tool's name. Empty when no rule may allow the call (a shell line
    with substitutions or writing redirections): the answer then covers the call itself."""
    if need is not None:
        return (need.scope,)
    if tool.name != SHELL_TOOL:
        return (tool.name,)
    parsed = split_command(str(args.get("command", "")))
    if parsed.problem or not parsed.commands:
        return ()
    rules: list[str] = []
    for command in parsed.commands:
        if command.writes or not command.raw or "=" in command.words[0]:
            return ()
        head = list(command.raw[:1])
        sub = len(command.raw) > 1 and _SUBCOMMAND.fullmatch(command.raw[1]) is not None
        if sub and Path(command.words[0]).name in _WITH_SUBCOMMANDS:
            head.append(command.raw[1])
        rule = f"{SHELL_TOOL}({' '.join(head)} *)"
        if rule not in rules:
            rules.append(rule)
    return tuple(rules)


# --- one call, as rules see it -------------------------------------------------------------


class _Call:
    """What rules may look at in one call: its tool name, command, path or URL."""

    def __init__(self, tool: Tool, args: Mapping[str, Any], ctx: ToolContext) -> None:
        self.tool = tool
        self.args = args
        self.ctx = ctx

    def named(self, rule: PermissionRule) -> bool:
        """Whether the rule's tool part names this call's tool."""
        return any(_tool_matches(name, self.tool.name) for name in rule_tools(rule.tool))

    def touches(self, pattern: str | None) -> bool:
        """Whether a deny or ask ``pattern`` matches any part of this call."""
        if pattern is None:
            return True
        name = self.tool.name
        if name == SHELL_TOOL:
            command = str(self.args.get("command", ""))
            matcher = shell_pattern(pattern)
            if any(matcher.fullmatch(text) for text in _deny_texts(command)):
                return True
            return _form_touches(pattern, command)
        if name in PATH_TOOLS:
            return any(path_matches(pattern, path, self.ctx.workspace) for path in self._paths())
        return self._other_matches(pattern)

    def reached_by(self, rule: PermissionRule) -> str:
        """How a deny or ask ``rule`` that does not name this call's tool still covers it
        (see the module docstring), or "" when it does not."""
        tools = rule_tools(rule.tool)
        name = self.tool.name
        if "read_file" in tools and name in READ_TOOLS and name != "read_file":
            if rule.pattern is None:
                return f"it covers every tool that reads files, {name} too"
            if any(path_matches(rule.pattern, p, self.ctx.workspace) for p in self._paths()):
                return f"it covers every tool that reads files, {name} too"
            return ""
        if name != SHELL_TOOL or rule.pattern is None:
            return ""
        if "read_file" in tools:
            return self._shell_reads(rule.pattern)
        if "edit" in tools or "write_file" in tools:
            return self._shell_writes(rule.pattern)
        return ""

    def computed_name(self) -> str:
        """The first command of a shell call whose name is computed (``$(echo rm)``), or ""."""
        if self.tool.name != SHELL_TOOL:
            return ""
        parsed = split_command(str(self.args.get("command", "")))
        for command in parsed.every_command:
            for start in _peel(command):
                if computed_program(command.raw[start:]):
                    return command.raw[start]
        return ""

    def _shell_reads(self, pattern: str) -> str:
        """Which file a shell call names (or which tree it searches) that a read rule's
        ``pattern`` covers, as a reason; "" when none."""
        workspace = self.ctx.workspace
        for words, reads in _commands_of(str(self.args.get("command", ""))):
            for word in path_words(words, reads):
                for path in expanded_paths(word, workspace):
                    if any(path_matches(pattern, seen, workspace) for seen in seen_as(path)):
                        return f"the command reads {word}"
            for root in searched_roots(words):
                if may_hold(absolute_path(root, workspace), pattern, workspace):
                    return f"the command searches {root}, which may hold files the rule covers"
        return ""

    def _shell_writes(self, pattern: str) -> str:
        """Which file a shell call's redirection writes that an edit rule's ``pattern``
        covers, as a reason; "" when none."""
        workspace = self.ctx.workspace
        for command in split_command(str(self.args.get("command", ""))).every_command:
            for target in command.writes:
                path = absolute_path(target, workspace)
                if any(path_matches(pattern, seen, workspace) for seen in seen_as(path)):
                    return f"the command writes {target}"
        return ""

    def allowed_by(self, rules: list[PermissionRule]) -> PermissionRule | None:
        """The allow rule that covers this whole call, or None."""
        whole = next((rule for rule in rules if rule.pattern is None), None)
        if whole is not None or not rules:
            return whole
        if self.tool.name == SHELL_TOOL:
            return self._shell_allowed(rules)
        for rule in rules:
            pattern = rule.pattern
            assert pattern is not None
            if self.tool.name in PATH_TOOLS:
                paths = self._paths()
                if paths and path_matches(pattern, paths[-1], self.ctx.workspace):
                    return rule
            elif self._other_matches(pattern):
                return rule
        return None

    def _shell_allowed(self, rules: list[PermissionRule]) -> PermissionRule | None:
        parsed = split_command(str(self.args.get("command", "")))
        if parsed.problem or not parsed.commands:
            return None
        first: PermissionRule | None = None
        for command in parsed.commands:
            if command.writes:
                return None
            rule = next(
                (r for r in rules if shell_pattern(str(r.pattern)).fullmatch(command.text)), None
            )
            if rule is None:
                return None
            first = first or rule
        return first

    def _paths(self) -> list[Path]:
        """The call's path as written (normalised) and resolved (symlinks followed)."""
        given = self.args.get("path", ".")
        if not isinstance(given, str) or not given.strip() or "\0" in given:
            return []
        return seen_as(absolute_path(given, self.ctx.workspace))

    def _other_matches(self, pattern: str) -> bool:
        if self.tool.name == FETCH_TOOL:
            url = str(self.args.get("url", ""))
            if pattern.startswith("domain:"):
                host = canonical_host(urlsplit(url).hostname or "")
                wanted = pattern[7:].strip()
                wanted = wanted.lower() if "*" in wanted else canonical_host(wanted)
                return bool(host) and fnmatch.fnmatchcase(host, wanted)
            return fnmatch.fnmatchcase(url, pattern)
        return fnmatch.fnmatchcase(self.tool.describe_call(self.args), pattern)


def _tool_matches(rule_tool: str, name: str) -> bool:
    if "*" in rule_tool:
        return fnmatch.fnmatchcase(name, rule_tool)
    if rule_tool == name:
        return True
    server_level = rule_tool.startswith("mcp__") and rule_tool.count("__") == 1
    return server_level and name.startswith(rule_tool + "__")


def _exact_key(name: str, args: Mapping[str, Any]) -> str:
    return name + json.dumps(dict(args), sort_keys=True, default=str)


@lru_cache(maxsize=256)
def shell_pattern(pattern: str) -> re.Pattern[str]:
    """A shell rule's pattern as a regex over one command's text: ``*`` matches anything;
    a single trailing `` *`` (and Claude Code's ``:*``) also matches the bare prefix."""
    pattern = pattern.strip()
    if pattern.endswith(":*"):
        return re.compile(re.escape(pattern[:-2].rstrip()) + r"(?:\s.*)?", re.DOTALL)
    if pattern.endswith(" *") and pattern.count("*") == 1:
        return re.compile(re.escape(pattern[:-2].rstrip()) + r"(?:\s.*)?", re.DOTALL)
    return re.compile(".*".join(re.escape(part) for part in pattern.split("*")), re.DOTALL)


def _deny_texts(line: str) -> Iterator[str]:
    """Every text a deny or ask rule is tried on: the whole line, and each command it runs
    (nested ones too), as written and unquoted, with wrappers and assignments peeled off."""
    yield line.strip()
    seen = 0
    pending = list(split_command(line).every_command)
    while pending and seen < 200:
        command = pending.pop(0)
        seen += 1
        for start in _peel(command):
            yield " ".join(command.raw[start:])
            yield " ".join(command.words[start:])
        pending.extend(_inner(command))


def _commands_of(line: str) -> Iterator[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Each command ``line`` runs as ``(words, input redirections)``: nested ones, with
    wrappers and assignments peeled off, and what each stands for (``find -exec``)."""
    seen = 0
    pending = list(split_command(line).every_command)
    while pending and seen < 200:
        command = pending.pop(0)
        seen += 1
        for start in _peel(command):
            words = command.words[start:]
            if words:
                yield words, command.reads
                for other in equivalents(words):
                    yield other, ()
        pending.extend(_inner(command))


def _form_touches(pattern: str, line: str) -> bool:
    """Whether a shell rule's ``pattern`` means a command of ``line`` in normal form."""

    def others(wanted: str, given: str) -> bool:
        return shell_pattern(wanted).fullmatch(given) is not None

    for words, _ in _commands_of(line):
        form = normal_form(words)
        if form is not None and form_matches(pattern, form, others):
            return True
    return False


def _peel(command: SimpleCommand) -> Iterator[int]:
    """The positions a command may start at once assignments and wrappers are skipped."""
    words = command.words
    index = 0
    yield 0
    while index < len(words):
        word = words[index]
        if "=" in word and not word.startswith("-") and word.split("=", 1)[0].isidentifier():
            index += 1
        elif word in _WRAPPERS:
            index = _after_options(words, index + 1, word)
        else:
            break
        yield index


def _after_options(words: tuple[str, ...], index: int, wrapper: str) -> int:
    """The position after a wrapper's options (and their values, and ``timeout``'s
    duration)."""
    valued = _OPTION_VALUES.get(wrapper, frozenset())
    while index < len(words) and words[index].startswith("-"):
        index += 2 if words[index] in valued else 1
    if wrapper == "timeout" and index < len(words):
        index += 1
    return index


def _inner(command: SimpleCommand) -> list[SimpleCommand]:
    """Commands a command runs from its arguments: ``bash -c "…"`` and ``eval …``."""
    words = command.words
    for start in _peel(command):
        rest = words[start:]
        if len(rest) >= 3 and Path(rest[0]).name in _SHELLS and rest[1] == "-c":
            return list(split_command(rest[2]).every_command)
        if len(rest) >= 2 and rest[0] == "eval":
            return list(split_command(" ".join(rest[1:])).every_command)
    return []
