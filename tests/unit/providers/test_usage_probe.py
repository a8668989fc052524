"""When lull asks a server for the usage its stream did not carry."""

from __future__ import annotations

from lull.model.messages import Text
from lull.model.provider import Completed, Usage
from lull.providers.config import ProviderConfig
from lull.providers.openai import OpenAIProvider
from lull.providers.usage_probe import PROBE_EVERY

UNREPORTED = Completed((Text("hi"),), Usage(reported=False), "end_turn")
REPORTED = Completed((Text("hi"),), Usage(input=5, output=1), "end_turn")


def _probe(base_url: str) -> OpenAIProvider:
    return OpenAIProvider(ProviderConfig("openai", "m", "k", base_url, "openai"))


def test_only_a_local_server_without_usage_is_asked() -> None:
    remote = _probe("https://api.example.invalid/v1").usage_probe
    assert not remote.due(UNREPORTED)  # a hosted API: its answer stands as it is
    local = _probe("http://127.0.0.1:8080/v1").usage_probe
    assert not local.due(REPORTED)  # usage came with the stream
    due = [local.due(UNREPORTED) for _ in range(2 * PROBE_EVERY + 1)]
    assert [i for i, asked in enumerate(due) if asked] == [0, PROBE_EVERY, 2 * PROBE_EVERY]
