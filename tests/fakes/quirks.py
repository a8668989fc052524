"""What real OpenAI-compatible servers do that OpenAI does not (reference/real-servers.md).

Each quirk is a switch on :class:`ServerQuirks` (``fake.quirks``), off by default so the fake
behaves like OpenAI; :meth:`ServerQuirks.llama_cpp_python` turns on the ones measured with
llama-cpp-python 0.3, :meth:`ServerQuirks.vllm` vLLM's stricter output limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.fakes.errors import WireError, bad_request

CONTINUE_FIELDS = ("continue_final_message", "add_generation_prompt")
"""vLLM/SGLang request fields for continuing a final assistant message."""
#: What llama-cpp-python's pydantic model says about ``"content": null`` (its 500).
NULL_CONTENT_MESSAGE = (
    "1 validation error for ChatCompletionRequestAssistantMessage content: Input should be a "
    "valid string [type=string_type, input_value=None, input_type=NoneType]"
)


@dataclass
class ServerQuirks:
    """Switches for real-server behaviour of the Chat Completions endpoint.

    * ``stream_usage`` False: streams never carry usage, ``stream_options`` or not
      (non-streamed answers do, as llama-cpp-python's).
    * ``report_usage`` False: no answer carries usage, streamed or not (some proxies).
    * ``empty_stream_on_overflow``: a streamed request over ``max_context_tokens`` gets
      ``200 OK`` and an event stream with nothing in it (non-streamed: the usual 400).
    * ``reject_null_content``: an assistant message with ``"content": null`` is a 500.
    * ``output_in_window``: prompt + ``max_tokens`` must fit ``max_context_tokens`` (400).
    * ``continue_final_message``: the server continues a final assistant message when asked
      (vLLM, SGLang); without it the fields are unknown to the server (OpenAI's 400).
    * ``ignore_tools``: ``tools`` are dropped before the prompt is rendered (llama-cpp-python
      without a tool-aware ``--chat_format``, llama-server without ``--jinja``): they are not
      counted in the prompt and the model never calls one.
    * ``usage_only_stream``: a streamed answer holds one usage chunk and ``[DONE]``, nothing else.
    * ``html_page``: every chat request gets ``200 OK`` with an HTML page (a login portal, a
      web UI at the base URL).
    * ``llama_server_overflow``: a prompt over ``max_context_tokens`` gets llama-server's
      400 ``exceed_context_size_error`` with ``n_prompt_tokens`` and ``n_ctx`` (measured with
      llama.cpp's ``llama-server``), not OpenAI's ``context_length_exceeded``.
    """

    stream_usage: bool = True
    report_usage: bool = True
    empty_stream_on_overflow: bool = False
    reject_null_content: bool = False
    output_in_window: bool = False
    continue_final_message: bool = False
    llama_server_overflow: bool = False
    ignore_tools: bool = False
    usage_only_stream: bool = False
    html_page: bool = False

    @classmethod
    def llama_cpp_python(cls) -> ServerQuirks:
        """llama-cpp-python's server: no streamed usage, empty 200 on overflow, 500 on null."""
        return cls(stream_usage=False, empty_stream_on_overflow=True, reject_null_content=True)

    @classmethod
    def llama_server(cls) -> ServerQuirks:
        """llama.cpp's ``llama-server``: its own overflow error (streamed usage is sent)."""
        return cls(llama_server_overflow=True)

    def overflow_error(self, total: int, limit: int) -> WireError | None:
        """The server's own error for a prompt of ``total`` tokens over ``limit``, when it
        has one (None: OpenAI's)."""
        if not self.llama_server_overflow:
            return None
        return WireError(
            400,
            f"request ({total} tokens) exceeds the available context size ({limit} tokens), "
            "try increasing it",
            type="exceed_context_size_error",
            extra={"code": 400, "n_prompt_tokens": total, "n_ctx": limit},
        )

    @classmethod
    def vllm(cls) -> ServerQuirks:
        """vLLM: rejects a ``max_tokens`` larger than what is left of the context, and
        continues a final assistant message with ``continue_final_message``."""
        return cls(output_in_window=True, continue_final_message=True)

    def check_content(self, body: dict[str, Any]) -> None:
        """Raise the 500 for an assistant ``"content": null`` when that quirk is on."""
        if not self.reject_null_content:
            return
        for message in body.get("messages") or ():
            assistant = isinstance(message, dict) and message.get("role") == "assistant"
            if assistant and message.get("content") is None:
                raise WireError(500, NULL_CONTENT_MESSAGE, type="internal_server_error")

    def check_output(self, body: dict[str, Any], prompt: int, limit: int | None) -> None:
        """vLLM's 400 when prompt + ``max_tokens`` does not fit ``limit``."""
        requested = body.get("max_tokens") or body.get("max_completion_tokens")
        if not self.output_in_window or limit is None or not isinstance(requested, int):
            return
        if prompt + requested > limit:
            raise bad_request(
                f"This model's maximum context length is {limit} tokens. However, you requested "
                f"{prompt + requested} tokens ({prompt} in the messages, {requested} in the "
                "completion). Please reduce the length of the messages or completion.",
                param="max_tokens",
            )

    def check_continuation(self, body: dict[str, Any]) -> None:
        """``continue_final_message``: vLLM's rules when supported, else OpenAI's 400 for an
        unknown argument."""
        fields = [name for name in CONTINUE_FIELDS if name in body]
        if not fields:
            return
        if not self.continue_final_message:
            raise bad_request(
                f"Unrecognized request argument supplied: {fields[0]}", param=fields[0]
            )
        if not body.get("continue_final_message"):
            return
        if body.get("add_generation_prompt", True):
            raise bad_request(
                "Cannot set both `continue_final_message` and `add_generation_prompt` to True."
            )
        messages = body.get("messages") or [{}]
        if not isinstance(messages[-1], dict) or messages[-1].get("role") != "assistant":
            raise bad_request(
                "continue_final_message is set but the final message is not from the assistant"
            )
