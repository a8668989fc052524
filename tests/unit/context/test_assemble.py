"""Breakpoint placement for every request shape, and byte-stable prefixes."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from typing import Any

from lull.catalog.prompt import STATIC_SYSTEM_PROMPT
from lull.context.assemble import (
    SAFE_LOOKBACK,
    MessageDigests,
    WireBlock,
    message_key,
    plan_breakpoints,
    prefix_blocks,
    prefix_chain,
    stable_json,
)
from lull.context.view import build_view
from lull.model.edits import ContextEdit, Summary
from lull.model.messages import Image, Message, Text, Thinking, ToolCall, ToolResult
from lull.model.provider import ModelRequest, ThinkingConfig
from lull.providers.anthropic_wire import build_params
from lull.tools.registry import default_registry
from tests.unit.context.builders import NOW, plan

MODEL = "claude-sonnet-4-5"
ENVIRONMENT = "# Environment\n- Workspace: /w\n- Today's date: 2026-11-22"
SIG = "sig"
FILE = "def f():\n    return 1\n" * 200  # ~4.6 KB, ~1150 tokens


def user(text: str) -> Message:
    return Message("user", (Text(text),))


def assistant(*parts: Any) -> Message:
    return Message("assistant", tuple(parts), origin="model", provider="anthropic")


def step(prefix: str, calls: int) -> list[Message]:
    """One tool-loop step: thinking + text + ``calls`` parallel reads, then their results."""
    ids = [f"{prefix}_{i}" for i in range(calls)]
    asked = assistant(
        Thinking("Reading the files.", SIG),
        Text("Let me read them."),
        *(ToolCall(i, "read_file", {"path": f"{i}.py"}) for i in ids),
    )
    answers = Message("user", tuple(ToolResult(i, "read_file", FILE) for i in ids), origin="tool")
    return [asked, answers]


def request(messages: list[Message], ttl: str = "5m") -> ModelRequest:
    return ModelRequest(
        system=STATIC_SYSTEM_PROMPT,
        environment=ENVIRONMENT,
        messages=messages,
        tools=default_registry().specs(),
        thinking=ThinkingConfig(True, 2048),
        cache_ttl=ttl,  # type: ignore[arg-type]
    )


def flat(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every block of a request in cache order: tools, system, message blocks."""
    blocks = [*params.get("tools", []), *params.get("system", [])]
    for message in params["messages"]:
        blocks.extend(message["content"])
    return blocks


def marked(params: dict[str, Any]) -> list[int]:
    return [i for i, b in enumerate(flat(params)) if "cache_control" in b]


def unmarked(block: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in block.items() if k != "cache_control"}, sort_keys=True)


def check_rules(params: dict[str, Any]) -> None:
    blocks = flat(params)
    found = marked(params)
    assert 0 < len(found) <= 4
    assert all(blocks[i].get("type") not in ("thinking", "redacted_thinking") for i in found)
    assert found[-1] == max(i for i, b in enumerate(blocks) if b.get("type") != "thinking")


def test_first_turn_marks_static_environment_and_tail() -> None:
    params = build_params(request([user("Explain this repository.")]), MODEL)
    check_rules(params)
    tools = len(params["tools"])
    assert marked(params) == [tools, tools + 1, tools + 2]
    assert params["system"][0]["text"] == STATIC_SYSTEM_PROMPT


def test_tool_loop_marks_the_previous_tail_even_past_the_20_block_lookback() -> None:
    history = [user("Read everything."), *step("a", 12)]
    params = build_params(request(history), MODEL)
    check_rules(params)
    blocks = flat(params)
    prompt = next(i for i, b in enumerate(blocks) if b.get("text") == "Read everything.")
    assert prompt in marked(params)
    assert marked(params)[-1] - prompt > 20
    assert len(marked(params)) == 4


def test_each_request_reaches_the_previous_requests_tail() -> None:
    history = [user("Fix the bug.")]
    growth = [step(f"s{n}", 1 + n * 4) for n in range(5)]
    growth.append([assistant(Thinking("Done.", SIG), Text("Fixed.")), user("Now the tests.")])
    previous = build_params(request(history), MODEL)
    check_rules(previous)
    for added in growth:
        history += added
        params = build_params(request(history), MODEL)
        check_rules(params)
        old_tail, found = marked(previous)[-1], marked(params)
        assert unmarked(flat(params)[old_tail]) == unmarked(flat(previous)[old_tail])
        # marked itself, or within a marker's lookback (20 blocks, counting the marker)
        assert old_tail in found or any(0 < i - old_tail < 20 for i in found)
        assert (old_tail in found) == (found[-1] - old_tail >= SAFE_LOOKBACK)
        previous = params


def view_after(history: list[Message], edits: list[ContextEdit]) -> list[Message]:
    return [*build_view(history, edits), user("I am back.")]


