"""A server that never answers, or stops in the middle of an answer, fails after
``model.timeoutSeconds`` with a message naming the setting, instead of hanging."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from lull.model.provider import (
    ProviderError,
)
from tests.fakes import FakeServer, Reply
from tests.reliability.helpers import (
    Waits,
    answer,
    local_on,
)


@pytest.fixture
def silent_server() -> Iterator[tuple[str, list[socket.socket]]]:
    """A loopback server that accepts connections and never sends a byte.

    Its thread ends before the listener is closed: a thread still blocked in ``accept()``
    on a closed descriptor can take, after a signal restarts the call, the connections of
    whatever listener the next test opens under the same descriptor number."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    stopping = threading.Event()

    def accept() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            if stopping.is_set():
                connection.close()
                return
            accepted.append(connection)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1", accepted
    stopping.set()
    socket.create_connection(listener.getsockname()).close()  # wakes the blocked accept()
    thread.join(timeout=30)
    listener.close()
    for connection in accepted:
        connection.close()


async def test_a_server_that_never_answers_fails_after_model_timeout_seconds(
    silent_server: tuple[str, list[socket.socket]], waits: Waits
) -> None:
    url, accepted = silent_server
    provider = local_on(url, waits, timeout_seconds=0.2)
    with pytest.raises(ProviderError) as info:
        await answer(provider)
    await provider.aclose()
    assert info.value.kind == "timeout"
    assert info.value.message == (
        f"the server at {url} sent nothing for 0.2 s at {url} (model.timeoutSeconds). Check "
        "the server; a slow local model may need a larger model.timeoutSeconds in settings.json."
    )
    assert len(accepted) == 1 and waits.slept == []  # not retried: no 30 minutes of silence


async def test_a_stream_that_stalls_between_chunks_times_out_too(
    fake: FakeServer, waits: Waits
) -> None:
    fake.script(Reply(text="slow words arrive", chunk_size=4, chunk_delay=2.0))
    provider = local_on(fake.url + "/v1", waits, timeout_seconds=0.25)
    with pytest.raises(ProviderError) as info:
        await answer(provider)
    await provider.aclose()
    assert info.value.kind == "timeout"
    assert "stopped sending for 0.25 s in the middle of the answer" in info.value.message
    assert "model.timeoutSeconds" in info.value.message


def test_model_timeout_seconds_is_a_setting_with_a_default(
    workspace: Path, isolated_env: Path
) -> None:
    from lull.providers.sdk import sdk_client
    from lull.runtime import RunOptions, build_runtime

    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "k"}
    default = build_runtime(RunOptions(workspace, model="m"), env)
    assert default.provider_config.timeout_seconds == 300.0
    default.close()
    config_dir = isolated_env / "config" / "lull"
    config_dir.mkdir(parents=True)
    (config_dir / "settings.json").write_text('{"model": {"timeoutSeconds": 900}}')
    slow = build_runtime(RunOptions(workspace, model="m"), env)
    client = sdk_client(slow.provider_config, "openai", "AsyncOpenAI", "")
    assert (client.timeout.read, client.timeout.connect, client.max_retries) == (900, 10, 0)
    slow.close()
    (config_dir / "settings.json").write_text('{"model": {"timeoutSeconds": 0}}')
    bad = build_runtime(RunOptions(workspace, model="m"), env)
    [problem] = [d.message for d in bad.loaded.diagnostics]
    assert "model.timeoutSeconds" in problem and "> 0" in problem
    assert bad.provider_config.timeout_seconds == 300.0
    bad.close()
