"""Six MCP servers of the kinds people configure (the SDK's ``MCPServer`` over stdio), each
with a few tools whose schemas look like the real ones: ``python -m tests.bench.mcp_servers
KIND`` with KIND one of :data:`KINDS`. The tools answer with a line; the benchmark measures
starting, not calling."""

from __future__ import annotations

import sys
from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import Field

KINDS = ("github", "filesystem", "postgres", "slack", "browser", "memory")


def github(server: MCPServer) -> None:
    """Issues and pull requests."""

    @server.tool()
    def create_issue(
        owner: Annotated[str, Field(description="Repository owner (user or organization)")],
        repo: Annotated[str, Field(description="Repository name")],
        title: Annotated[str, Field(description="Issue title")],
        body: Annotated[str | None, Field(description="Issue body (markdown)")] = None,
        labels: Annotated[list[str] | None, Field(description="Labels to apply")] = None,
        assignees: Annotated[list[str] | None, Field(description="Users to assign")] = None,
    ) -> str:
        """Create a new issue in a GitHub repository."""
        return f"created {owner}/{repo}: {title}"

    @server.tool()
    def list_pull_requests(
        owner: str,
        repo: str,
        state: Literal["open", "closed", "all"] = "open",
        base: Annotated[str | None, Field(description="Filter by base branch")] = None,
        sort: Literal["created", "updated", "popularity", "long-running"] = "created",
        per_page: Annotated[int, Field(ge=1, le=100)] = 30,
        page: Annotated[int, Field(ge=1)] = 1,
    ) -> str:
        """List pull requests in a GitHub repository, newest first."""
        return f"no pull requests in {owner}/{repo}"

    @server.tool()
    def search_code(
        q: Annotated[str, Field(description="Search query (GitHub code search syntax)")],
        per_page: Annotated[int, Field(ge=1, le=100)] = 30,
    ) -> str:
        """Search for code across GitHub repositories."""
        return f"no results for {q}"


def filesystem(server: MCPServer) -> None:
    """Files under allowed directories."""

    @server.tool()
    def read_text_file(
        path: str,
        head: Annotated[int | None, Field(description="Only the first N lines")] = None,
        tail: Annotated[int | None, Field(description="Only the last N lines")] = None,
    ) -> str:
        """Read the complete contents of a file from the file system as text."""
        return f"contents of {path}"

    @server.tool()
    def edit_file(
        path: str,
        edits: Annotated[
            list[dict[str, str]], Field(description="Edits: objects with oldText and newText")
        ],
        dry_run: Annotated[bool, Field(description="Preview changes as a git-style diff")] = False,
    ) -> str:
        """Make line-based edits to a text file; returns a git-style diff."""
        return f"edited {path}"

    @server.tool()
    def directory_tree(path: str, exclude_patterns: list[str] | None = None) -> str:
        """A recursive tree view of files and directories as JSON."""
        return "[]"


def postgres(server: MCPServer) -> None:
    """A database."""

    @server.tool()
    def query(
        sql: Annotated[str, Field(description="A read-only SQL query")],
        params: Annotated[list[str | int | float | None] | None, Field()] = None,
    ) -> str:
        """Run a read-only SQL query."""
        return "0 rows"

    @server.tool()
    def list_tables(schema: str = "public") -> str:
        """List the tables of a schema with their row estimates."""
        return "no tables"

    @server.tool()
    def describe_table(table: str, schema: str = "public") -> str:
        """Columns, types, indexes and constraints of a table."""
        return f"{schema}.{table}"


def slack(server: MCPServer) -> None:
    """Channels and messages."""

    @server.tool()
    def post_message(
        channel_id: Annotated[str, Field(description="The channel's id")],
        text: Annotated[str, Field(description="The message (mrkdwn)")],
        thread_ts: Annotated[str | None, Field(description="Reply in this thread")] = None,
    ) -> str:
        """Post a new message to a Slack channel."""
        return "posted"

    @server.tool()
    def get_channel_history(
        channel_id: str, limit: Annotated[int, Field(ge=1, le=1000)] = 10
    ) -> str:
        """Recent messages from a channel."""
        return "[]"

    @server.tool()
    def list_channels(
        limit: Annotated[int, Field(ge=1, le=200)] = 100, cursor: str | None = None
    ) -> str:
        """List public channels in the workspace, with pagination."""
        return "[]"


def browser(server: MCPServer) -> None:
    """A headless browser."""

    @server.tool()
    def navigate(
        url: str, wait_until: Literal["load", "domcontentloaded", "networkidle"] = "load"
    ) -> str:
        """Navigate to a URL."""
        return f"at {url}"

    @server.tool()
    def click(
        selector: Annotated[str, Field(description="CSS selector of the element")],
        button: Literal["left", "right", "middle"] = "left",
        modifiers: list[Literal["Alt", "Control", "Meta", "Shift"]] | None = None,
    ) -> str:
        """Click an element on the page."""
        return "clicked"

    @server.tool()
    def screenshot(full_page: bool = False, selector: str | None = None) -> str:
        """Take a screenshot of the page or an element."""
        return "no screen"

    @server.tool()
    def evaluate(script: Annotated[str, Field(description="JavaScript to run in the page")]) -> str:
        """Evaluate JavaScript in the page and return the result."""
        return "undefined"


def memory(server: MCPServer) -> None:
    """A knowledge graph."""

    @server.tool()
    def create_entities(
        entities: Annotated[
            list[dict[str, str | list[str]]],
            Field(description="Entities, each with name, entityType and observations"),
        ],
    ) -> str:
        """Create entities in the knowledge graph."""
        return "created"

    @server.tool()
    def search_nodes(
        query: Annotated[str, Field(description="Matches names, types, observations")],
    ) -> str:
        """Search the knowledge graph."""
        return "[]"

    @server.tool()
    def open_nodes(names: list[str]) -> str:
        """Nodes by name, with their relations."""
        return "[]"


def main() -> None:
    """Serve the kind named on the command line over stdio."""
    kind = sys.argv[1]
    server = MCPServer(f"bench-{kind}")
    {
        "github": github,
        "filesystem": filesystem,
        "postgres": postgres,
        "slack": slack,
        "browser": browser,
        "memory": memory,
    }[kind](server)
    server.run()


if __name__ == "__main__":
    main()
