"""When the one-hour cache pays for the stable part, and where the stable part ends."""

from __future__ import annotations

from lull.catalog.pricing import price_for
from lull.context.cache_lifetime import Pause, cache_prices, stable_end, stable_lifetime
from lull.model.messages import Message, Text, ToolCall, ToolResult


def test_no_pause_of_five_to_sixty_minutes_keeps_five_minutes() -> None:
    assert stable_lifetime([], 4) == "5m"
    assert stable_lifetime([Pause(2), Pause(3)], 4) == "5m"  # short pauses: warm anyway
    assert stable_lifetime([Pause(120, 0.0, 0.2)] * 3, 4) == "5m"  # long ones: cold anyway


def test_medium_pauses_with_little_to_clear_choose_one_hour() -> None:
    pauses = [Pause(20, clearable=0.05, last_turn=0.4)] * 2
    assert stable_lifetime(pauses, 5) == "1h"
    assert stable_lifetime(pauses[:1], 5) == "5m"  # one pause seen: the premium is not won back


def test_a_cleanup_that_frees_most_of_the_prompt_favours_five_minutes() -> None:
    pauses = [Pause(20, clearable=0.8, last_turn=0.2)] * 3
    assert stable_lifetime(pauses, 5) == "5m"


def test_on_a_warm_cache_there_is_no_premium_to_pay() -> None:
    pauses = [Pause(20, clearable=0.05, last_turn=0.4)]
    assert stable_lifetime(pauses, 3, cold_now=True) == "5m"
    assert stable_lifetime(pauses, 3, cold_now=False) == "1h"


def test_prices_come_from_the_price_table() -> None:
    prices = cache_prices(price_for("claude-sonnet-4-5"))
    assert (round(prices.read, 6), prices.write, prices.write_1h) == (0.1, 1.25, 2.0)
    assert cache_prices(None).write_1h == prices.write_1h


def test_the_stable_part_ends_with_the_latest_user_text() -> None:
    call = ToolCall("c1", "read_file", {"path": "a"})
    messages = [
        Message("user", (Text("first"),)),
        Message("assistant", (call,)),
        Message("user", (ToolResult("c1", "read_file", "text"),)),
        Message("assistant", (Text("done"),)),
        Message("user", (Text("second"),)),
        Message("assistant", (ToolCall("c2", "read_file", {"path": "b"}),)),
        Message("user", (ToolResult("c2", "read_file", "more"),)),
    ]
    assert stable_end(messages) == 5
    assert stable_end(messages[:4]) == 1
    assert stable_end([]) == 0
