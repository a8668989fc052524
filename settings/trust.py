"""What a project settings file may set: each key's rule, how a value narrows, the messages.

A repository is untrusted, so its ``.lull/settings.json`` may only narrow what the user (the
user settings file, the environment, the command line) allows. Each key's rule is
:attr:`lull.settings.fields.Field.project`: ``yes`` (any value), ``narrow`` (only a value no wider
than the user's) or ``no`` (user only: it decides where the workspace goes or what it costs).
The loader, ``schema.json`` and the table in ``docs/configuration.md``
(:mod:`lull.settings.schema`) all derive from that one attribute.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, assert_never

from lull.settings.checks import AdditiveList, Boolean, Choice, Integer, Number, PathList, TextList
from lull.settings.errors import show
from lull.settings.fields import Field
from lull.settings.paths import user_settings_path

Outcome = Literal["accepted", "narrowed", "refused"]


@dataclass(frozen=True, slots=True)
class Judgement:
    """What becomes of one checked project value: applied as is, narrowed, or refused.

    ``value`` is what to apply (accepted or narrowed); ``dropped`` the list entries left out.
    """

    outcome: Outcome
    value: object = None
    dropped: tuple[str, ...] = ()


def judge(spec: Field, value: object, standing: object, source: str = "") -> Judgement:
    """Judge a project file's (checked) ``value`` for ``spec`` against the user's ``standing``
    (``source``: the project file, recorded on entries that apply only when trusted)."""
    match spec.project:
        case "yes":
            return Judgement("accepted", value)
        case "no":
            return Judgement("refused")
        case "narrow":
            return _narrow(spec, value, standing)
        case "trusted":
            return _added(value, standing, source)
        case "adds":
            assert isinstance(value, tuple) and isinstance(standing, tuple)
            return Judgement("accepted", standing + tuple(v for v in value if v not in standing))
        case unreachable:
            assert_never(unreachable)


def _added(value: object, standing: object, source: str) -> Judgement:
    """The user's entries plus the project's new ones, marked as the project's (they apply
    only in a trusted workspace); a project entry may not replace one of the user's."""
    assert isinstance(value, tuple) and isinstance(standing, tuple)
    taken = {entry.name: entry for entry in standing}
    merged = list(standing)
    dropped: list[str] = []
    for entry in value:
        if entry.name in taken and taken[entry.name].scope == "user":
            dropped.append(entry.name)
            continue
        marked = dataclasses.replace(entry, scope="project", source=source)
        merged = [e for e in merged if e.name != entry.name] + [marked]
        taken[entry.name] = marked
    outcome: Outcome = "narrowed" if dropped else "accepted"
    return Judgement(outcome, tuple(merged), tuple(dropped))


def _narrow(spec: Field, value: object, standing: object) -> Judgement:
    """Accept ``value`` only as far as it is no wider than ``standing``."""
    match spec.check:
        case Choice() | Boolean():
            return _accepted_if(_rank(spec, value) <= _rank(spec, standing), value)
        case Integer() | Number():
            bound = spec.null_limit
            return _accepted_if(_limit(value, bound) <= _limit(standing, bound), value)
        case AdditiveList():
            added = tuple(entry for entry in _strings(value) if entry not in _strings(standing))
            return Judgement("accepted", _strings(standing) + added)
        case PathList():
            roots = [root for root in map(_resolved, _strings(standing)) if root is not None]
            return _kept(_strings(value), lambda path: _inside(path, roots))
        case TextList():
            allowed = set(_strings(standing))
            return _kept(_strings(value), lambda entry: entry in allowed)
        case _:
            raise TypeError(f"{spec.key}: {type(spec.check).__name__} has no narrowing order")


def _accepted_if(narrower: bool, value: object) -> Judgement:
    return Judgement("accepted", value) if narrower else Judgement("refused")


def _rank(spec: Field, value: object) -> int:
    """Position of a choice in :attr:`Field.narrowest_first` (0 is the narrowest)."""
    if not spec.narrowest_first:
        raise TypeError(f"{spec.key}: a narrow-only choice needs narrowest_first")
    return spec.narrowest_first.index(show(value) if isinstance(value, bool) else str(value))


def _limit(value: object, null_limit: int | None) -> float:
    """A number as a limit; null is ``null_limit``, or no limit at all."""
    if value is None:
        return math.inf if null_limit is None else null_limit
    assert isinstance(value, int | float)
    return value


def _strings(value: object) -> tuple[str, ...]:
    assert isinstance(value, tuple)
    return tuple(str(item) for item in value)