def test_after_idle_cleanup_markers_follow_the_same_rules() -> None:
    history = [user("Start."), *step("a", 3), *step("b", 3), assistant(Text("Done."))]
    edits = plan(history, idle=90.0)
    assert edits, "the fixture must produce an idle cleanup"
    view = view_after(history, edits)
    params = build_params(request(view), MODEL)
    check_rules(params)
    tools = len(params["tools"])
    assert marked(params) == [tools, tools + 1, len(flat(params)) - 1]
    cleared = [b for b in flat(params) if str(b.get("content")).startswith("[Old tool result")]
    assert cleared and cleared[0]["content"].endswith(f"recall id {cleared[0]['tool_use_id']}]")


def test_after_compression_the_summary_starts_the_conversation() -> None:
    history = [user("Start."), *step("a", 3), *step("b", 2), assistant(Text("Done."))]
    summary = Summary(through_id=history[4].id, text="Read a and b.", at=NOW)
    view = view_after(history, [summary])
    params = build_params(request(view), MODEL)
    check_rules(params)
    first = params["messages"][0]["content"][0]["text"]
    assert first.endswith(
        f"Read a and b.\n\n[Earlier messages summarised \u2014 recall id {summary.id}]"
    )
    tools = len(params["tools"])
    # static prompt, environment, and the tail: the summary is new, so nothing after the
    # environment can be read from the cache and no previous-tail marker is spent
    assert marked(params) == [tools, tools + 1, len(flat(params)) - 1]


def test_one_hour_ttl_goes_on_every_marker() -> None:
    params = build_params(request([user("hi"), *step("a", 2)], ttl="1h"), MODEL)
    ttls = [flat(params)[i]["cache_control"] for i in marked(params)]
    assert ttls and all(t == {"type": "ephemeral", "ttl": "1h"} for t in ttls)


def test_markers_below_the_model_minimum_are_not_spent() -> None:
    small = [user("hi")]
    sonnet = build_params(request(small), "claude-sonnet-4-5")
    haiku = build_params(request(small), "claude-haiku-4-5")  # minimum 4096 tokens
    assert len(marked(sonnet)) == 3
    assert marked(haiku) == []
    big = build_params(request([user("hi"), *step("a", 4), *step("b", 4)]), "claude-haiku-4-5")
    assert len(marked(big)) == 2  # the two conversation tails; the static part is too short


def test_planner_priorities_and_limit() -> None:
    blocks = [WireBlock(600, "tools"), WireBlock(600, "system"), WireBlock(100, "system")]
    blocks += [WireBlock(50, "messages", 0, "user")]
    blocks += [WireBlock(50, "messages", 1, "assistant", cacheable=False)]
    blocks += [WireBlock(50, "messages", 1, "assistant"), WireBlock(50, "messages", 2, "user")]
    near = plan_breakpoints(blocks, static_end=1, environment_end=2, min_tokens=1024)
    assert [(p.index, p.reason) for p in near] == [(1, "static"), (2, "environment"), (6, "tail")]
    points = plan_breakpoints(blocks, static_end=1, environment_end=2, min_tokens=1024, lookback=3)
    assert [(p.index, p.reason) for p in points] == [
        (1, "static"),
        (2, "environment"),
        (3, "previous tail"),
        (6, "tail"),
    ]
    two = plan_breakpoints(
        blocks, static_end=1, environment_end=2, min_tokens=1024, limit=2, lookback=3
    )
    assert [p.reason for p in two] == ["previous tail", "tail"]
    none = plan_breakpoints(blocks, static_end=1, environment_end=2, min_tokens=10_000)
    assert none == []


def test_prefix_blocks_are_equal_for_equal_requests() -> None:
    history = [user("Start."), *step("a", 2)]
    first = [b.digest for b in prefix_blocks(request(history))]
    again = [b.digest for b in prefix_blocks(request(list(history)))]
    assert first == again
    labels = [b.label for b in prefix_blocks(request(history))]
    assert labels[:2] == ["model", "tool read_file"]
    assert labels[-3:] == ["message 1 (user)", "message 2 (assistant)", "message 3 (user)"]


def test_consecutive_requests_share_a_byte_identical_prefix() -> None:
    history = [user("Start."), *step("a", 2)]
    before = build_params(request(history), MODEL)
    history += step("b", 1)
    after = build_params(request(history), MODEL)
    old, new = flat(before), flat(after)
    assert [unmarked(b) for b in old] == [unmarked(b) for b in new[: len(old)]]


PROBE = """
import json
from lull.catalog.prompt import STATIC_SYSTEM_PROMPT
from lull.model.provider import ModelRequest
from lull.providers.anthropic_wire import build_params
from lull.tools.registry import default_registry
params = build_params(ModelRequest(system=STATIC_SYSTEM_PROMPT, messages=[],
                                   tools=default_registry().specs()), "claude-sonnet-4-5")
print(json.dumps([params["tools"], params["system"]]))
"""


def test_tools_and_static_prompt_are_byte_identical_across_processes() -> None:
    here = build_params(
        ModelRequest(system=STATIC_SYSTEM_PROMPT, messages=[], tools=default_registry().specs()),
        MODEL,
    )
    mine = json.dumps([here["tools"], here["system"]])
    runs = [
        subprocess.run(
            [sys.executable, "-c", PROBE],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed},
        ).stdout.strip()
        for seed in ("1", "2")
    ]
    assert runs == [mine, mine]


