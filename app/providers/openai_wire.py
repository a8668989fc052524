"""Neutral request -> OpenAI Chat Completions parameters (pure, no SDK import).

Choices made here:

* System prompt: ONE system message, ``system`` + "\\n\\n" + ``environment``.
  The static part is a byte-stable prefix of it (prefix caching still hits),
  and chat templates that reject a second system message keep working.
* Tool results become ``{"role": "tool"}`` messages, in order, right after the
  assistant message; an error result's content starts with ``"Error: "``
  (unless it already starts with "Error") because the format has no error flag.
* A user message with several text parts (e.g. a summary + the prompt) is
  sent as one string, the parts joined by a blank line; with images it is a
  list of content parts.
* An assistant message without text (only tool calls) has ``"content": ""``, never null:
  OpenAI, vLLM and llama.cpp accept ``""``, while llama-cpp-python answers every later
  request of such a conversation with a 500.
* Reasoning is sent back per vendor dialect (see :func:`reasoning_for`).
* ``prompt_cache_key`` = the session id, for the vendors in :data:`CACHE_KEY_VENDORS`
  (OpenAI; Moonshot/Kimi documents it too), unless the request turns it off.
* A request that continues a partial answer (``continue_final``) asks vLLM and SGLang for
  ``continue_final_message`` (and no generation prompt), so the model writes on from the
  final assistant message instead of starting a new one.
* ``tool_choice`` "none" is sent as ``"tool_choice": "none"`` (tools stay defined: the
  prefix the server caches is unchanged).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, assert_never

from lull.catalog.prefill import CONTINUE_FINAL_VENDORS
from lull.catalog.vision import accepts_images, provider_image_limits
from lull.context.media import sendable_images
from lull.model.messages import Image, Message, Text, Thinking, ToolResult
from lull.model.provider import ModelRequest, ToolSpec, Vendor
from lull.providers.arguments import arguments_json

PROVIDER_NAME = "openai"
ERROR_PREFIX = "Error: "
_REASONING_VENDORS = frozenset({"deepseek", "kimi"})
#: Vendors known to accept ``prompt_cache_key`` (cache routing by session). DeepSeek caches by
#: prefix without a key; other servers may reject unknown fields, so they never get it.
CACHE_KEY_VENDORS = frozenset({"openai", "kimi"})


def build_params(request: ModelRequest, model: str, vendor: Vendor) -> dict[str, Any]:
    """The keyword arguments for ``chat.completions.create`` (streaming, with usage)."""
    messages = message_params(
        request.system, request.environment, sendable(request.messages, model), vendor
    )
    return {"model": model, "messages": messages, **head_params(request, model, vendor)}


def sendable(messages: Sequence[Message], model: str) -> Sequence[Message]:
    """``messages`` with the images ``model`` cannot take here replaced by a line saying so."""
    return sendable_images(
        messages, model, accepts_images(model), provider_image_limits(PROVIDER_NAME)
    )


def head_params(request: ModelRequest, model: str, vendor: Vendor) -> dict[str, Any]:
    """Every parameter but ``messages`` (``model`` first), in the order they are sent."""
    params: dict[str, Any] = {"model": model}
    if request.tools:
        params["tools"] = tool_params(request.tools)
        if request.tool_choice == "none":
            params["tool_choice"] = "none"
    limit_field = "max_completion_tokens" if vendor == "openai" else "max_tokens"
    params[limit_field] = request.max_output_tokens
    keyed = request.prompt_caching and request.prompt_cache_key and request.session_id
    if keyed and vendor in CACHE_KEY_VENDORS:
        params["prompt_cache_key"] = request.session_id
    if request.continue_final and vendor in CONTINUE_FINAL_VENDORS:
        params["extra_body"] = {"continue_final_message": True, "add_generation_prompt": False}
    params["stream"] = True
    params["stream_options"] = {"include_usage": True}
    return params


def tool_params(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """Function tool definitions in the order given."""
    return [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": t.description,
                "parameters": dict(t.parameters),
            },
        }
        for t in tools
    ]


def system_text(system: str, environment: str) -> str:
    """The one system message: static prompt first, dynamic facts after a blank line."""
    return "\n\n".join(text for text in (system, environment) if text)


def message_params(
    system: str, environment: str, messages: Sequence[Message], vendor: Vendor
) -> list[dict[str, Any]]:
    """The ``messages`` array: system message, then every conversation message."""
    wire = system_messages(system, environment)
    for message in messages:
        wire.extend(wire_messages(message, vendor))
    return wire


def system_messages(system: str, environment: str) -> list[dict[str, Any]]:
    """The one system message (none when both parts are empty)."""
    prompt = system_text(system, environment)
    return [{"role": "system", "content": prompt}] if prompt else []


def wire_messages(message: Message, vendor: Vendor) -> list[dict[str, Any]]:
    """What one neutral message becomes on the wire (a user message: its tool results, then
    its text)."""
    if message.role == "assistant":
        return [assistant_message(message, vendor)]
    return user_messages(message)


def user_messages(message: Message) -> list[dict[str, Any]]:
    """Tool messages for the results, then one user message for text/images (if any)."""
    wire: list[dict[str, Any]] = [
        {"role": "tool", "tool_call_id": r.call_id, "content": tool_result_text(r)}
        for r in message.tool_results
    ]
    content = _user_content(message)
    if content is not None:
        wire.append({"role": "user", "content": content})
    return wire


def tool_result_text(result: ToolResult) -> str:
    """A result's content; errors are marked with an "Error: " prefix."""
    if result.is_error and not result.content.startswith("Error"):
        return ERROR_PREFIX + result.content
    return result.content


def _user_content(message: Message) -> str | list[dict[str, Any]] | None:
    parts = [p for p in message.parts if isinstance(p, Text | Image)]
    if not parts:
        return None
    if all(isinstance(p, Text) for p in parts):
        return "\n\n".join(p.text for p in parts if isinstance(p, Text))
    content: list[dict[str, Any]] = []
    for part in parts:
        match part:
            case Text(text):
                if text:
                    content.append({"type": "text", "text": text})
            case Image(media_type, data):
                url = f"data:{media_type};base64,{data}"
                content.append({"type": "image_url", "image_url": {"url": url}})
            case _:
                assert_never(part)
    return content


def assistant_message(message: Message, vendor: Vendor) -> dict[str, Any]:
    """An assistant message with its tool calls and, if the dialect wants it, reasoning."""
    calls = message.tool_calls
    wire: dict[str, Any] = {"role": "assistant", "content": message.text}
    if calls:
        wire["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": arguments_json(c.arguments)},
            }
            for c in calls
        ]
    reasoning = reasoning_for(message, vendor)
    if reasoning is not None:
        wire["reasoning_content"] = reasoning
    return wire


def reasoning_for(message: Message, vendor: Vendor) -> str | None:
    """The ``reasoning_content`` to send back with ``message``, or None to send none.

    DeepSeek (thinking mode) and Kimi reject an assistant message with tool
    calls that lacks it, so those always carry it ("" when there was no
    reasoning); their other assistant messages carry it when they have
    reasoning of our own. Every other dialect (incl. legacy deepseek-reasoner,
    which rejects it) never gets it.
    """
    if vendor not in _REASONING_VENDORS:
        return None
    own = message.provider == PROVIDER_NAME
    texts = [p.text for p in message.parts if isinstance(p, Thinking) and not p.redacted]
    if message.tool_calls:
        return "".join(texts) if own else ""
    if own and texts:
        return "".join(texts)
    return None
