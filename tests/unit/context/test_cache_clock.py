"""The cache clock: which prefixes are warm, until when, on a fake clock (plain numbers)."""

from __future__ import annotations

from lull.context.cache_clock import COLD, CacheClock, CacheMark

CHAIN = [f"p{k}" for k in range(11)]  # prefix names at each message boundary (10 messages)
T0 = 1_000.0


def test_a_marker_writes_an_entry_that_expires_after_its_lifetime() -> None:
    clock = CacheClock()
    clock.sent(CHAIN[:5], [CacheMark(0, "5m"), CacheMark(4, "5m")], T0)
    warm = clock.warmth(CHAIN, T0 + 299)
    assert (warm.messages, warm.until) == (4, T0 + 300)
    assert warm.conversation_warm and warm.cold_from == 4
    assert clock.warmth(CHAIN, T0 + 300) == COLD
    assert clock.warm_until(T0 + 10) == T0 + 300


def test_a_hit_refreshes_the_entry_it_reads_for_its_own_lifetime() -> None:
    clock = CacheClock()
    clock.sent(CHAIN[:5], [CacheMark(4, "5m")], T0)
    clock.sent(CHAIN[:7], [CacheMark(6, "5m")], T0 + 240)  # reads p4, writes p6
    assert clock.entries["p4"].used_at == T0 + 240 and clock.entries["p6"].written_at == T0 + 240
    assert clock.warmth(CHAIN, T0 + 400).messages == 6


def test_mixed_lifetimes_leave_the_stable_part_warm_after_the_tail_expired() -> None:
    clock = CacheClock()
    marks = [CacheMark(0, "1h"), CacheMark(3, "1h"), CacheMark(8, "5m")]
    clock.sent(CHAIN[:9], marks, T0)
    assert clock.warmth(CHAIN, T0 + 200).messages == 8
    after_lunch = clock.warmth(CHAIN, T0 + 20 * 60)
    assert after_lunch.messages == 3 and after_lunch.until == T0 + 3600
    assert clock.warmth(CHAIN, T0 + 3600) == COLD


def test_a_changed_message_is_another_prefix() -> None:
    clock = CacheClock()
    clock.sent(CHAIN[:6], [CacheMark(0, "5m"), CacheMark(5, "5m")], T0)
    rewritten = [*CHAIN[:3], "q3", "q4", "q5"]  # a cleanup changed message 3
    warm = clock.warmth(rewritten, T0 + 60)
    assert warm.messages == 0 and not warm.conversation_warm  # only tools and system


def test_a_reply_with_no_cache_activity_means_nothing_was_written() -> None:
    clock = CacheClock()
    clock.sent(CHAIN[:3], [CacheMark(0, "5m"), CacheMark(2, "5m")], T0)
    clock.uncached()  # under the model's minimum: the provider cached nothing
    assert clock.warmth(CHAIN, T0 + 1) == COLD and clock.warm_until(T0 + 1) is None
