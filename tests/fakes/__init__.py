"""A loopback fake of the Anthropic Messages and OpenAI Chat Completions APIs for tests.

from tests.fakes import FakeServer, Reply, ToolUse

with FakeServer() as fake:
    fake.script(Reply(text="Hi"))
    client = anthropic.Anthropic(base_url=fake.url, api_key="test")
"""

from tests.fakes.clock import FakeClock
from tests.fakes.quirks import ServerQuirks
from tests.fakes.script import Reply, ToolUse, demo_reply, echo_reply, last_user_text
from tests.fakes.server import FakeServer, JournalEntry
from tests.fakes.server_tools import SearchHit, ServerSearch

__all__ = [
    "FakeClock",
    "FakeServer",
    "JournalEntry",
    "Reply",
    "SearchHit",
    "ServerQuirks",
    "ServerSearch",
    "ToolUse",
    "demo_reply",
    "echo_reply",
    "last_user_text",
]
