"""The staged thresholds: watch 0.4, light 0.5, full 0.8, emergency 0.9 of the window, the
light and full steps at most once per crossing of their line."""

from __future__ import annotations

from lull.context.cache_clock import COLD, Warmth
from lull.context.compress_plan import CompressionPolicy, make_budget
from lull.context.stages import StageSchedule

BUDGET = make_budget(100_000, CompressionPolicy(), 8192)


def test_the_default_lines() -> None:
    assert (BUDGET.watch, BUDGET.light, BUDGET.trigger, BUDGET.emergency) == (
        40_000,
        50_000,
        80_000,
        90_000,
    )
    custom = make_budget(
        10_000, CompressionPolicy(0.7, watch_threshold=0.2, light_threshold=0.3), 512
    )
    assert (custom.watch, custom.light, custom.trigger) == (2_000, 3_000, 7_000)


def test_watch_is_only_a_display_line() -> None:
    assert not StageSchedule.watching(39_999, BUDGET)
    assert StageSchedule.watching(40_000, BUDGET)


def test_the_light_step_runs_once_per_crossing_not_per_request() -> None:
    stages = StageSchedule()
    due = []
    for estimate in (30_000, 49_000, 51_000, 53_000, 30_000, 60_000, 70_000, 20_000, 55_000):
        stages.seen(estimate, BUDGET)
        if stages.light_due(estimate, BUDGET):
            stages.light_ran()
            due.append(estimate)
        if estimate == 70_000:
            stages.compressed()  # brings it to 20k: the next crossing counts again
    # under the line at 30k because of what the light step freed is no new crossing
    assert due == [51_000, 55_000]


def test_full_compression_follows_the_guard_and_emergency_is_at_nine_tenths() -> None:
    stages = StageSchedule()
    assert not stages.compress_due(79_999, BUDGET, overflow=False)
    assert stages.compress_due(80_000, BUDGET, overflow=False)
    stages.guard.succeeded(82_000, BUDGET)  # it freed little: wait for growth, not per request
    assert not stages.compress_due(83_000, BUDGET, overflow=False)
    assert stages.compress_due(82_000 + BUDGET.growth, BUDGET, overflow=False)
    assert stages.compress_due(10_000, BUDGET, overflow=True)  # the provider said too long
    large = make_budget(200_000, CompressionPolicy(), 8192)
    assert not stages.emergency_due(179_999, large)
    assert stages.emergency_due(180_000, large)  # 0.9, before the prompt would not fit
    assert stages.emergency_due(88_000, BUDGET)  # a smaller window: it would not fit first


WARM = Warmth(messages=12, until=1_000.0)


def test_a_cold_cache_compresses_from_the_cold_line() -> None:
    stages = StageSchedule()
    assert BUDGET.cold == 50_000
    assert not stages.compress_due(55_000, BUDGET, overflow=False)  # no caching: 0.8 applies
    assert stages.compress_due(55_000, BUDGET, overflow=False, cache=COLD)
    assert not stages.compress_due(49_000, BUDGET, overflow=False, cache=COLD)


def test_a_warm_cache_defers_compression_but_never_past_the_emergency_line() -> None:
    stages = StageSchedule()
    hot = StageSchedule.compress_budget(BUDGET, WARM).trigger
    assert BUDGET.trigger < hot < BUDGET.emergency  # the hot-cache bypass: 0.85 of the window
    assert not stages.compress_due(82_000, BUDGET, overflow=False, cache=WARM)
    assert stages.compress_due(86_000, BUDGET, overflow=False, cache=WARM)
    assert stages.emergency_due(90_000, BUDGET)  # whatever the cache


def test_the_light_step_waits_for_a_cold_cache_or_the_full_line() -> None:
    stages = StageSchedule()
    stages.seen(55_000, BUDGET)
    assert not stages.light_due(55_000, BUDGET, WARM)
    assert stages.light_due(55_000, BUDGET, COLD)
    assert stages.light_due(80_000, BUDGET, WARM)
    assert stages.light_due(55_000, BUDGET)  # no caching: nothing to wait for
