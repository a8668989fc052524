"""The MCP client: servers from ``mcpServers`` (and a project's ``.mcp.json``) run in the
background and their tools join the registry as ``mcp__<server>__<tool>``.

``manager`` decides which servers may start (a project's servers need a trusted workspace)
and registers their tools; ``connection`` runs one server over stdio, streamable HTTP or SSE
with the official ``mcp`` SDK (imported only when a server starts); ``tool`` is the adapter
that implements :class:`lull.tools.base.Tool`; ``results`` turns a call's content into a result;
``naming`` adapts tool names and schemas to what the providers accept.
Nothing here imports the SDK at import time.
"""
