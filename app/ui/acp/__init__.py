"""``lull acp``: lull inside an editor, as an Agent Client Protocol agent over stdio.

One more front end on the same :class:`~lull.runtime.Runtime` as the terminal ones, built
on the official SDK (``agent-client-protocol``, imported only here): ``agent`` answers the
protocol's methods, ``session`` runs one editor session's prompts, ``updates`` turns the
engine's events into ``session/update`` messages, ``tool_calls`` says what a call is to the
editor, ``plans`` makes the model's to-do list the editor's plan, ``permissions`` asks the
editor for approvals, ``prompts`` reads the editor's content blocks, ``replay`` shows a
loaded session, ``listing`` lists the saved ones, ``modes`` offers approval modes and slash
commands, ``client_mcp`` takes the editor's MCP servers, ``files`` reads and writes through
the editor's ``fs/*`` where it offers them, ``terminal`` runs commands in the editor's
terminal where it offers one (never while lull's sandbox is on), and ``wire`` keeps stdout
for the protocol alone.
"""

from __future__ import annotations

import asyncio
import logging

from lull.runtime import RunOptions

log = logging.getLogger("lull.acp")


def run_acp(options: RunOptions) -> int:
    """Serve ACP on stdin/stdout until the editor closes the connection; the exit code."""
    try:
        asyncio.run(_serve(options))
    except KeyboardInterrupt:
        return 130
    return 0


async def _serve(options: RunOptions) -> None:
    from typing import cast

    from acp import Agent, run_agent

    from lull.ui.acp.agent import LullAgent
    from lull.ui.acp.wire import protocol_streams

    agent = LullAgent(options)
    reader, writer = await protocol_streams()
    try:
        # The SDK's Agent protocol lists every method of the schema, the unstable ones too;
        # its router answers "method not found" for the ones an agent leaves out.
        await run_agent(cast(Agent, agent), input_stream=writer, output_stream=reader)
    finally:
        for problem in await agent.close():
            log.error("session not saved: %s", problem)
