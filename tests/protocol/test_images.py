"""Images on both wires against the strict fake (base64, media type and size checked): a
mention, read_file on an image, the media window's cleared lines, and a text-only model that
gets a clear line instead of a 400."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from lull.model.events import ToolFinished, TurnFailed, TurnFinished
from lull.model.messages import Image
from tests.fakes import FakeServer, Reply, ToolUse
from tests.fakes.errors import WireError
from tests.fakes.images import check_anthropic_image, check_openai_image
from tests.images import png_bytes, png_image
from tests.support import AgentFactory

VENDORS = ["anthropic", "openai"]


def image_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every image block / part of a request, in either API's shape."""
    found = []
    for message in body["messages"]:
        content = message.get("content")
        if isinstance(content, list):
            found += [b for b in content if b.get("type") in ("image", "image_url")]
    return found


async def events_of(agent: Any, prompt: str, *images: Image) -> list[Any]:
    return [e async for e in agent.run_turn(prompt, images)]


@pytest.mark.parametrize("vendor", VENDORS)
async def test_a_mentioned_image_reaches_the_model(
    vendor: str, make_agent: AgentFactory, fake: FakeServer
) -> None:
    agent = make_agent(vendor)
    fake.script(Reply(text="a red square"))
    events = await events_of(agent, "what is this?", png_image(16, 16))
    assert not any(isinstance(e, TurnFailed) for e in events), events
    blocks = image_blocks(fake.requests[-1])
    if vendor == "anthropic":
        assert blocks[0]["source"]["media_type"] == "image/png"
        assert base64.b64decode(blocks[0]["source"]["data"]).startswith(b"\x89PNG")
    else:  # the fake's OpenAI model name accepts no images: a line goes instead
        assert blocks == []
        text = str(fake.requests[-1]["messages"][-1]["content"])
        assert "does not accept images" in text


async def test_openai_vision_models_get_data_urls(
    fake: FakeServer, workspace: Path, tmp_path: Path
) -> None:
    from lull.providers.config import ProviderConfig, create_provider
    from tests.support import build_agent

    agent = build_agent(fake, workspace, tmp_path, "openai")
    url = fake.url + "/v1"
    config = ProviderConfig("openai", "gpt-5-mini", "t", url, vendor="openai")
    agent.provider = create_provider(config)
    agent.fitter.provider = agent.provider
    fake.script(Reply(text="a red square"))
    events = await events_of(agent, "what is this?", png_image(16, 16))
    assert isinstance(events[-1], TurnFinished), events
    part = image_blocks(fake.requests[-1])[0]
    assert part["image_url"]["url"].startswith("data:image/png;base64,iVBOR")


async def test_read_file_on_an_image_sends_the_picture_after_the_result(
    make_agent: AgentFactory, fake: FakeServer, workspace: Path
) -> None:
    (workspace / "chart.png").write_bytes(png_bytes(40, 30))
    agent = make_agent("anthropic")
    agent.tools.images_allowed = True
    fake.script(Reply(tool_calls=[ToolUse("read_file", {"path": "chart.png"})]), Reply(text="ok"))
    events = await events_of(agent, "read the chart")
    result = next(e.result for e in events if isinstance(e, ToolFinished))
    assert result.content.startswith("[image chart.png: image/png")
    last = fake.requests[-1]["messages"][-1]["content"]
    assert [b["type"] for b in last] == ["tool_result", "image"]


async def test_a_text_only_model_gets_a_line_instead_of_a_400(
    make_agent: AgentFactory, fake: FakeServer
) -> None:
    agent = make_agent("deepseek")  # the fake rejects image parts for deepseek models
    fake.script(Reply(text="I cannot see images"))
    events = await events_of(agent, "what is this?", png_image())
    assert isinstance(events[-1], TurnFinished), events
    assert image_blocks(fake.requests[-1]) == []
    assert "deepseek-test does not accept images" in str(fake.requests[-1]["messages"][-1])


def test_the_fake_refuses_what_the_real_apis_refuse() -> None:
    data = base64.b64encode(png_bytes()).decode()
    good = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
    check_anthropic_image("messages.0.content.1", good)
    wrong_type = {"type": "image", "source": {**good["source"], "media_type": "image/jpeg"}}
    with pytest.raises(WireError, match="appears to be a image/png image"):
        check_anthropic_image("messages.0.content.1", wrong_type)
    bad = {"type": "image", "source": {**good["source"], "data": "not base64!"}}
    with pytest.raises(WireError, match="Invalid base64"):
        check_anthropic_image("messages.0.content.1", bad)
    huge = {"type": "image", "source": {**good["source"], "data": "A" * (5 * 1024 * 1024 + 4)}}
    with pytest.raises(WireError, match="image exceeds 5 MB maximum"):
        check_anthropic_image("messages.0.content.1", huge)
    part = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}}
    check_openai_image(1, part, "gpt-5")
    with pytest.raises(WireError, match="unknown variant `image_url`"):
        check_openai_image(1, part, "deepseek-chat")


async def test_the_media_window_sends_cleared_lines_the_fake_accepts(
    make_agent: AgentFactory, fake: FakeServer
) -> None:
    from tests.support import Clock

    clock = Clock()
    agent = make_agent("anthropic", clock=clock, media_keep=1)
    for number in range(3):
        fake.script(Reply(text="seen"))
        await events_of(agent, f"shot {number}", png_image())
        clock.advance_minutes(10)
    body = fake.requests[-1]
    assert len(image_blocks(body)) == 1
    assert "[Old image cleared: image/png, " in str(body["messages"])
