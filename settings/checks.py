"""Value checks for settings: one small class per kind of value.

Each check validates a JSON value (:meth:`Check.check`), parses a string from an
environment variable or a command-line flag (:meth:`Check.parse`), describes what
it expects in words (:attr:`Check.expected`, used in messages) and as a JSON
Schema fragment (:meth:`Check.schema`), so messages, loader and ``schema.json``
cannot drift apart.
"""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

_INT_TEXT = re.compile(r"[+-]?\d+")
_NUMBER_TEXT = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


class Invalid(Exception):
    """A value does not fit its check; the message says what would fit."""


class PartlyInvalid(Invalid):
    """Some entries of a value do not fit: ``kept`` is the value without them, ``problems``
    says what each left-out entry was and why (one warning each, the rest still works)."""

    def __init__(self, kept: object, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.kept = kept
        self.problems = problems


def as_whole_number(value: object) -> int | None:
    """The int a JSON value stands for (5 and 5.0 alike), or None; a bool is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


class Check(ABC):
    """What one setting accepts."""

    nullable: bool = False

    @property
    @abstractmethod
    def expected(self) -> str:
        """What the setting accepts, in words ("an integer >= 1")."""

    @abstractmethod
    def accepts(self, value: object) -> object:
        """Return the normalised non-null value, or raise :class:`Invalid`."""

    @abstractmethod
    def value_schema(self) -> dict[str, Any]:
        """The JSON Schema fragment for a non-null value."""

    def parse_value(self, text: str) -> object:
        """Turn env/CLI text into a JSON value for :meth:`accepts` (default: the text)."""
        return text

    def check(self, value: object) -> object:
        """Validate a JSON value; return it normalised or raise :class:`Invalid`."""
        if value is None and self.nullable:
            return None
        return self.accepts(value)

    def parse(self, text: str) -> object:
        """Validate text from an environment variable or a flag."""
        try:
            value = self.parse_value(text.strip())
        except ValueError:
            raise Invalid(self.describe()) from None
        return self.check(value)

    def describe(self) -> str:
        """The full expectation, including "or null" when null is allowed."""
        return f"{self.expected} or null" if self.nullable else self.expected

    def fail(self) -> Invalid:
        """The error to raise for a value that does not fit."""
        return Invalid(self.describe())

    def to_json(self, value: object) -> object:
        """A checked value as JSON (messages, ``/settings``, the schema's default)."""
        return list(value) if isinstance(value, tuple) else value

    def stamped(self, value: object, source: str, project: bool) -> object:
        """A checked value marked with where it came from (``source``: a file or a flag;
        ``project``: an untrusted project file), for values whose entries keep their origin
        (permission rules, hooks). Others are returned as they are."""
        return value

    def schema(self) -> dict[str, Any]:
        """The JSON Schema fragment for this setting, null included when allowed."""
        fragment = self.value_schema()
        if not self.nullable:
            return fragment
        if "enum" in fragment:
            return {**fragment, "enum": [*fragment["enum"], None]}
        return {**fragment, "type": [fragment["type"], "null"]}


@dataclass(frozen=True)
class Choice(Check):
    """One of a fixed set of strings."""

    values: tuple[str, ...]
    nullable: bool = False

    @property
    def expected(self) -> str:
        """E.g. "one of default, auto-edit, yolo, plan"."""
        return "one of " + ", ".join(self.values)

    def accepts(self, value: object) -> object:
        """Accept exactly one of :attr:`values`."""
        if isinstance(value, str) and value in self.values:
            return value
        raise self.fail()

    def value_schema(self) -> dict[str, Any]:
        """An ``enum``."""
        return {"enum": list(self.values)}


@dataclass(frozen=True)
class Boolean(Check):
    """true or false."""

    nullable: bool = False

    @property
    def expected(self) -> str:
        """ "true or false"."""
        return "true or false"

    def accepts(self, value: object) -> object:
        """Accept a JSON boolean only."""
        if isinstance(value, bool):
            return value
        raise self.fail()

    def parse_value(self, text: str) -> object:
        """Env/CLI text: true/false, 1/0, yes/no, on/off."""
        lowered = text.lower()
        if lowered in ("true", "1", "yes", "on"):
            return True
        if lowered in ("false", "0", "no", "off"):
            return False
        raise ValueError(text)

    def value_schema(self) -> dict[str, Any]:
        """A boolean."""
        return {"type": "boolean"}


@dataclass(frozen=True)
class Text(Check):
    """A non-empty string."""

    nullable: bool = False

    @property
    def expected(self) -> str:
        """ "a non-empty string"."""
        return "a non-empty string"

    def accepts(self, value: object) -> object:
        """Accept a string with at least one non-blank character."""
        if isinstance(value, str) and value.strip():
            return value
        raise self.fail()

    def value_schema(self) -> dict[str, Any]:
        """A string with ``minLength`` 1."""
        return {"type": "string", "minLength": 1, "pattern": r"\S"}


@dataclass(frozen=True)
class Integer(Check):
    """An integer with a lower bound."""

    minimum: int = 1
    nullable: bool = False

    @property
    def expected(self) -> str:
        """E.g. "an integer >= 1"."""
        return f"an integer >= {self.minimum}"

    def accepts(self, value: object) -> object:
        """Accept a whole number (5 or 5.0, never a bool) at or above :attr:`minimum`."""
        whole = as_whole_number(value)
        if whole is not None and whole >= self.minimum:
            return whole
        raise self.fail()

    def parse_value(self, text: str) -> object:
        """Parse decimal digits only ("2.5" and "1e3" are not integers)."""
        if not _INT_TEXT.fullmatch(text):
            raise ValueError(text)
        return int(text)

    def value_schema(self) -> dict[str, Any]:
        """An integer with ``minimum``."""
        return {"type": "integer", "minimum": self.minimum}


@dataclass(frozen=True)
class Number(Check):
    """A finite number, optionally in a range; ints are accepted and become floats."""

    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False

    @property
    def expected(self) -> str:
        """E.g. "a finite number" or "a number > 0 and <= 1"."""
        bounds = []
        if self.minimum is not None:
            bounds.append(f"{'>' if self.exclusive_minimum else '>='} {self.minimum:g}")
        if self.maximum is not None:
            bounds.append(f"{'<' if self.exclusive_maximum else '<='} {self.maximum:g}")
        return "a number " + " and ".join(bounds) if bounds else "a finite number"

    def accepts(self, value: object) -> object:
        """Accept a finite int or float inside the range, returned as a float."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail()
        try:
            number = float(value)
        except OverflowError:
            raise self.fail() from None
        if not math.isfinite(number) or not self._in_range(number):
            raise self.fail()
        return number

    def _in_range(self, number: float) -> bool:
        """Whether ``number`` is inside the configured bounds."""
        if self.minimum is not None and (
            number <= self.minimum if self.exclusive_minimum else number < self.minimum
        ):
            return False
        return not (
            self.maximum is not None
            and (number >= self.maximum if self.exclusive_maximum else number > self.maximum)
        )

    def parse_value(self, text: str) -> object:
        """Parse a plain decimal number ("nan", "inf" and "1_0" are refused)."""
        if not _NUMBER_TEXT.fullmatch(text):
            raise ValueError(text)
        return float(text)

    def value_schema(self) -> dict[str, Any]:
        """A number with the matching (exclusive) bounds."""
        fragment: dict[str, Any] = {"type": "number"}
        if self.minimum is not None:
            fragment["exclusiveMinimum" if self.exclusive_minimum else "minimum"] = self.minimum
        if self.maximum is not None:
            fragment["exclusiveMaximum" if self.exclusive_maximum else "maximum"] = self.maximum
        return fragment


@dataclass(frozen=True)
class Seconds(Number):
    """Seconds (> 0) in a settings file; an environment variable gives milliseconds, as
    Claude Code's ``MCP_TIMEOUT`` and ``MCP_TOOL_TIMEOUT`` do."""

    minimum: float | None = 0
    exclusive_minimum: bool = True

    def parse_value(self, text: str) -> object:
        """Milliseconds from the environment, as seconds."""
        value = super().parse_value(text)
        assert isinstance(value, float)
        return value / 1000

    def parse(self, text: str) -> object:
        """Validate milliseconds from an environment variable (the message says so)."""
        try:
            return super().parse(text)
        except Invalid:
            raise Invalid(f"{self.expected} (milliseconds)") from None


@dataclass(frozen=True)
class Thinking(Check):
    """``false`` (off), ``true`` (provider default budget) or a budget in tokens."""

    minimum_budget: int = 1024

    @property
    def expected(self) -> str:
        """ "true, false or an integer >= 1024"."""
        return f"true, false or an integer >= {self.minimum_budget}"

    def accepts(self, value: object) -> object:
        """Accept a bool, or an int budget at or above :attr:`minimum_budget`."""
        if isinstance(value, bool):
            return value
        whole = as_whole_number(value)
        if whole is not None and whole >= self.minimum_budget:
            return whole
        raise self.fail()

    def parse_value(self, text: str) -> object:
        """Parse "true", "false" (any case) or a decimal integer."""
        lowered = text.lower()
        if lowered in ("true", "false"):
            return lowered == "true"
        return Integer(self.minimum_budget).parse_value(text)

    def value_schema(self) -> dict[str, Any]:
        """A boolean or an integer budget."""
        return {
            "anyOf": [
                {"type": "boolean"},
                {"type": "integer", "minimum": self.minimum_budget},
            ]
        }


@dataclass(frozen=True)
class TextList(Check):
    """A list of non-empty strings, stored as a tuple."""

    @property
    def expected(self) -> str:
        """ "a list of non-empty strings"."""
        return "a list of non-empty strings"

    def accepts(self, value: object) -> object:
        """Accept a JSON array of non-blank strings (a tuple or list from code too)."""
        if isinstance(value, list | tuple) and all(
            isinstance(item, str) and item.strip() for item in value
        ):
            return tuple(value)
        raise self.fail()

    def parse_value(self, text: str) -> object:
        """Split comma-separated text ("a, b" -> ["a", "b"])."""
        return [item.strip() for item in text.split(",") if item.strip()]

    def value_schema(self) -> dict[str, Any]:
        """An array of non-empty strings."""
        return {"type": "array", "items": {"type": "string", "minLength": 1, "pattern": r"\S"}}


@dataclass(frozen=True)
class PathList(TextList):
    """A list of filesystem paths (``~`` allowed); checked like :class:`TextList`.

    Its own kind because a project file narrows it by containment, not by equality.
    """


@dataclass(frozen=True)
class AdditiveList(TextList):
    """A list a project file may only add to (a deny list such as ``tools.exclude``);
    checked like :class:`TextList`."""


#: One price override: MODEL=INPUT/OUTPUT[/CACHE_READ[/CACHE_WRITE[/CACHE_WRITE_1H]]], USD per
#: million tokens. The same pattern is in schema.json, so editors and the loader agree.
PRICE_PATTERN = r"^[^=\s]+=[0-9]+(\.[0-9]+)?(/[0-9]+(\.[0-9]+)?){1,4}$"
PRICE_FORMAT = "MODEL=INPUT/OUTPUT[/CACHE_READ[/CACHE_WRITE[/CACHE_WRITE_1H]]]"


@dataclass(frozen=True)
class PriceList(Check):
    """Price overrides: strings like "my-model=3/15/0.3/3.75" (USD per million tokens)."""

    @property
    def expected(self) -> str:
        """What one entry looks like, in words."""
        return f'a list of "{PRICE_FORMAT}" strings (USD per million tokens)'

    def accepts(self, value: object) -> object:
        """Accept a JSON array of well-formed entries; say which entry is wrong."""
        if not isinstance(value, list | tuple):
            raise self.fail()
        for index, item in enumerate(value):
            if not isinstance(item, str) or re.search(PRICE_PATTERN, item) is None:
                shown = item if isinstance(item, str) else type(item).__name__
                raise Invalid(f"{self.describe()}; entry {index} ({shown!r}) is not one")
        return tuple(item.strip() for item in value)

    def parse_value(self, text: str) -> object:
        """Split comma-separated text ("a=1/5, b=2/10" -> two entries)."""
        return [item.strip() for item in text.split(",") if item.strip()]

    def value_schema(self) -> dict[str, Any]:
        """An array of strings matching :data:`PRICE_PATTERN`."""
        return {"type": "array", "items": {"type": "string", "pattern": PRICE_PATTERN}}
