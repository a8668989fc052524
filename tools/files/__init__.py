"""Files as tools touch them: ``paths`` (every path inside the workspace), ``anchored``
(reads and writes that follow no symlink swapped in after the check), ``text`` (text reading
checks, atomic writes), ``pending_writes`` (a journal of in-flight atomic writes)."""
