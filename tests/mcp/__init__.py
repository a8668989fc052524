"""Real MCP servers for the tests, written with the official SDK (MCPServer, formerly FastMCP).

``python -m tests.mcp.server [--http PORT] [--fail-start] [--odd-schema] [--stateful] …`` runs
one; see :mod:`tests.mcp.server` for its tools and flags.
"""
