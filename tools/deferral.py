"""Deferred tools: offered by name and one line until loaded, then with their full schemas.

A tool source (an MCP server) registers its tools *deferred* when the policy says so
(``tools.toolSearch``, see :mod:`lull.model.tool_search`): the registry leaves them out of the
tools it offers, and the ``tool_search`` tool lists them (name and one line, sorted by name) in
its description. A tool is *loaded* when ``tool_search`` finds it or the model calls it anyway;
from the next request on it is offered with its schema, after every other tool, in the order
the tools were loaded, and it stays loaded for the rest of the session.

The cache: every request starts with the tools, so a tool joining the list rewrites the
provider's cached prefix once (the tools before it stay cached, the system prompt and the
messages after it are written again; a local server evaluates the prompt again). Appending
loaded tools at the end, never unloading one, and recording the loaded names in the session
(:attr:`DeferredTools.on_load`; restored on resume with :meth:`DeferredTools.restore`) keep
that to one rewrite per load, and a resumed session sends the very tool list it sent before.
Each load is named in :attr:`DeferredTools.causes`, so the cache-break detector calls it
expected and says why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import assert_never

from lull.model.provider import ToolSpec
from lull.model.tool_search import ToolSearchMode
from lull.tools.base import Tool

Measure = Callable[[ToolSpec], int]
"""Estimated tokens one tool definition costs in every request."""
SUMMARY_CHARS = 120
"""The one line a deferred tool is listed with is cut to this many characters."""


def one_line(description: str) -> str:
    """The first sentence of a tool's description (of its first line), at most
    :data:`SUMMARY_CHARS` characters; "" for an empty description."""
    line = next((ln.strip() for ln in description.splitlines() if ln.strip()), "")
    end = line.find(". ")
    if end >= 0:
        line = line[: end + 1]
    if len(line) > SUMMARY_CHARS:
        line = line[: SUMMARY_CHARS - 1].rstrip() + "…"
    return line


def tool_spec(tool: Tool) -> ToolSpec:
    """What the model is told about ``tool`` when it is offered in full."""
    return ToolSpec(tool.name, tool.description, tool.parameters)


@dataclass(frozen=True, slots=True)
class DeferralPolicy:
    """When a source's tools are deferred: ``mode`` (``tools.toolSearch``), and for ``auto``
    the tokens all deferrable schemas may take before they are (``threshold_tokens``: the
    setting's share of the context window), each schema counted with ``measure``."""

    mode: ToolSearchMode
    threshold_tokens: int
    measure: Measure


@dataclass(frozen=True, slots=True)
class DeferredTool:
    """A deferred tool and the one line it is listed with."""

    tool: Tool
    summary: str

    @property
    def name(self) -> str:
        """The tool's name."""
        return self.tool.name


class DeferredTools:
    """A registry's deferred tools, which of them are loaded, and why each was.

    ``policy`` None defers nothing. ``on_load`` (set by the runtime) is told the names of
    tools just loaded, to record them in the session; ``causes`` maps each loaded tool's name
    to why it joined the tool list (for the cache-break detector).
    """

    def __init__(self, policy: DeferralPolicy | None = None) -> None:
        self.policy = policy
        self.on_load: Callable[[tuple[str, ...]], None] | None = None
        self.causes: dict[str, str] = {}
        self.schema_tokens = 0
        """The deferrable schemas seen so far (``auto`` compares them with its threshold)."""
        self.deferring = False
        """Whether the sources' tools are being deferred (once on, on for the run)."""
        self._entries: dict[str, DeferredTool] = {}
        self._loaded: list[str] = []

    # --- deciding ---------------------------------------------------------------------------

    def decide(self, specs: Sequence[ToolSpec]) -> bool:
        """Whether a batch of a source's tools (one MCP server's, or every server's when
        ``lull -p`` registers them together) is deferred. ``auto`` counts the batch's schemas
        into :attr:`schema_tokens`; once they pass the threshold, this batch and every later
        one are deferred (earlier batches stay offered in full: taking them away would
        rewrite the cached prefix for tools the model may already use)."""
        policy = self.policy
        if policy is None:
            return False
        match policy.mode:
            case "off":
                return False
            case "on":
                self.deferring = True
            case "auto":
                self.schema_tokens += sum(policy.measure(spec) for spec in specs)
                self.deferring = self.deferring or self.schema_tokens > policy.threshold_tokens
            case _:
                assert_never(policy.mode)
        return self.deferring

    def add(self, tool: Tool, summary: str) -> None:
        """Keep ``tool`` (already in the registry) deferred, listed with ``summary``."""
        self._entries[tool.name] = DeferredTool(tool, summary)

    def discard(self, name: str) -> None:
        """Forget the deferred tool ``name`` (its source no longer has it); a loaded name
        stays recorded, so the tool is offered again if it comes back."""
        self._entries.pop(name, None)

    # --- what is deferred -------------------------------------------------------------------

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def entries(self) -> list[DeferredTool]:
        """Every deferred tool (loaded or not), sorted by name: the listing's order, the
        same however the sources came up."""
        return [self._entries[name] for name in sorted(self._entries)]

    def hidden(self, name: str) -> bool:
        """Whether ``name`` is deferred and not loaded (offered by name only)."""
        return name in self._entries and name not in self._loaded

    def pending(self) -> list[DeferredTool]:
        """The deferred tools not loaded yet, sorted by name."""
        return [entry for entry in self.entries() if entry.name not in self._loaded]

    def loaded(self) -> list[Tool]:
        """The loaded tools registered so far, in the order they were loaded."""
        return [self._entries[name].tool for name in self._loaded if name in self._entries]

    @property
    def loaded_names(self) -> tuple[str, ...]:
        """Every loaded name in load order (also those whose source is not up yet)."""
        return tuple(self._loaded)

    # --- loading ----------------------------------------------------------------------------

    def load(self, names: Iterable[str], cause: str) -> tuple[str, ...]:
        """Load the deferred tools ``names`` (others are left alone); returns the ones that
        were not loaded before, which :attr:`on_load` is told about."""
        fresh = tuple(dict.fromkeys(n for n in names if self.hidden(n)))
        if not fresh:
            return ()
        self._loaded.extend(fresh)
        for name in fresh:
            self.causes[name] = cause
        if self.on_load is not None:
            self.on_load(fresh)
        return fresh

    def restore(self, names: Iterable[str]) -> None:
        """A session's loaded tools (a resume, a session switch): exactly ``names``, in their
        order, whether or not their sources are up yet; nothing is recorded."""
        self._loaded = list(dict.fromkeys(names))
        self.causes.update(
            {name: "the resumed session had loaded it with tool_search" for name in self._loaded}
        )
