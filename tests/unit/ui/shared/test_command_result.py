"""One order for a command's result in every front end: the new session first, then what the
command says, then at most one next step, and the new session's start last."""

from __future__ import annotations

from collections.abc import AsyncIterator

from lull.commands import CommandResult, FollowUp, SessionChoice
from lull.model.events import Event, Notice
from lull.ui.shared.command_result import show_result


class Recorder:
    """A front end that writes down what it was asked to do."""

    def __init__(self) -> None:
        self.done: list[str] = []

    async def show_session(self) -> None:
        self.done.append("session")

    async def show_lines(self, title: str, lines: tuple[str, ...], error: bool) -> None:
        self.done.append(f"lines {title} {'|'.join(lines)}{' error' if error else ''}")

    def offer_prompt(self, text: str) -> None:
        self.done.append(f"prompt {text}")

    async def show_event(self, event: Event) -> None:
        self.done.append(f"event {event}")

    async def quit(self) -> None:
        self.done.append("quit")

    async def pick_session(self, choices: tuple[SessionChoice, ...]) -> None:
        self.done.append(f"pick {len(choices)} sessions")

    async def pick_follow_up(self, question: str, choices: tuple[FollowUp, ...]) -> None:
        self.done.append(f"follow-up {question} {len(choices)}")

    async def drive(self, stream: AsyncIterator[Event]) -> None:
        self.done.append("drive")
        async for event in stream:
            self.done.append(f"streamed {event}")

    def session_opened(self) -> None:
        self.done.append("opened")


async def _events() -> AsyncIterator[Event]:
    yield Notice("info", "compacted")


async def test_a_changed_session_is_shown_before_what_the_command_says_and_opened_last() -> None:
    view = Recorder()
    result = CommandResult(("resumed abc",), events=(Notice("info", "hi"),), session_changed=True)
    await show_result(view, "/resume abc", result)
    assert view.done == [
        "session",
        "lines /resume abc resumed abc",
        f"event {Notice('info', 'hi')}",
        "opened",
    ]


async def test_lines_prompt_and_events_come_before_the_one_next_step() -> None:
    view = Recorder()
    result = CommandResult(("bad",), error=True, prefill="again", stream=_events())
    await show_result(view, "/compact", result)
    assert view.done == [
        "lines /compact bad error",
        "prompt again",
        "drive",
        f"streamed {Notice('info', 'compacted')}",
    ]


async def test_only_one_next_step_runs_and_quit_wins() -> None:
    choice = SessionChoice("id1", 0.0, 0.0, "first prompt", 3)
    view = Recorder()
    await show_result(view, "/quit", CommandResult(quit=True, sessions=(choice,)))
    assert view.done == ["quit"]
    view = Recorder()
    follow = FollowUp("first prompt", "/rewind 1")
    await show_result(view, "/rewind", CommandResult(follow_ups=(follow,), question="which?"))
    assert view.done == ["follow-up which? 1"]