def test_a_lifetime_per_block_puts_the_stable_part_on_the_hour_cache_first() -> None:
    history = [user("Start."), *step("a", 2), assistant(Text("Done.")), user("Next.")]
    history += [*step("b", 1), *step("c", 1)]
    one = replace(request(history), cache_stable_ttl="1h")
    params = build_params(one, MODEL)
    blocks = flat(params)
    points = [(i, blocks[i]["cache_control"].get("ttl", "5m")) for i in marked(params)]
    check_rules(params)
    assert [ttl for _, ttl in points] == ["1h", "1h", "1h", "5m"]  # static, env, stable, tail
    stable = points[2][0]
    assert blocks[stable] == {**blocks[stable], "type": "text", "text": "Next."}


def test_mixed_lifetimes_never_put_a_five_minute_marker_before_an_hour_one() -> None:
    blocks = [WireBlock(2000, "tools"), WireBlock(100, "system")]
    blocks += [WireBlock(50, "messages", 0, "user", prompt=True)]
    blocks += [
        WireBlock(50, "messages", 1 + n // 2, ("assistant", "user")[n % 2]) for n in range(24)
    ]
    blocks += [WireBlock(50, "messages", 13, "user", prompt=True)]
    blocks += [
        WireBlock(50, "messages", 14 + n // 2, ("assistant", "user")[n % 2]) for n in range(4)
    ]
    points = plan_breakpoints(
        blocks, static_end=0, environment_end=1, min_tokens=1024, stable_ttl="1h"
    )
    ttls = [p.ttl for p in points]
    assert len(points) <= 4 and ttls == sorted(ttls, key=lambda t: t != "1h")
    assert [p.reason for p in points] == ["static", "environment", "stable", "tail"]


def test_a_corrective_note_never_ends_the_stable_part() -> None:
    history = [user("Start."), *step("a", 2)]
    note = Message("user", (Text("Your last reply was empty; answer again."),), origin="synthetic")
    one = replace(request([*history, note]), cache_stable_ttl="1h", request_only=1)
    blocks = flat(build_params(one, MODEL))
    stable = [b for b in blocks if b.get("cache_control", {}).get("ttl") == "1h"]
    assert all(b.get("text") != note.parts[0].text for b in stable)  # type: ignore[union-attr]
    assert any(b.get("text") == "Start." for b in stable)


def test_message_digests_are_kept_while_the_parts_are_the_same() -> None:
    first = Message("user", (Text("hello"),))
    digests = MessageDigests()
    assert digests.of(first) == message_key(first)
    digests.done()
    changed = first.replace_parts((Text("changed"),))
    assert digests.of(changed) == message_key(changed)
    digests.done()
    assert digests.of(changed) == message_key(changed)


def test_a_message_key_is_the_content_sent() -> None:
    call = ToolCall("c1", "read_file", {"path": "a.py", "limit": 5})
    one = Message("assistant", (Text("Reading."), call), provider="anthropic")
    same = Message(
        "assistant",
        (Text("Reading."), replace(call, arguments=dict(call.arguments))),
        provider="anthropic",
    )
    assert one.id != same.id and message_key(one) == message_key(same)
    others = [
        one.replace_parts((Text("Reading!"), call)),
        one.replace_parts((Thinking("Reading."), call)),
        one.replace_parts(
            (Text("Reading."), replace(call, arguments={"limit": 5, "path": "a.py"}))
        ),
        one.replace_parts((call, Text("Reading."))),
        Message("assistant", one.parts, provider="openai"),
        Message("user", (ToolResult("c1", "read_file", "x"),)),
        Message("user", (ToolResult("c1", "read_file", "x", is_error=True),)),
        Message("user", (Image("image/png", "aGk="),)),
        Message("user", (Image("image/gif", "aGk="),)),
        Message("user", (Text("\udc80 lone surrogate"),)),
    ]
    keys = {message_key(m) for m in [one, *others]}
    assert len(keys) == len(others) + 1


def test_stable_json_is_what_json_dumps_gives() -> None:
    values: list[Any] = [
        {"z": 1, "a": [1.5, None, {"y": True, "b": 'héllo ✓ \u2028 "q"'}], "m": -0.0},
        "a string",
        [1e300, 2**70, [], {}, ""],
        {"when": NOW, "kind": ToolCall},  # not JSON: default=str
    ]
    for value in values:
        expected = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
        assert stable_json(value) == expected


def test_a_kept_chain_names_what_a_fresh_one_names() -> None:
    history = [user("Start."), *step("a", 2), *step("b", 1)]
    digests = MessageDigests()

    def check(one: ModelRequest) -> None:
        assert prefix_chain(one, digests) == prefix_chain(one)

    check(request(history))
    check(request(history))  # the same messages
    check(request([*history, user("More.")]))  # appended
    check(request(history[:3]))  # shortened
    edited = history[2].replace_parts((Text("changed"),))
    check(request([*history[:2], edited, *history[3:]]))  # a new object in the middle
    check(replace(request(history), system="another prompt"))  # another head
    check(request(history))
