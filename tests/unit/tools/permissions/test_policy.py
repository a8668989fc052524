from __future__ import annotations

from pathlib import Path

import pytest

from lull.model.permissions import PermissionRule
from lull.tools.base import ApprovalNeed
from lull.tools.permissions.policy import ApprovalMode, decide, denial_message
from lull.tools.permissions.rules import RuleMatch
from lull.tools.registry import default_registry

REGISTRY = default_registry()

# mode -> decision for each tool, in registry order:
# read_file, write_file, edit, run_shell_command, grep_search, glob, list_directory, web_fetch,
# note, todo_write
MATRIX: dict[ApprovalMode, list[str]] = {
    "default": ["allow", "ask", "ask", "ask", "allow", "allow", "allow", "allow", "allow", "allow"],
    "auto-edit": ["allow", "allow", "allow", "ask", *["allow"] * 6],
    "yolo": ["allow"] * 10,
    "plan": ["allow", "deny", "deny", "deny", "allow", "allow", "allow", "allow", "allow", "allow"],
    "dont-ask": ["allow", "deny", "deny", "deny", *["allow"] * 6],
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
    refused = denial_message(shell, "dont-ask", None)
    assert refused.startswith("run_shell_command was not run: the dontAsk permission mode runs")
    assert "no allow rule covers this call" in refused
    plan = denial_message(shell, "plan", None)
    assert plan.startswith("plan mode: only read-only tools may run; run_shell_command was not run")


NEED = ApprovalNeed(
    reason="localhost resolves to 127.0.0.1, a loopback address",
    scope="web_fetch(domain:localhost)",
    how_to_allow="Set tools.allowPrivateNetwork.",
)


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("default", "ask"),
        ("auto-edit", "ask"),
        ("yolo", "allow"),
        ("plan", "deny"),
        ("dont-ask", "deny"),
    ],
)
def test_a_call_with_an_approval_need_is_not_read_only(mode: ApprovalMode, expected: str) -> None:
    fetch = REGISTRY.get("web_fetch")
    assert fetch is not None
    assert decide(fetch, mode, NEED) == expected


def test_denial_of_a_call_with_a_need_says_why_and_how_to_allow() -> None:
    fetch = REGISTRY.get("web_fetch")
    assert fetch is not None
    assert denial_message(fetch, "plan", None, NEED) == (
        "web_fetch was not run: localhost resolves to 127.0.0.1, a loopback address, which "
        "needs the user's approval, and plan mode does not ask for it. "
        "Set tools.allowPrivateNetwork."
    )
    assert denial_message(fetch, "default", "no -p", NEED) == (
        "web_fetch was not run: localhost resolves to 127.0.0.1, a loopback address, which "
        "needs the user's approval, and the user denied it. Reason: no -p. "
        "Set tools.allowPrivateNetwork."
    )


def _rule(effect: str, text: str) -> RuleMatch:
    return RuleMatch(effect, PermissionRule(effect, text, "/u/settings.json"))  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", list(MATRIX))
def test_saved_rules_come_before_the_mode(mode: ApprovalMode) -> None:
    shell = next(t for t in REGISTRY if t.name == "run_shell_command")
    read = next(t for t in REGISTRY if t.name == "read_file")
    assert decide(shell, mode, None, _rule("deny", "run_shell_command(rm *)")) == "deny"
    assert decide(read, mode, None, _rule("deny", "read_file(.env)")) == "deny"
    asked = decide(shell, mode, None, _rule("ask", "run_shell_command(git push *)"))
    assert asked == ("deny" if mode == "dont-ask" else "ask")  # dont-ask has no one to ask
    allowed = decide(shell, mode, None, _rule("allow", "run_shell_command(make *)"))
    assert allowed == ("deny" if mode == "plan" else "allow")  # a rule never widens plan mode


def test_a_denied_call_names_the_rule() -> None:
    shell = next(t for t in REGISTRY if t.name == "run_shell_command")
    text = denial_message(shell, "yolo", None, None, _rule("deny", "run_shell_command(rm *)"))
    assert text.startswith(
        'run_shell_command was not run: the user\'s deny rule "run_shell_command(rm *)" from '
        "/u/settings.json denies it."
    )
    asked = denial_message(shell, "yolo", "not now", None, _rule("ask", "Bash(git push *)"))
    assert 'ask rule "Bash(git push *)"' in asked and asked.endswith("Reason: not now")


def test_a_sandboxed_shell_call_runs_without_asking_unless_a_rule_or_plan_says_otherwise(
    tmp_path: Path,
) -> None:
    from lull.tools.base import ToolContext
    from lull.tools.process.sandbox.policy import SandboxPolicy
    from lull.tools.process.sandbox.probe import Availability
    from lull.tools.process.sandbox.sandbox import Sandbox

    shell = REGISTRY.get("run_shell_command")
    assert shell is not None
    policy = SandboxPolicy(tmp_path, (tmp_path,), excluded_commands=("docker",))
    ready = Availability("linux", "/usr/bin/bwrap", "/usr/bin/socat")
    ctx = ToolContext(tmp_path, tmp_path / "out", sandbox=Sandbox(policy, ready))
    assert shell.sandboxed_without_asking({"command": "make test"}, ctx)
    assert not shell.sandboxed_without_asking({"command": "docker ps"}, ctx)
    unsandboxed = {"command": "make", "dangerously_disable_sandbox": True}
    assert not shell.sandboxed_without_asking(unsandboxed, ctx)
    assert decide(shell, "default", sandboxed=True) == "allow"
    assert decide(shell, "plan", sandboxed=True) == "deny"
    assert decide(shell, "default", rule=_rule("ask", "Bash(make *)"), sandboxed=True) == "ask"
    assert decide(shell, "yolo", rule=_rule("deny", "Bash(rm *)"), sandboxed=True) == "deny"
    no_auto = Sandbox(SandboxPolicy(tmp_path, (tmp_path,), auto_allow=False), ready)
    ctx_no_auto = ToolContext(tmp_path, tmp_path / "out", sandbox=no_auto)
    assert not shell.sandboxed_without_asking({"command": "make"}, ctx_no_auto)
