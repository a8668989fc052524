"""Custom sub-agents from Claude Code's folders, read in place beside lull's."""

from __future__ import annotations

from pathlib import Path

from lull.engine.subagents.profiles import load_profiles


def agent_file(folder: Path, name: str, model: str = "") -> None:
    """Write one agent file named ``name`` into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    line = f"model: {model}\n" if model else ""
    text = f"---\nname: {name}\ndescription: {name} from {folder}\n{line}---\nYou {name}.\n"
    (folder / f"{name}.md").write_text(text, "utf-8")


def test_claude_codes_agent_folders_add_to_lulls_and_lulls_win_a_name(tmp_path: Path) -> None:
    lull_user, lull_project = tmp_path / "lull-user", tmp_path / "ws" / ".lull" / "agents"
    claude_user, claude_project = (
        tmp_path / "home" / "agents",
        tmp_path / "ws" / ".claude" / "agents",
    )
    agent_file(lull_user, "reviewer")
    agent_file(claude_user, "reviewer")
    agent_file(claude_user, "writer", model="haiku")
    agent_file(claude_project, "tester", model="opus")
    loaded = load_profiles(lull_user, lull_project, claude_dirs=(claude_user, claude_project))
    by_name = {profile.name: profile for profile in loaded.profiles}
    assert list(by_name) == ["general-purpose", "reviewer", "writer", "tester"]
    assert str(lull_user) in by_name["reviewer"].description  # lull's own wins
    assert any("a sub-agent 'reviewer' exists" in note for note in loaded.notes)
    assert by_name["writer"].model == "haiku"  # the user's: applies
    assert by_name["tester"].model is None  # an untrusted project's: waits for /trust
    assert any("model 'opus' ignored until you /trust" in note for note in loaded.notes)
