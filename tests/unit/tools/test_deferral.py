"""Deferred tools in the registry: when a batch is deferred (on, off, auto past its share),
what the model is offered (tool_search once something is deferred, loaded tools appended in
load order), a call to a tool never loaded, and a session's loaded set restored."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lull.model.provider import ToolSpec
from lull.model.tool_search import TOOL_SEARCH_TOOL
from lull.tools.base import Tool, ToolContext, ToolOutput
from lull.tools.builtin.tool_search import ToolSearchTool
from lull.tools.deferral import DeferralPolicy, DeferredTools, one_line
from lull.tools.registry import ToolRegistry, default_registry


class Remote(Tool):
    """A stand-in for an MCP tool: says its name and arguments back."""

    def __init__(self, name: str, description: str = "Does a thing. More words.") -> None:
        self.name = name
        self.description = description
        self.parameters: Mapping[str, Any] = {
            "type": "object",
            "properties": {"text": {"type": "string"}, "count": {"type": "integer"}},
            "required": ["text"],
        }

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput(f"{self.name} {dict(args)}")


def _size(spec: ToolSpec) -> int:
    return 100


def _registry(mode: str = "on", threshold: int = 0) -> ToolRegistry:
    registry = default_registry()
    registry.deferred.policy = DeferralPolicy(mode, threshold, _size)  # type: ignore[arg-type]
    registry.add(ToolSearchTool(registry.deferred))
    return registry


def _defer(registry: ToolRegistry, *names: str) -> None:
    for name in names:
        registry.add_deferred(Remote(name), "Does a thing.")


def _names(registry: ToolRegistry) -> list[str]:
    return [spec.name for spec in registry.specs()]


def test_on_off_and_auto_past_its_threshold_which_then_stays_on() -> None:
    specs = [ToolSpec("a", "", {}), ToolSpec("b", "", {})]
    assert DeferredTools().decide(specs) is False  # no policy: nothing is deferred
    assert DeferredTools(DeferralPolicy("off", 0, _size)).decide(specs) is False
    assert DeferredTools(DeferralPolicy("on", 10**9, _size)).decide(specs) is True
    auto = DeferredTools(DeferralPolicy("auto", 250, _size))
    assert auto.decide(specs) is False and auto.schema_tokens == 200
    assert auto.decide(specs[:1]) is True  # 300 > 250: this batch is deferred
    assert auto.decide(specs[:1]) is True and auto.deferring  # and every later one


def test_tool_search_appears_with_the_first_deferred_tool_and_loads_append_in_order() -> None:
    registry = _registry()
    assert TOOL_SEARCH_TOOL not in _names(registry)  # nothing deferred: not offered
    before = _names(registry)
    _defer(registry, "mcp__s__b", "mcp__s__a", "mcp__s__c")
    assert _names(registry) == [*before, TOOL_SEARCH_TOOL]
    search = registry.specs()[-1]
    assert search.description.endswith(  # sorted by name, however they arrived
        "Deferred tools:\n- mcp__s__a: Does a thing.\n- mcp__s__b: Does a thing.\n"
        "- mcp__s__c: Does a thing."
    )
    heard: list[tuple[str, ...]] = []
    registry.deferred.on_load = heard.append
    assert registry.deferred.load(["mcp__s__c", "nope"], "test") == ("mcp__s__c",)
    assert registry.deferred.load(["mcp__s__a", "mcp__s__c"], "test") == ("mcp__s__a",)
    assert _names(registry) == [*before, TOOL_SEARCH_TOOL, "mcp__s__c", "mcp__s__a"]
    assert registry.specs()[-1].description == "Does a thing. More words."  # in full
    assert heard == [("mcp__s__c",), ("mcp__s__a",)]
    assert registry.deferred.causes["mcp__s__a"] == "test"
    assert registry.specs()[-3] == search  # the listing does not change on a load


async def test_a_call_to_a_tool_never_loaded_runs_and_loads_it(tmp_path: Any) -> None:
    registry = _registry()
    _defer(registry, "mcp__s__a")
    ctx = ToolContext(workspace=tmp_path, output_dir=tmp_path / "out")
    bad = await registry.execute("mcp__s__a", {"count": 1}, ctx)
    assert bad.is_error and "mcp__s__a was not loaded yet; its parameters: {" in bad.content
    assert '"required": ["text"]' in bad.content
    assert registry.deferred.loaded_names == ("mcp__s__a",)  # loaded all the same
    good = await registry.execute("mcp__s__a", {"text": "x"}, ctx)
    assert good.content == "mcp__s__a {'text': 'x'}" and not good.is_error
    again = await registry.execute("mcp__s__a", {"count": 1}, ctx)
    assert "not loaded yet" not in again.content  # loaded now: the usual message


def test_a_restored_session_offers_its_tools_in_its_order_as_they_arrive() -> None:
    registry = _registry()
    heard: list[tuple[str, ...]] = []
    registry.deferred.on_load = heard.append
    registry.deferred.restore(["mcp__s__b", "mcp__t__x", "mcp__s__a"])
    _defer(registry, "mcp__s__a", "mcp__s__b")  # server t is not up yet
    assert _names(registry)[-2:] == ["mcp__s__b", "mcp__s__a"]
    _defer(registry, "mcp__t__x")
    assert _names(registry)[-3:] == ["mcp__s__b", "mcp__t__x", "mcp__s__a"]
    assert heard == []  # restoring records nothing
    assert "resumed session" in registry.deferred.causes["mcp__t__x"]
    registry.deferred.restore([])  # another session: none loaded
    assert _names(registry)[-1] == TOOL_SEARCH_TOOL


def test_excluded_tools_stay_out_even_when_loaded() -> None:
    registry = _registry()
    _defer(registry, "mcp__s__a")
    registry.exclude(["mcp__s__a"])
    registry.deferred.load(["mcp__s__a"], "test")
    assert "mcp__s__a" not in _names(registry)


def test_one_line_is_the_first_sentence_of_the_first_line() -> None:
    assert one_line("\n  Create an issue. Use it when you must.\nMore.") == "Create an issue."
    assert one_line("Version 1.2 of it") == "Version 1.2 of it"
    assert one_line("") == ""
    long = one_line("x" * 500)
    assert len(long) == 120 and long.endswith("…")


def test_a_plain_registry_defers_nothing() -> None:
    registry = ToolRegistry([Remote("mcp__s__a")])
    assert _names(registry) == ["mcp__s__a"] and len(registry.deferred) == 0
