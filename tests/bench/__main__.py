"""Run every benchmark and print its figures: `python -m tests.bench`."""

from tests.bench import idle_savings, startup

startup.main()
print()
idle_savings.main()
