"""The ``tool_search`` tool: lists the deferred tools and loads the ones the model needs.

Its description lists every deferred tool by name and one line (sorted by name, so it reads
the same however the MCP servers came up). A query ``select:NAME1,NAME2`` loads those tools;
keywords load the best matches (at most ``max_results``); ``+word`` keeps only tools whose
name contains the word (Claude Code's ``ToolSearch`` takes the same queries). A loaded tool
is offered with its full schema from the next request on, so the result only names it with a
short signature: repeating the schema in the result would send it twice in every later
request. The result is compactable: once the tool is in the list, the result says nothing
the model does not see anyway.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lull.model import defaults
from lull.model.tool_search import TOOL_SEARCH_TOOL
from lull.tools.base import ToolContext, ToolError, ToolOutput, TypedTool
from lull.tools.deferral import DeferredTool, DeferredTools, tool_spec
from lull.tools.params import doc

SELECT = "select:"
REQUIRED = "+"
_WORDS = re.compile(r"[a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")

DESCRIPTION = """\
Load deferred tools so you can call them. The tools listed below are offered by name only: \
their parameters are not in your tool list until they are loaded, and a call that guesses \
them may fail. Load a tool before its first use: the query "select:NAME" (or \
"select:NAME1,NAME2") loads those exact tools; keywords ("github issue") load the best \
matches, at most max_results; "+word" keeps only tools whose name contains the word \
("+github create"). A loaded tool is in your tool list from your next step on, for the rest \
of the session: call it directly and never load it again."""


@dataclass(frozen=True, slots=True)
class ToolSearchParams:
    """The arguments of ``tool_search``."""

    query: str = field(
        metadata=doc(
            '"select:NAME1,NAME2" loads those tools; keywords ("github issue") load the best '
            'matches; "+word" requires the word in the tool\'s name.'
        )
    )
    max_results: int = field(
        default=defaults.TOOL_SEARCH_MAX_RESULTS,
        metadata=doc("How many tools a keyword query loads at most."),
    )


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed query: exact names (``select:``), or keywords, some required in the name."""

    names: tuple[str, ...] = ()
    terms: tuple[str, ...] = ()
    required: tuple[str, ...] = ()


def parse_query(text: str) -> Query:
    """``text`` as a :class:`Query`; raises :class:`ToolError` for an empty one."""
    text = text.strip()
    if text.lower().startswith(SELECT):
        names = tuple(n.strip() for n in text[len(SELECT) :].split(",") if n.strip())
        if not names:
            raise ToolError('tool_search: "select:" needs tool names ("select:NAME1,NAME2")')
        return Query(names=names)
    terms: list[str] = []
    required: list[str] = []
    for word in text.split():
        bare = word.removeprefix(REQUIRED).lower()
        if not bare:
            continue
        (required if word.startswith(REQUIRED) else terms).append(bare)
    if not terms and not required:
        raise ToolError(
            'tool_search: the query is empty; give keywords ("github issue") or '
            '"select:NAME" with a name from the deferred tools in this tool\'s description'
        )
    return Query(terms=tuple(terms), required=tuple(required))


def name_words(name: str) -> set[str]:
    """The words of a tool name (``mcp__github__createIssue`` -> github, create, issue)."""
    return set(_WORDS.findall(_CAMEL.sub(" ", name).lower())) - {"mcp"}


def score(entry: DeferredTool, query: Query) -> int:
    """How well ``entry`` matches the keywords of ``query`` (0: not at all, or a required
    word is not in its name): a whole word of the name counts most, then part of the name,
    then the description, then a parameter's name."""
    name = entry.name.lower()
    if any(word not in name for word in query.required):
        return 0
    words = name_words(entry.name)
    text = f"{entry.summary} {entry.tool.description}".lower()
    properties = entry.tool.parameters.get("properties")
    params = " ".join(properties).lower() if isinstance(properties, Mapping) else ""
    total = 0
    for term in (*query.required, *query.terms):
        if term in words:
            total += 10
        elif term in name:
            total += 5
        if term in text:
            total += 2
        if term in params:
            total += 1
    return total


def signature(entry: DeferredTool) -> str:
    """``name(a: string, b?: integer)``: the tool's parameters in one line (``?``: may be
    left out), and its one-line summary."""
    parameters = entry.tool.parameters
    properties = parameters.get("properties")
    required = set(parameters.get("required") or ())
    shown: list[str] = []
    if isinstance(properties, Mapping):
        for key, value in properties.items():
            kind = value.get("type", "any") if isinstance(value, Mapping) else "any"
            if isinstance(kind, list):
                kind = " | ".join(str(k) for k in kind)
            shown.append(f"{key}{'' if key in required else '?'}: {kind}")
    line = f"{entry.name}({', '.join(shown)})"
    return f"{line}: {entry.summary}" if entry.summary else line


