"""Building the runtime off the UI thread, and what the outcome means for the UI.

The TUI paints first and builds the runtime (settings, provider SDK, session)
in a thread; :func:`load` turns every way that can end into a value the app
can show: ready, first-run setup, or a fatal problem with its exit code.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable
from dataclasses import dataclass

from lull.runtime import RunOptions, Runtime, StartupError, build_runtime
from lull.settings.errors import SettingsError

Builder = Callable[[RunOptions], Runtime]
log = logging.getLogger("lull.tui")


@dataclass(frozen=True)
class Ready:
    """The runtime is built; lull can chat. ``context_tokens``: the prompt estimate, if known."""

    runtime: Runtime
    context_tokens: int | None = None


@dataclass(frozen=True)
class NeedsSetup:
    """No usable provider is configured (first run): show the setup panel."""

    problem: str


@dataclass(frozen=True)
class Fatal:
    """lull cannot start (bad flag value, unknown session): exit with ``code`` after ``message``."""

    message: str
    code: int


Outcome = Ready | NeedsSetup | Fatal


def load(options: RunOptions, build: Builder | None = None) -> Outcome:
    """Build the runtime (blocking: imports the SDK) and classify what happened."""
    try:
        runtime = (build or build_runtime)(options)
        runtime.import_sdk()  # here, not on the UI thread later
    except SettingsError as error:
        return Fatal(f"lull: {error}", 2)
    except StartupError as error:
        if error.needs_setup:
            return NeedsSetup(str(error))
        return Fatal(f"lull: error: {error}", 1)
    except Exception as error:  # e.g. an unwritable data directory: say so, never hang
        log.exception("building the runtime failed")
        return Fatal(f"lull: error: could not start: {type(error).__name__}: {error}", 1)
    ready = Ready(runtime, warm_estimate(runtime))
    # What start-up made (the SDK's classes, the settings, the session) lives as long as lull
    # does: frozen, the garbage collector stops walking it, and its full collections (tenths
    # of a second with the SDK loaded) stop showing as stalls while an answer streams.
    gc.freeze()
    return ready


def warm_estimate(runtime: Runtime) -> int | None:
    """Estimate the prompt once here, off the UI thread (a long resumed session may need the
    tokenizer: ~0.2 s to load)."""
    from lull.ui.shared.facts import estimate_context

    try:
        runtime.agent.session.context_tokens()
        return estimate_context(runtime, runtime.context_window())
    except Exception:  # an estimate is never a reason not to start
        log.exception("estimating the context at start-up failed")
        return None


def startup_notes(runtime: Runtime) -> list[tuple[str, str]]:
    """(text, level) lines to show once the runtime is ready: settings problems, how the
    start-up went (e.g. the model chosen), idle thresholds shorter than the cache lifetime,
    torn files."""
    notes: list[tuple[str, str]] = [(d.message, d.level) for d in runtime.loaded.diagnostics]
    notes.extend((note, "info") for note in runtime.start_notes)
    notes.extend((note, "warning") for note in runtime.mcp_notes())
    notes.extend((note, "warning") for note in runtime.cache_warnings())
    notes.extend((note, "warning") for note in runtime.session_notes())
    return notes
