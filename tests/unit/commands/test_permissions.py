"""/permissions: the rules in force with their sources (a project's allow rules waiting for
/trust), and a rule added for the session."""

from __future__ import annotations

import json
from pathlib import Path

from lull.commands import run_command
from lull.tools.registry import default_registry
from tests.support import demo_runtime

TOOLS = {tool.name: tool for tool in default_registry()}


def _settings(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_rules_with_their_sources_and_a_project_allow_rule_waiting_for_trust(
    workspace: Path, isolated_env: Path
) -> None:
    user = _settings(
        isolated_env / "config" / "lull" / "settings.json",
        {"permissions": {"allow": ["run_shell_command(npm test*)"]}},
    )
    project = _settings(
        workspace / ".lull" / "settings.json",
        {"permissions": {"allow": ["run_shell_command(make *)"], "deny": ["read_file(.env)"]}},
    )
    runtime = demo_runtime(workspace, env={})
    lines = run_command(runtime, "/permissions").lines
    assert lines[0] == "permission rules (deny > ask > allow > the default mode):"
    assert lines[1].split() == ["deny", "read_file(.env)", str(project), "(project)"]
    assert lines[2].split()[:3] == ["allow", "run_shell_command(npm", "test*)"]
    assert lines[2].endswith(str(user))
    assert lines[3].endswith(f"{project} (project); not applied until you /trust this workspace")
    book, ctx = runtime.agent.tools.rules, runtime.agent.tools.context
    shell = TOOLS["run_shell_command"]
    assert book.match(shell, {"command": "make all"}, ctx) is None
    run_command(runtime, "/trust")
    assert "not applied" not in run_command(runtime, "/permissions").lines[3]
    match = book.match(shell, {"command": "make all"}, ctx)
    assert match is not None and match.effect == "allow"
    run_command(runtime, "/trust revoke")
    assert book.match(shell, {"command": "make all"}, ctx) is None
    runtime.close()


def test_a_rule_for_the_session_and_bad_input(workspace: Path) -> None:
    runtime = demo_runtime(workspace, env={})
    assert run_command(runtime, "/permissions").lines[0].startswith("no permission rules")
    added = run_command(runtime, "/permissions deny run_shell_command(git push *)")
    assert added.lines == (
        'deny rule "run_shell_command(git push *)" applies for the rest of this session',
    )
    listed = run_command(runtime, "/permissions").lines[1]
    assert listed.split()[:2] == ["deny", "run_shell_command(git"]
    assert listed.endswith("this session (/permissions)")
    bad = run_command(runtime, "/permissions allow Bash(")
    assert bad.error and bad.lines[0] == (
        "/permissions allow: rule 'Bash(' has no closing parenthesis; write TOOL(PATTERN)"
    )
    assert run_command(runtime, "/permissions maybe").error
    runtime.close()
