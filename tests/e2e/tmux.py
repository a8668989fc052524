"""A private tmux server running the real ``lull`` binary, for end-to-end tests."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.conftest import Lull, lull_command

DEADLINE = 60.0
"""How long a wait for the screen or an exit may take before the test fails: generous, so a busy
machine is never a failure (a passing wait returns as soon as its condition holds)."""

needs_tmux = pytest.mark.skipif(
    shutil.which("tmux") is None or shutil.which("bash") is None,
    reason="tmux (and bash) are needed",
)


class Tmux:
    """One private tmux server (its own socket) running lull in a 100x30 window."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.socket = directory / "tmux-0.sock"
        self.exit_file = directory / "exit-code"
        self.starts = 0

    def _tmux(self, *args: str, env: dict[str, str] | None = None) -> str:
        done = subprocess.run(
            ["tmux", "-S", str(self.socket), *args],
            capture_output=True,
            text=True,
            env=env,
            check=False,
            timeout=30,
        )
        return done.stdout

    def start(
        self,
        lull: Lull,
        *args: str,
        env: dict[str, str] | None = None,
        ignore_hangup: bool = False,
    ) -> None:
        """Run ``lull ARGS`` in a new window; its exit code goes to ``exit_file``.

        bash runs it because bash, unlike dash, keeps going when the child it waits
        for survives a Ctrl+C; the pane stays after the exit so the screen can be read.
        ``ignore_hangup`` starts lull with SIGHUP ignored (as ``nohup`` or some session
        managers do): a killed terminal then sends it no signal.
        """
        environment = {
            **lull.env,
            "PROMPT_TOOLKIT_NO_CPR": "1",
            "TERM": "xterm-256color",
            **(env or {}),
        }
        self.exit_file.unlink(missing_ok=True)
        command = shlex.join([*lull_command(), *args])
        script = f"{command}; echo $? > {shlex.quote(str(self.exit_file))}"
        if ignore_hangup:
            script = f"trap '' HUP; {script}"
        self.close()  # a fresh server on a new socket: a dying one cannot take the new window
        self.starts += 1
        self.socket = self.directory / f"tmux-{self.starts}.sock"
        self._tmux(
            *("start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";"),
            *("new-session", "-d", "-x", "100", "-y", "30", "-c", str(lull.workspace)),
            *("bash", "-c", script),
            env=environment,
        )

    def exit_status(self) -> int | None:
        """lull's exit code once it has exited, else None."""
        try:
            return int(self.exit_file.read_text())
        except (OSError, ValueError):
            return None

    def send(self, *keys: str) -> None:
        """Press keys (tmux key names such as Enter, C-c, C-d, Up)."""
        self._tmux("send-keys", "-t", "0", *keys)

    def type(self, text: str) -> None:
        """Type literal text."""
        self._tmux("send-keys", "-t", "0", "-l", text)

    def screen(self) -> str:
        """The window and its scrollback, wrapped lines joined."""
        return self._tmux("capture-pane", "-p", "-J", "-S", "-500", "-t", "0")

    def wait_for(self, want: str | Callable[[str], bool], timeout: float = DEADLINE) -> str:
        """Poll the screen until ``want`` (text or predicate) shows; fail with the screen."""
        check = want if callable(want) else (lambda screen: want in screen)
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if check(screen):
                return screen
            if time.monotonic() > deadline:
                pytest.fail(f"timed out waiting for {want!r}; screen:\n{screen}")
            time.sleep(0.1)

    def exit_code(self, timeout: float = DEADLINE) -> int:
        """Wait for lull to exit; its exit code."""
        deadline = time.monotonic() + timeout
        while (status := self.exit_status()) is None:
            if time.monotonic() > deadline:
                pytest.fail(f"lull did not exit; screen:\n{self.screen()}")
            time.sleep(0.05)
        return status

    def lull_pid(self) -> int:
        """The process id of lull (the child of the window's shell)."""
        shell = int(self._tmux("display-message", "-p", "-t", "0", "#{pane_pid}").strip())
        children = Path(f"/proc/{shell}/task/{shell}/children").read_text().split()
        assert len(children) == 1, f"expected lull as the only child of the shell: {children}"
        return int(children[0])

    def close(self) -> None:
        """Kill the server and everything in it."""
        self._tmux("kill-server")
