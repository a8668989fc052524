"""Markdown files with front matter (``---`` lines around ``key: value`` pairs), the shape
Claude Code's commands, agents and skills share."""

from __future__ import annotations

FENCE = "---"


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """The front matter's fields (keys lower-cased, quotes stripped) and the body after it;
    raises ValueError naming the line that is wrong. A file without front matter is all body.

    Only flat ``key: value`` lines are read (a YAML list on one line, ``[a, b]``, stays text);
    an indented line continues the value before it, as a folded YAML string does.
    """
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != FENCE:
        return {}, text.lstrip("\ufeff")
    try:
        end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() == FENCE)
    except StopIteration:
        raise ValueError("the front matter has no closing --- line") from None
    fields: dict[str, str] = {}
    last = ""
    for number, line in enumerate(lines[1:end], 2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[:1] in (" ", "\t") and last:
            fields[last] = f"{fields[last]} {line.strip()}".strip()
            continue
        key, colon, value = line.partition(":")
        if not colon:
            raise ValueError(f"line {number}: expected 'key: value', got {line.strip()!r}")
        last = key.strip().lower()
        fields[last] = _unquoted(value.strip())
    return fields, "\n".join(lines[end + 1 :])


def _unquoted(value: str) -> str:
    if value in (">", "|", ">-", "|-"):
        return ""  # a block scalar: the indented lines that follow are its text
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value
