"""The parameters schema every offered tool sends the model, byte for byte, against a golden
file (``schemas.json``, first written from the hand-written schemas before they were generated
from params dataclasses): a schema that changes shape, order or wording fails here.

After a deliberate change, write the file again with
``.venv/bin/python -m tests.unit.tools.test_schemas`` and review the diff."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import pytest

from lull.engine.fitting.recall import RecallTool
from lull.engine.subagents.task import GENERAL, AgentProfile, SubagentSetup, TaskTool
from lull.mcp.naming import adapt_schema
from lull.model.search import SearchAnswer
from lull.tools.base import Tool
from lull.tools.builtin.tool_search import ToolSearchTool
from lull.tools.builtin.web_search import WebSearchTool
from lull.tools.deferral import DeferredTools
from lull.tools.registry import default_registry

GOLDEN = Path(__file__).with_name("schemas.json")


class _NoSearch:
    """A search backend that is never asked (only the schema is read)."""

    name = "none"
    endpoint = None

    async def search(
        self, query: str, count: int, *, private_ok: bool, domains: Sequence[str] = ()
    ) -> SearchAnswer:
        raise AssertionError("not called")


def _never() -> Any:
    raise AssertionError("not called")


def offered_tools() -> dict[str, Tool]:
    """Every tool lull itself defines, by a name for the golden file (task twice: with the
    built-in agent only and with a custom one, as its enum follows the profiles)."""
    setup = cast(SubagentSetup, None)
    custom = AgentProfile("reviewer", "Reviews a change.")
    tools: dict[str, Tool] = {tool.name: tool for tool in default_registry()}
    tools["web_search"] = WebSearchTool(_NoSearch())
    tools["recall"] = RecallTool(_never)
    tools["task"] = TaskTool(setup, _never, _never)
    tools["task (two profiles)"] = TaskTool(setup, _never, _never, (GENERAL, custom))
    tools["tool_search"] = ToolSearchTool(DeferredTools())
    return tools


def _golden() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return loaded


def test_the_golden_file_names_every_tool() -> None:
    assert list(_golden()) == list(offered_tools())


@pytest.mark.parametrize("name", list(offered_tools()))
def test_the_schema_is_byte_identical_to_the_golden_one(name: str) -> None:
    tool = offered_tools()[name]
    sent = json.dumps(tool.parameters, sort_keys=False)
    assert sent == json.dumps(_golden()[name], sort_keys=False)


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_every_schema_is_one_the_providers_take_as_it_is(provider: str) -> None:
    for tool in offered_tools().values():
        assert adapt_schema(tool.parameters, provider) == tool.parameters


def write_golden() -> None:
    """Write ``schemas.json`` from the tools as they are now."""
    schemas = {name: tool.parameters for name, tool in offered_tools().items()}
    GOLDEN.write_text(json.dumps(schemas, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write_golden()
