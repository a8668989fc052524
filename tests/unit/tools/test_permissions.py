from __future__ import annotations

import pytest

from tools.permissions import ApprovalMode, decide, denial_message
from tools.registry import default_registry

REGISTRY = default_registry()

# mode -> decision for each tool, in registry order:
# read_file, write_file, edit, run_shell_command, grep_search, glob, list_directory, web_fetch
MATRIX: dict[ApprovalMode, list[str]] = {
    "default": ["allow", "ask", "ask", "ask", "allow", "allow", "allow", "allow"],
    "auto-edit": ["allow", "allow", "allow", "ask", "allow", "allow", "allow", "allow"],
    "yolo": ["allow"] * 8,
    "plan": ["allow", "deny", "deny", "deny", "allow", "allow", "allow", "allow"],
}


@pytest.mark.parametrize("mode", list(MATRIX))
def test_permission_matrix(mode: ApprovalMode) -> None:
    decisions = [decide(tool, mode) for tool in REGISTRY]
    assert decisions == MATRIX[mode]


def test_unknown_mode_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown approval mode 'careful'"):
        decide(next(iter(REGISTRY)), "careful")  # type: ignore[arg-type]


def test_denial_messages() -> None:
    shell = REGISTRY.get("run_shell_command")
    assert shell is not None
    assert denial_message(shell, "default", None) == "The user denied this run_shell_command call."
    assert denial_message(shell, "default", "  too risky ") == (
        "The user denied this run_shell_command call. Reason: too risky"
    )
    plan = denial_message(shell, "plan", None)
    assert plan.startswith("plan mode: only read-only tools may run; run_shell_command was not run")
