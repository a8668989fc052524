"""What a built-in tool is: a name, a JSON schema, flags, and an async ``run``.

Tools know nothing about providers or front ends: they take validated
arguments and a :class:`ToolContext` and return a :class:`ToolOutput`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.model import defaults


@dataclass(frozen=True, slots=True)
class ToolContext:
    """Where and how a tool runs.

    ``workspace`` is the directory the session works in; paths outside it (after
    resolving symlinks) are refused unless under one of ``allowed_paths``.
    ``output_dir`` is where full texts of truncated outputs are saved;
    ``shell_timeout_seconds`` is how long a shell command may run when the call names no
    timeout (``tools.shellTimeoutSeconds``).
    """

    workspace: Path
    output_dir: Path
    allowed_paths: tuple[Path, ...] = ()
    max_output_chars: int = defaults.MAX_OUTPUT_CHARS
    shell_timeout_seconds: float = defaults.SHELL_TIMEOUT_SECONDS
    call_id: str = ""


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """A tool's result: ``content`` goes to the model, ``display`` to the user."""

    content: str
    is_error: bool = False
    display: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)


class ToolError(Exception):
    """A failure the model should see as an error result (one clear line)."""


class Tool(ABC):
    """A built-in tool.

    ``read_only`` tools never change anything (allowed in plan mode, never
    asked about); ``compactable`` tools have outputs that idle cleanup may clear.
    """

    name: str = ""
    description: str = ""
    parameters: Mapping[str, Any] = {}
    read_only: bool = False
    compactable: bool = False

    @abstractmethod
    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        """Run the tool with schema-valid ``args``; raise ToolError for a clear failure."""

    def describe_call(self, args: Mapping[str, Any]) -> str:
        """A short summary of a call for the UI and approval prompts (the key argument)."""
        for key in ("path", "command", "pattern", "url"):
            if key in args:
                return str(args[key])
        return ""
