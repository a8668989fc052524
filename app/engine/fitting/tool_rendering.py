"""Whether a server rendered the tool definitions it was sent.

Some local servers drop ``tools`` before they render the prompt (llama-cpp-python without a
tool-aware chat format, llama.cpp's ``llama-server`` without ``--jinja``): the model then
cannot call a tool, and lull would count schemas the server never saw. The first reported
prompt size tells: when it is well under what lull counted and about what the request holds
without its tools, the tools were left out. Said once, with the server flags that turn tools
on; the usage calibration then counts what the server really sees.
"""

from __future__ import annotations

from lull.model.events import Notice

MEANINGFUL_TOOLS = 500
"""Tool definitions smaller than this many tokens are not worth judging by (counting error)."""
UNDER_COUNTED = 0.6
"""A reported prompt under this share of lull's count (tools included) is suspicious..."""
NEAR_WITHOUT = 1.5
"""...when it is also no more than this multiple of the count without the tools (local
tokenizers count up to ~40% more than lull's)..."""
TEMPLATE_SLACK = 200
"""...plus this many tokens of chat-template markup around the messages."""


def ignored_tools_notice(reported: int, local: int, tools_local: int) -> Notice | None:
    """The notice when a reported prompt of ``reported`` tokens, for a request lull counted
    at ``local`` tokens of which ``tools_local`` are tool definitions, shows the server left
    the tools out; None when it rendered them (or nothing can be told)."""
    if tools_local < MEANINGFUL_TOOLS or reported <= 0 or local <= tools_local:
        return None
    without = local - tools_local
    if reported >= UNDER_COUNTED * local or reported > NEAR_WITHOUT * without + TEMPLATE_SLACK:
        return None
    return Notice(
        "warning",
        f"the server seems to leave out the tool definitions (it counted {reported:,} prompt "
        f"tokens; lull sent ~{tools_local:,} tokens of tools with ~{without:,} of the rest): "
        "the model cannot read files or run commands. Turn tool calling on in the server: "
        "llama.cpp's llama-server with --jinja; llama-cpp-python with a tool-aware "
        "--chat_format (chatml-function-calling, functionary); vLLM with "
        "--enable-auto-tool-choice --tool-call-parser NAME; Ollama with a model whose "
        "template supports tools",
    )
