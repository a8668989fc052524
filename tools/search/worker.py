"""The Python search engine as a child process, so a runaway regex can be killed.

Python's ``re`` never lets go of the interpreter while it backtracks: ``(a+)+$`` on a long
line would freeze lull (Ctrl+C included) if it ran in lull's own process. So
:mod:`lull.tools.search.run` starts this module in a fresh interpreter and kills it at the time
limit or when the turn is cancelled. The request is one JSON argument; every match is one
JSON line ``[path, line, text]`` on stdout (ASCII-escaped, so any file name survives).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

MAX_TEXT_CHARS = 2000  # grep_search shows 300; the rest of a minified line is not needed


def main(argv: list[str] | None = None) -> int:
    """Run the search described by the last argument; exit 0 (matches or not) or 2."""
    args = sys.argv if argv is None else argv
    from lull.tools.search.engines import iter_matches

    request = json.loads(args[-1])
    try:
        regex = re.compile(request["pattern"])
    except re.error as exc:
        print(f"invalid regex: {exc}", file=sys.stderr)
        return 2
    out = sys.stdout
    for match in iter_matches(regex, Path(request["root"]), request.get("glob")):
        out.write(json.dumps([str(match.path), match.line, match.text[:MAX_TEXT_CHARS]]) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
