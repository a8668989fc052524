"""/trust: the user trusts the workspace once; the list lives in the user's config."""

from __future__ import annotations

from lull.commands import run_command
from lull.runtime import Runtime
from lull.settings.workspaces import is_trusted


def test_trust_status_and_revoke(runtime: Runtime) -> None:
    workspace = runtime.workspace
    assert "is not trusted" in run_command(runtime, "/trust status").lines[0]
    granted = run_command(runtime, "/trust").lines[0]
    assert granted.startswith(f"trusted {workspace}") and is_trusted(workspace)
    assert "already trusted" in run_command(runtime, "/trust").lines[0]
    assert "is trusted" in run_command(runtime, "/trust status").lines[0]
    assert "no longer trusted" in run_command(runtime, "/trust revoke").lines[0]
    assert not is_trusted(workspace)
    bad = run_command(runtime, "/trust maybe")
    assert bad.error and "unknown /trust argument 'maybe'" in bad.lines[0]
