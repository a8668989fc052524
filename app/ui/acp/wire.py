"""The JSON-RPC wire of ``lull acp``: newline-delimited JSON on stdin and stdout.

Standard output belongs to the protocol alone: the real stdout is kept on a descriptor of
its own and descriptor 1 is pointed at stderr, so a stray ``print`` or a child process that
inherits stdout can never corrupt a message. A line from the editor that is not a JSON
object is answered with a JSON-RPC error (``-32700`` parse error, ``-32600`` invalid
request, ``id`` null) and skipped; the session goes on.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

LINE_LIMIT = 50 * 1024 * 1024
"""The longest message accepted (images travel inline, base64)."""
PARSE_ERROR, INVALID_REQUEST = -32700, -32600


def rejection(line: bytes) -> dict[str, Any] | None:
    """The error response for a line that is no JSON-RPC message (None: pass it on)."""
    try:
        message = json.loads(line)
    except (UnicodeDecodeError, ValueError) as error:
        return _error(PARSE_ERROR, "Parse error: the line is not valid JSON", str(error))
    if not isinstance(message, dict):
        kind = type(message).__name__
        return _error(INVALID_REQUEST, "Invalid request: expected a JSON object", kind)
    return None


def _error(code: int, message: str, details: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": code, "message": message, "data": {"details": details}},
    }


async def protocol_streams() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """The editor's messages (malformed lines answered and left out) and the writer of
    lull's; stdout is lull's protocol channel from now on."""
    loop = asyncio.get_running_loop()
    sys.stdout.flush()
    channel = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    raw = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(raw), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, channel)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    checked = asyncio.StreamReader(limit=LINE_LIMIT)
    pump = loop.create_task(_pump(raw, checked, writer))
    _PUMPS.add(pump)
    pump.add_done_callback(_PUMPS.discard)
    return checked, writer


_PUMPS: set[asyncio.Task[None]] = set()


async def _pump(
    raw: asyncio.StreamReader, checked: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    """Copy the editor's lines to ``checked``, answering the malformed ones."""
    try:
        while line := await raw.readline():
            if not line.strip():
                continue
            error = rejection(line)
            if error is None:
                checked.feed_data(line)
                continue
            writer.write(json.dumps(error).encode() + b"\n")
            await writer.drain()
    except (asyncio.LimitOverrunError, ValueError) as error:
        reply = _error(PARSE_ERROR, "Parse error: a message over the size limit", str(error))
        writer.write(json.dumps(reply).encode() + b"\n")
    finally:
        checked.feed_eof()
