"""Starting a stdio server so that it ends with lull, even when lull is killed.

The SDK starts a server in a session of its own (``start_new_session``), so a signal to lull's
process group never reaches it, and a server that hangs (one that does not read its stdin, so
does not see it close) would outlive a lull killed with SIGKILL. On Linux the server is
started through a few lines of Python that ask the kernel for a parent-death signal
(``prctl(PR_SET_PDEATHSIG, SIGTERM)``: the server gets SIGTERM when lull ends, however it
ends) and then ``exec`` the server in place, so it keeps the process id the SDK knows. The
command is looked up on the server's ``PATH`` here, so a missing one is still said as
"command not found". Elsewhere the server is started as it is.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

PR_SET_PDEATHSIG = 1
"""``prctl``'s option for the parent-death signal (linux/prctl.h)."""

LAUNCHER = f"""\
import ctypes, os, signal, sys
ctypes.CDLL(None, use_errno=True).prctl({PR_SET_PDEATHSIG}, signal.SIGTERM)
if os.getppid() != int(sys.argv[1]):
    sys.exit(1)
try:
    os.execv(sys.argv[2], sys.argv[3:])
except OSError as error:
    print(f"cannot run {{sys.argv[2]}}: {{error}}", file=sys.stderr)
    sys.exit(127)
"""
"""Run as ``python -I -S -c LAUNCHER LULL_PID PATH ARGV0 ARGS...``: the signal is asked for,
then a lull that died in between is noticed (the parent is no longer lull), then the server
replaces the launcher."""


def supported() -> bool:
    """Whether servers get a parent-death signal here (Linux)."""
    return sys.platform.startswith("linux")


def resolve(command: str, env: Mapping[str, str] | None, cwd: Path) -> str:
    """The file ``command`` runs: looked up on the server's ``PATH`` (its own ``env``, else
    lull's), or relative to ``cwd`` when it names a path. Raises :class:`FileNotFoundError`
    when there is none."""
    if os.sep in command:
        path = Path(command).expanduser()
        path = path if path.is_absolute() else cwd / path
        if not path.is_file():
            raise FileNotFoundError(2, "No such file or directory", command)
        return str(path)
    search = (env or {}).get("PATH", os.environ.get("PATH", os.defpath))
    found = shutil.which(command, path=search)
    if found is None:
        raise FileNotFoundError(2, "No such file or directory", command)
    return found


def with_parent_death_signal(
    command: str, args: Sequence[str], env: Mapping[str, str] | None, cwd: Path
) -> tuple[str, list[str]]:
    """The command and arguments that run ``command ARGS`` with a parent-death signal where
    the platform has one (else the command as it is)."""
    if not supported():
        return command, list(args)
    path = resolve(command, env, cwd)
    launcher = ["-I", "-S", "-c", LAUNCHER, str(os.getpid()), path, command]
    return sys.executable, [*launcher, *args]
