"""The OS sandbox commands run in: ``policy`` (what a command may touch, from the
``sandbox`` settings), ``bwrap`` (Linux: bubblewrap's argv), ``seatbelt`` (macOS: the
``sandbox-exec`` profile), ``proxy`` (the loopback proxy that admits only allowed domains),
``denials`` (what was denied, read from a command's output), ``probe`` (what is missing to
start it) and ``sandbox`` (one :class:`~lull.tools.confinement.CommandSandbox` joining them)."""
