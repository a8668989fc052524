"""The window lull fits requests into: the setting or the table, capped by what a provider
said, and never raised by it."""

from __future__ import annotations

from lull.engine.fitting.window import Window


def test_the_setting_wins_over_the_table_until_a_provider_says_less() -> None:
    window = Window("claude-sonnet-4-5", 50_000)
    assert window.size == 50_000
    window.learn(40_000)
    assert window.size == 40_000


def test_a_provider_never_raises_the_window() -> None:
    window = Window("some-local-model", 4_096)
    window.learn(8_192)
    assert window.size == 4_096 and window.cap is None
