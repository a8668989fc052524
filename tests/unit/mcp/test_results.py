"""Call results: text, images, resource links, embedded resources, structured content, caps."""

from __future__ import annotations

from pathlib import Path

from mcp.types import (
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from lull.mcp.results import convert_result
from lull.tools.base import ToolContext
from tests.mcp.server import PNG


def _ctx(tmp_path: Path, limit: int = 30_000) -> ToolContext:
    return ToolContext(workspace=tmp_path, output_dir=tmp_path / "out", max_output_chars=limit)


def test_text_image_link_and_resource(tmp_path: Path) -> None:
    result = CallToolResult(
        content=[
            TextContent(type="text", text="hello"),
            ImageContent(type="image", data=PNG, mime_type="image/png"),
            ResourceLink(type="resource_link", name="notes", uri="file:///n.txt"),
            EmbeddedResource(
                type="resource", resource=TextResourceContents(uri="file:///a", text="body")
            ),
        ]
    )
    output = convert_result(result, "t's result", _ctx(tmp_path))
    assert "hello" in output.content and "[image 1: image/png" in output.content
    assert "[resource link: notes <file:///n.txt>]" in output.content
    assert "[resource file:///a]\nbody" in output.content
    assert [i.media_type for i in output.images] == ["image/png"] and not output.is_error


def test_errors_structured_content_and_large_text(tmp_path: Path) -> None:
    failed = CallToolResult(content=[TextContent(type="text", text="nope")], is_error=True)
    assert convert_result(failed, "x", _ctx(tmp_path)).is_error
    structured = CallToolResult(content=[], structured_content={"n": 1})
    assert '"n": 1' in convert_result(structured, "x", _ctx(tmp_path)).content
    big = CallToolResult(content=[TextContent(type="text", text="y" * 5000)])
    capped = convert_result(big, "big's result", _ctx(tmp_path, limit=1000)).content
    assert len(capped) < 1500 and "full output saved to" in capped
