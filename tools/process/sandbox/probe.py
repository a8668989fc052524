"""What the sandbox needs on this machine, and what is missing to start it.

Linux needs bubblewrap (``bwrap``) that can make namespaces here, and ``socat`` for the
network relay; macOS needs ``sandbox-exec`` (part of the system). Anything else has no
sandbox. The answer is one sentence a user can act on ("bubblewrap is not installed:
apt-get install bubblewrap socat").
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, assert_never

Platform = Literal["linux", "macos", "other"]
INSTALL_HINT = "apt-get install bubblewrap socat"
SANDBOX_EXEC = "/usr/bin/sandbox-exec"


@dataclass(frozen=True, slots=True)
class Availability:
    """Whether the sandbox can start: the platform, the programs found, and if not ready,
    ``missing``: what to do about it."""

    platform: Platform
    launcher: str | None = None
    relay: str | None = None
    missing: str = ""

    @property
    def ready(self) -> bool:
        """True when commands can run inside the sandbox."""
        return not self.missing

    @property
    def mechanism(self) -> str:
        """What enforces the sandbox here, in a few words."""
        match self.platform:
            case "linux":
                return "bubblewrap (Linux namespaces) with a socat relay to lull's proxy"
            case "macos":
                return "Seatbelt (sandbox-exec) with lull's proxy on loopback"
            case "other":
                return "none (only Linux and macOS have one)"
            case unreachable:
                assert_never(unreachable)


def current_platform(name: str = sys.platform) -> Platform:
    """The platform ``sys.platform`` names."""
    if name.startswith("linux"):
        return "linux"
    if name == "darwin":
        return "macos"
    return "other"


def _bwrap_works(bwrap: str) -> str:
    """Why ``bwrap`` cannot make the namespaces the sandbox needs ('' when it can)."""
    argv = [bwrap, "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid"]
    argv += ["--dev", "/dev", "--proc", "/proc", "--cap-drop", "ALL", "--", "true"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    return "" if done.returncode == 0 else (done.stderr.strip() or f"exit {done.returncode}")


def probe(
    platform: Platform | None = None,
    which: Callable[[str], str | None] = shutil.which,
    works: Callable[[str], str] = _bwrap_works,
) -> Availability:
    """What this machine has for the sandbox (``which`` finds programs, ``works`` says why
    bubblewrap fails here: both replaceable in tests)."""
    platform = current_platform() if platform is None else platform
    match platform:
        case "linux":
            bwrap, socat = which("bwrap"), which("socat")
            if bwrap is None:
                return Availability(
                    platform, missing=f"bubblewrap is not installed: {INSTALL_HINT}"
                )
            if socat is None:
                return Availability(
                    platform, bwrap, missing=f"socat is not installed: {INSTALL_HINT}"
                )
            problem = works(bwrap)
            if problem:
                missing = (
                    f"bubblewrap cannot create namespaces here ({problem}); allow unprivileged "
                    "user namespaces (sysctl kernel.unprivileged_userns_clone=1) or run lull "
                    "where they are"
                )
                return Availability(platform, bwrap, socat, missing)
            return Availability(platform, bwrap, socat)
        case "macos":
            exe = which(SANDBOX_EXEC) or which("sandbox-exec")
            if exe is None:
                return Availability(platform, missing="sandbox-exec was not found")
            return Availability(platform, exe)
        case "other":
            return Availability(platform, missing=f"no sandbox on {sys.platform}")
        case unreachable:
            assert_never(unreachable)
