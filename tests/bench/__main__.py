"""Run every benchmark and print its figures: `python -m tests.bench`."""

from tests.bench import compression, cost, idle_savings, startup, tui

startup.main()
print()
idle_savings.main()
print()
cost.main()
print()
compression.main()
print()
tui.main()
