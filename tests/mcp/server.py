"""A real MCP server for the tests (the SDK's MCPServer, formerly FastMCP).

Tools: ``echo`` (text), ``add`` (read-only annotated), ``picture`` (an image), ``link`` (a
resource link), ``big`` (a long text), ``crash`` (writes to stderr, then the process dies
mid-call), ``hang`` (never answers). ``--odd-schema`` adds ``search.files`` whose schema has a
top-level ``anyOf`` (both providers reject that) and a tool with a 70-character name;
``--fail-start`` writes a line to stderr and exits before speaking MCP; ``--http PORT`` serves
streamable HTTP on 127.0.0.1 instead of stdio. ``--pid-file PATH`` records the process id.

``--stateful`` adds ``count`` (a counter kept in the process: it shows whether the server was
restarted, and how many calls the client cancelled), ``fail`` (answers with a JSON-RPC error,
as a low-level server that raises does) and ``slow`` (sleeps ``seconds`` asynchronously, then
answers). ``--hang-start`` never speaks MCP (it sleeps forever); ``--start-delay SECONDS``
sleeps before it starts; ``--flood N`` writes N junk lines to stdout before it starts;
``--gate PATH`` waits (before it speaks MCP) until PATH exists, then exits with an error when
the file says ``fail`` (a test opens the gate once it has seen what it waits for).
``--bad-schema`` adds ``broken`` (an input schema of type array, which the protocol refuses)
and ``misspelled`` (a schema the protocol takes but JSON Schema does not: ``"type":
"strin"``); the server's own check of what it sends is switched off for ``tools/list``, as a
server that is not built on the SDK has none.
"""

from __future__ import annotations

import argparse
import base64
import os
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import ImageContent, ResourceLink, TextContent, ToolAnnotations
from mcp_types import methods

# a 1x1 transparent PNG
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
).decode()


def build(odd_schema: bool, stateful: bool = False, bad_schema: bool = False) -> MCPServer:
    """The server and its tools."""
    server = MCPServer("lull-test")
    if stateful:
        add_stateful(server)

    @server.tool()
    def echo(text: str) -> str:
        """Say the text back."""
        return f"echo: {text}"

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def add(a: int, b: int) -> str:
        """Add two numbers."""
        return str(a + b)

    @server.tool()
    def picture() -> list[TextContent | ImageContent]:
        """A tiny image."""
        return [
            TextContent(type="text", text="here it is"),
            ImageContent(type="image", data=PNG, mime_type="image/png"),
        ]

    @server.tool()
    def link() -> list[ResourceLink]:
        """A link to a resource."""
        return [ResourceLink(type="resource_link", name="notes", uri="file:///tmp/notes.txt")]

    @server.tool()
    def big(lines: int) -> str:
        """Many lines of text."""
        return "\n".join(f"line {n} " + "x" * 60 for n in range(lines))

    @server.tool()
    def crash() -> str:
        """Die in the middle of the call."""
        print("about to crash: out of cheese", file=sys.stderr, flush=True)
        os._exit(3)

    @server.tool()
    def hang() -> str:
        """Never answer."""
        while True:
            time.sleep(1)

    if bad_schema:
        add_bad_schemas(server)
    if odd_schema:

        @server.tool(name="search.files")
        def search(query: str) -> str:
            """Search (its schema has a top-level anyOf)."""
            return f"found {query}"

        @server.tool(name="a_tool_with_a_name_that_is_far_too_long_for_any_provider_to_take_x")
        def long_named() -> str:
            """A long name."""
            return "ok"

        tool = server._tool_manager.get_tool("search.files")
        assert tool is not None
        tool.parameters = {
            "type": "object",
            "anyOf": [
                {"type": "object", "properties": {"query": {"type": "string"}}},
                {"type": "object", "properties": {"glob": {"type": "string"}}},
            ],
            "$schema": "https://json-schema.org/draft/2020-12/schema",
        }
    return server


def add_bad_schemas(server: MCPServer) -> None:
    """``broken`` and ``misspelled``, and ``tools/list`` sent without the SDK's own check."""

    @server.tool()
    def broken(x: str) -> str:
        """A tool whose schema the protocol refuses."""
        return x

    @server.tool()
    def misspelled(x: str) -> str:
        """A tool whose schema is no JSON Schema."""
        return x

    for name, schema in (
        ("broken", {"type": "array", "items": {"type": "string"}}),
        ("misspelled", {"type": "object", "properties": {"x": {"type": "strin"}}}),
    ):
        tool = server._tool_manager.get_tool(name)
        assert tool is not None
        tool.parameters = schema
    checked = methods.serialize_server_result

    def unchecked_listing(method: str, version: str, data: Any, **kwargs: Any) -> Any:
        if method == "tools/list":
            return data
        return checked(method, version, data, **kwargs)

    methods.serialize_server_result = unchecked_listing


def add_stateful(server: MCPServer) -> None:
    """``count``, ``fail`` and ``slow``: state that a restart would lose, and errors."""
    counter = [0]
    cancelled = [0]

    @server.tool()
    def count() -> str:
        """Add one to the counter and say it (and how many calls the client cancelled)."""
        counter[0] += 1
        return f"count {counter[0]}" + (f", {cancelled[0]} cancelled" if cancelled[0] else "")

    @server.tool()
    def fail(reason: str = "the widget is jammed") -> str:
        """Answer with a JSON-RPC error."""
        raise MCPError(code=-32603, message=reason)

    @server.tool()
    async def slow(seconds: float) -> str:
        """Sleep, then answer (a client's notifications/cancelled ends the sleep)."""
        try:
            await anyio.sleep(seconds)
        except anyio.get_cancelled_exc_class():
            cancelled[0] += 1
            raise
        return f"slept {seconds:g}"


def wait_for_gate(gate: Path) -> None:
    """Block until ``gate`` exists; exit with an error when it says ``fail``."""
    while not gate.exists():
        time.sleep(0.02)
    if gate.read_text().strip() == "fail":
        print("fatal: the gate said fail", file=sys.stderr, flush=True)
        sys.exit(2)


def main() -> None:
    """Run the server as the arguments say."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int)
    parser.add_argument("--fail-start", action="store_true")
    parser.add_argument("--odd-schema", action="store_true")
    parser.add_argument("--pid-file")
    parser.add_argument("--stateful", action="store_true")
    parser.add_argument("--hang-start", action="store_true")
    parser.add_argument("--flood", type=int, default=0)
    parser.add_argument("--start-delay", type=float, default=0.0)
    parser.add_argument("--bad-schema", action="store_true")
    parser.add_argument("--gate")
    parser.add_argument("--touch", action="append", default=[], help="files to try to write")
    args = parser.parse_args()
    if args.pid_file:
        Path(args.pid_file).write_text(str(os.getpid()))
    if args.fail_start:
        print("fatal: the database is not there", file=sys.stderr, flush=True)
        sys.exit(2)
    print("test server starting", file=sys.stderr, flush=True)
    for place in args.touch:
        try:
            Path(place).write_text("written by the server")
            print(f"touch {place}: written", file=sys.stderr, flush=True)
        except OSError as error:
            print(f"touch {place}: {error.strerror}", file=sys.stderr, flush=True)
    if args.gate:
        wait_for_gate(Path(args.gate))
    if args.hang_start:
        while True:
            time.sleep(1)
    time.sleep(args.start_delay)
    for n in range(args.flood):
        sys.stdout.write(f"junk line {n}: this is not JSON-RPC at all\n")
    sys.stdout.flush()
    server = build(args.odd_schema, args.stateful, args.bad_schema)
    if args.http:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        server.run()


if __name__ == "__main__":
    main()
