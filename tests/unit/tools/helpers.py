"""Types shared by the tool tests."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from lull.tools.base import ToolOutput

Call = Callable[..., Awaitable[ToolOutput]]
"""Runs a tool through the registry: ``await call(name, [ctx], **args)``."""
