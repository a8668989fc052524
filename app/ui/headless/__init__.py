"""``lull -p`` as a headless contract: Claude Code's stream-json and json shapes (``schema``),
engine events folded into those lines (``stream``), lull's own extra lines (``extras``), user
messages read as JSON lines from stdin (``stream_input``) and a ``-p`` prompt made into a turn
the way the interactive front ends make one (``prompt``: custom commands, ``@path``)."""