def _kept(entries: tuple[str, ...], allowed: Callable[[str], bool]) -> Judgement:
    """Keep the entries ``allowed`` accepts; narrowed when some are dropped."""
    kept = tuple(entry for entry in entries if allowed(entry))
    dropped = tuple(entry for entry in entries if entry not in kept)
    return Judgement("narrowed", kept, dropped) if dropped else Judgement("accepted", kept)


def _resolved(path: str) -> Path | None:
    """``path`` as the tools will resolve it (``~`` expanded, symlinks followed); None if it
    cannot be (e.g. a lone surrogate the file system cannot encode)."""
    try:
        return Path(path).expanduser().resolve()
    except (OSError, RuntimeError, ValueError):
        return None


def _inside(path: str, roots: list[Path]) -> bool:
    """Whether ``path`` is one of ``roots`` or inside one."""
    resolved = _resolved(path)
    return resolved is not None and any(resolved.is_relative_to(root) for root in roots)


# --- words ---------------------------------------------------------------------------------


def narrowing_rule(spec: Field) -> str:
    """How a narrow-only key may change, e.g. "plan < default < auto-edit < yolo"."""
    match spec.check:
        case Choice():
            return "stricter only: " + " < ".join(spec.narrowest_first)
        case Boolean() if spec.narrowest_first[:1] == ("false",):
            return "switch off only: a project may turn it off, never on"
        case Boolean():
            return "switch on only: a project may turn it on, never off"
        case AdditiveList():
            return "only adds to your list"
        case Integer() | Number():
            null = "no limit" if spec.null_limit is None else str(spec.null_limit)
            return f"lower only; null counts as {null}" if spec.check.nullable else "lower only"
        case PathList():
            return "only paths inside the ones you allowed"
        case TextList():
            return "only entries you listed"
        case _:
            raise TypeError(f"{spec.key}: {type(spec.check).__name__} has no narrowing order")


TRUSTED_RULE = "adds entries; they apply once you trust the workspace with /trust"


def rule_text(spec: Field) -> str:
    """What a project file may do with ``spec``, in a few words (docs, schema)."""
    match spec.project:
        case "yes":
            return "yes"
        case "narrow":
            return f"narrow ({narrowing_rule(spec)})"
        case "trusted":
            return f"trusted ({TRUSTED_RULE})"
        case "adds":
            return f"adds ({spec.project_note})"
        case "no":
            return "no (user only)"
        case unreachable:
            assert_never(unreachable)


def schema_sentence(spec: Field) -> str:
    """The sentence ``schema.json`` adds to the key's description."""
    match spec.project:
        case "yes":
            return "Project files may set it."
        case "narrow":
            return f"Project files may only narrow it ({narrowing_rule(spec)})."
        case "trusted":
            return (
                "Project files (and .mcp.json) may add entries; they apply only in a workspace "
                "the user trusts (/trust), and never replace one of the user's."
            )
        case "adds":
            return f"Project files may add entries: {spec.project_note}."
        case "no":
            return "Ignored in project files (user settings, environment or flag only)."
        case unreachable:
            assert_never(unreachable)


def where_to_set(spec: Field) -> str:
    """Where the user can set ``spec`` instead: the user file, its variable and flag."""
    places = [f"your user settings ({user_settings_path()})"]
    if spec.env:
        places.append(f"with {spec.env}")
    if spec.flag:
        places.append(f"with {spec.flag}")
    head = ", ".join(places[:-1])
    return f"{head} or {places[-1]}" if head else places[0]


def refused_message(source: str, spec: Field, value: object, standing: str) -> str:
    """The one-line warning for a project value that is not applied at all."""
    if spec.project == "no":
        reason = (
            f"a project file may not set {spec.key} (only you choose where your code goes "
            "and what it costs)"
        )
    else:
        reason = (
            f"it is wider than {standing}, and a project file may only narrow {spec.key} "
            f"({narrowing_rule(spec)})"
        )
    where = where_to_set(spec)
    return f"{source}: {spec.key} = {show(value)} is ignored: {reason}; set it in {where}"


def narrowed_message(source: str, spec: Field, judgement: Judgement, standing: str) -> str:
    """The one-line warning for a project list whose widening entries were dropped."""
    if spec.project == "trusted":
        names = ", ".join(judgement.dropped)
        return (
            f"{source}: {spec.key}: {names} ignored: your user settings name a server of the "
            f"same name, and a project file may only add entries; rename it in {source} to use "
            "both"
        )
    dropped = ", ".join(show(entry, limit=None) for entry in judgement.dropped)
    kept = show(judgement.value, limit=None)
    return (
        f"{source}: {spec.key}: {dropped} ignored: not allowed by {standing}, and a project "
        f"file may only narrow {spec.key} ({narrowing_rule(spec)}); using {kept}; "
        f"to allow more, set it in {where_to_set(spec)}"
    )