class ToolSearchTool(TypedTool[ToolSearchParams]):
    """Load deferred tools by name or by keywords (offered only once a tool is deferred)."""

    name = TOOL_SEARCH_TOOL
    params = ToolSearchParams
    read_only = True
    compactable = True

    def __init__(self, deferred: DeferredTools) -> None:
        self.deferred = deferred

    @property
    def description(self) -> str:  # type: ignore[override]  # read live: tools arrive late
        """The usage, then every deferred tool by name and one line."""
        lines = [f"- {entry.name}: {entry.summary}" for entry in self.deferred.entries()]
        return DESCRIPTION + "\n\nDeferred tools:\n" + "\n".join(lines)

    async def call(self, params: ToolSearchParams, ctx: ToolContext) -> ToolOutput:
        """Load the tools the query names or matches, and say which they are."""
        if params.max_results < 1:
            wrong = params.max_results
            raise ToolError(f"tool_search: max_results must be 1 or more (got {wrong})")
        query = parse_query(params.query)
        if query.names:
            return self._select(query.names)
        ranked = sorted(
            ((score(entry, query), entry) for entry in self.deferred.entries()),
            key=lambda pair: (-pair[0], pair[1].name),
        )
        matches = [entry for points, entry in ranked if points > 0][: params.max_results]
        if not matches:
            return ToolOutput(
                f"No deferred tool matches {params.query.strip()!r}; the deferred tools are "
                'listed in tool_search\'s description (load one with "select:NAME").'
            )
        return self._load(matches, f'tool_search loaded it (query "{params.query.strip()}")')

    def _select(self, names: tuple[str, ...]) -> ToolOutput:
        """Load the named tools; a name that is no deferred tool is said, with the nearest."""
        by_name = {entry.name: entry for entry in self.deferred.entries()}
        found = [by_name[name] for name in dict.fromkeys(names) if name in by_name]
        unknown = [name for name in names if name not in by_name]
        notes: list[str] = []
        if unknown:
            import difflib

            for name in unknown:
                near = difflib.get_close_matches(name, list(by_name), n=3, cutoff=0.8)
                hint = f" (did you mean {', '.join(near)}?)" if near else ""
                notes.append(f"{name} is no deferred tool{hint}")
            notes.append(
                "tools already in your tool list need no loading; the deferred tools are "
                "listed in tool_search's description"
            )
        if not found:
            return ToolOutput("; ".join(notes), is_error=True)
        output = self._load(found, "tool_search loaded it (select)")
        if notes:
            content = output.content + "\n" + "; ".join(notes) + "."
            return ToolOutput(content, display=output.display)
        return output

    def _load(self, entries: list[DeferredTool], cause: str) -> ToolOutput:
        """Load ``entries``; the result names each with its signature."""
        fresh = set(self.deferred.load([entry.name for entry in entries], cause))
        new = [entry for entry in entries if entry.name in fresh]
        old = [entry for entry in entries if entry.name not in fresh]
        lines: list[str] = []
        if new:
            lines.append(
                f"Loaded {len(new)} tool{'s' if len(new) != 1 else ''}: from your next step on "
                "they are in your tool list with their full parameters; call them directly."
            )
            lines += [f"- {signature(entry)}" for entry in new]
        if old:
            lines.append("Already loaded (call them directly):")
            lines += [f"- {signature(entry)}" for entry in old]
        return ToolOutput("\n".join(lines), display=self._cost(new, old))

    def _cost(self, new: list[DeferredTool], old: list[DeferredTool]) -> str:
        """What the user sees: the tools loaded and what they add to every request."""
        if not new:
            return f"already loaded: {', '.join(entry.name for entry in old)}"
        names = ", ".join(entry.name for entry in new)
        policy = self.deferred.policy
        if policy is None:
            return f"loaded {names}"
        tokens = sum(policy.measure(tool_spec(entry.tool)) for entry in new)
        return (
            f"loaded {names} (~{tokens:,} tokens in each request from now on; the prompt "
            "cache is written anew once)"
        )

    def describe_call(self, args: Mapping[str, Any]) -> str:
        """The query."""
        return str(args.get("query", ""))
