"""The ``permissions`` settings: ``allow``, ``ask`` and ``deny`` lists of rules, as in Claude
Code.

``{"permissions": {"allow": ["run_shell_command(npm test*)"], "deny": ["read_file(.env)"]}}``.
Rules from every file add up (user, the user's rules for this workspace, the project); a
project's ``deny`` and ``ask`` rules apply at once, its ``allow`` rules only once the user
trusts the workspace (the engine checks, see ``tools/permissions/rules.py``). The user's rules for
one
workspace are in :mod:`lull.settings.rule_files`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from lull.model.permissions import PermissionRule, RuleEffect, RuleScope, parse_rule
from lull.settings.checks import Check, Invalid

RULE_PATTERN = r"^\s*[A-Za-z0-9_.*-]+\s*(\(.*\S.*\)\s*)?$"


@dataclass(frozen=True)
class RuleList(Check):
    """A list of ``TOOL`` or ``TOOL(PATTERN)`` rules of one effect; the message names the
    entry that is wrong and why."""

    effect: RuleEffect = "allow"

    @property
    def expected(self) -> str:
        """What the setting accepts, in words."""
        return 'a list of rules ("TOOL" or "TOOL(PATTERN)")'

    def accepts(self, value: object) -> object:
        """A tuple of :class:`PermissionRule` (source and scope are set by :meth:`stamped`)."""
        if not isinstance(value, list | tuple):
            raise self.fail()
        rules: list[PermissionRule] = []
        for index, item in enumerate(value):
            if isinstance(item, PermissionRule):
                rules.append(item)
                continue
            if not isinstance(item, str):
                raise Invalid(f"{self.describe()}; entry {index} is {type(item).__name__}")
            try:
                parse_rule(item)
            except ValueError as problem:
                raise Invalid(f"{self.describe()}; entry {index}: {problem}") from None
            rules.append(PermissionRule(self.effect, item.strip()))
        return tuple(rules)

    def parse_value(self, text: str) -> object:
        """Split comma-separated text outside parentheses ("a, b(x, y)" -> two rules)."""
        rules, depth, start = [], 0, 0
        for index, char in enumerate(text):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if char == "," and depth == 0:
                rules.append(text[start:index])
                start = index + 1
        rules.append(text[start:])
        return [rule.strip() for rule in rules if rule.strip()]

    def value_schema(self) -> dict[str, Any]:
        """An array of rule strings."""
        return {"type": "array", "items": {"type": "string", "pattern": RULE_PATTERN}}

    def to_json(self, value: object) -> object:
        """The rules as written."""
        if not isinstance(value, tuple):
            return value
        return [rule.text if isinstance(rule, PermissionRule) else rule for rule in value]

    def stamped(self, value: object, source: str, project: bool) -> object:
        """The rules marked with the file (or flag) they came from."""
        if not isinstance(value, tuple):
            return value
        scope: RuleScope = "project" if project else "user"
        return tuple(
            replace(rule, source=source, scope=scope) if isinstance(rule, PermissionRule) else rule
            for rule in value
        )
