"""A server's tools as it lists them, each checked on its own: a tool whose input schema the
protocol or JSON Schema refuses is skipped and said, and the server's other tools are offered.

The SDK validates a ``tools/list`` answer as a whole, so one bad tool would fail the whole
server. :class:`ListingGuard` sits between the transport and the SDK's session: it notes which
requests are ``initialize`` (for the protocol version) and ``tools/list``, and takes the tools
that would fail the SDK's check out of a listing before the session reads it. :func:`list_tools`
then checks each schema left against JSON Schema (a provider refuses a whole request for one
tool whose schema is none). Messages are read by their fields, so only the checks import the
SDK, and only when a server lists its tools.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self

log = logging.getLogger("lull.mcp")

LIST_TOOLS = "tools/list"
_INITIALIZE = "initialize"
_FALLBACK_VERSION = "2025-11-25"  # a protocol version the SDK knows, until initialize says


@dataclass(frozen=True, slots=True)
class RemoteTool:
    """One tool as the server listed it."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    read_only_hint: bool = False


@dataclass(frozen=True, slots=True)
class SkippedTool:
    """A tool left out of a server's listing, and why (one phrase)."""

    name: str
    reason: str


class ListingGuard:
    """Watches a session's messages: the protocol version from the ``initialize`` answer, and
    each ``tools/list`` answer with the tools the SDK would refuse taken out (into
    :attr:`skipped`)."""

    def __init__(self) -> None:
        self.version = _FALLBACK_VERSION
        self.skipped: list[SkippedTool] = []
        self._pending: dict[str, str] = {}

    def reading(self, stream: Any) -> Any:
        """The transport's read stream, with listings checked on the way in."""
        return _Reading(stream, self)

    def writing(self, stream: Any) -> Any:
        """The transport's write stream, with the requests it carries noted."""
        return _Writing(stream, self)

    def sent(self, item: Any) -> None:
        """Note an ``initialize`` or ``tools/list`` request by its id."""
        message = getattr(item, "message", None)
        method = getattr(message, "method", None)
        request_id = getattr(message, "id", None)
        if method in (_INITIALIZE, LIST_TOOLS) and request_id is not None:
            self._pending[str(request_id)] = method

    def received(self, item: Any) -> Any:
        """``item``, or a copy whose listing leaves out the tools the SDK would refuse."""
        message = getattr(item, "message", None)
        request_id = getattr(message, "id", None)
        result = getattr(message, "result", None)
        if request_id is None or not isinstance(result, dict):
            return item
        match self._pending.pop(str(request_id), None):
            case "initialize":
                version = result.get("protocolVersion")
                if isinstance(version, str):
                    self.version = version
                return item
            case "tools/list":
                return self._checked(item, message, result)
            case _:
                return item

    def _checked(self, item: Any, message: Any, result: dict[str, Any]) -> Any:
        tools = result.get("tools")
        if not isinstance(tools, list):
            return item
        kept: list[Any] = []
        for tool in tools:
            problem = protocol_problem(tool, self.version)
            if problem is None:
                kept.append(tool)
                continue
            name = tool.get("name") if isinstance(tool, Mapping) else None
            self.skipped.append(SkippedTool(str(name or "(a tool without a name)"), problem))
        if len(kept) == len(tools):
            return item
        listing = message.model_copy(update={"result": {**result, "tools": kept}})
        return dataclasses.replace(item, message=listing)


def protocol_problem(tool: object, version: str) -> str | None:
    """Why the protocol (``version``'s schema) refuses one listed tool, or None."""
    from mcp.types import methods
    from pydantic import ValidationError

    try:
        methods.validate_server_result(LIST_TOOLS, version, {"tools": [tool]})
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"][2:])
        what = "input schema" if where.startswith("inputSchema") else "entry"
        return f"its {what} is invalid ({where or 'the tool'}: {first['msg']})"
    except (ValueError, KeyError):  # a version or method the SDK does not know: no check
        return None
    return None


def schema_problem(schema: Mapping[str, Any]) -> str | None:
    """Why ``schema`` is no JSON Schema (its own ``$schema`` draft, else 2020-12), or None."""
    from jsonschema import Draft202012Validator, exceptions, validators

    try:
        validators.validator_for(schema, default=Draft202012Validator).check_schema(schema)
    except exceptions.SchemaError as error:
        where = ".".join(str(part) for part in error.path)
        at = f" at {where}" if where else ""
        return f"its input schema is no valid JSON Schema ({error.message}{at})"
    return None


async def list_tools(session: Any, skipped: list[SkippedTool]) -> list[RemoteTool]:
    """Every tool the server lists (all pages), in its order; a tool whose schema is no
    JSON Schema joins ``skipped`` instead."""
    tools: list[RemoteTool] = []
    cursor: str | None = None
    while True:
        if cursor is None:
            page = await session.list_tools()
        else:
            from mcp.types import PaginatedRequestParams

            page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
        for tool in page.tools:
            schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
            problem = schema_problem(schema)
            if problem is not None:
                skipped.append(SkippedTool(tool.name, problem))
                continue
            annotations = getattr(tool, "annotations", None)
            hint = bool(getattr(annotations, "read_only_hint", False))
            tools.append(RemoteTool(tool.name, tool.description or "", schema, hint))
        cursor = getattr(page, "next_cursor", None)
        if not cursor:
            return tools


class _Wrapped:
    """A transport stream seen through a :class:`ListingGuard`: closing, entering and leaving,
    and any other attribute (``last_context`` and the like) go to the stream itself."""

    def __init__(self, inner: Any, guard: ListingGuard) -> None:
        self._inner = inner
        self._guard = guard

    async def aclose(self) -> None:
        """Close the transport's stream."""
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        return bool(await self._inner.__aexit__(exc_type, exc, tb))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _Reading(_Wrapped):
    """A read stream that passes what it reads through :meth:`ListingGuard.received`."""

    async def receive(self) -> Any:
        """The next message, checked."""
        return self._guard.received(await self._inner.receive())

    def __aiter__(self) -> _Reading:
        return self

    async def __anext__(self) -> Any:
        return self._guard.received(await self._inner.__anext__())


class _Writing(_Wrapped):
    """A write stream that shows what it sends to :meth:`ListingGuard.sent`."""

    async def send(self, item: Any, /) -> None:
        """Note the request, then send it."""
        self._guard.sent(item)
        await self._inner.send(item)
