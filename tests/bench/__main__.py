"""Run every benchmark and print its figures: `python -m tests.bench`."""

from tests.bench import startup

startup.main()
