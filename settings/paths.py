"""Where lull keeps its files: config, data (sessions, tool output) and state (logs, history).

Directories come from platformdirs (XDG on Linux: ``XDG_CONFIG_HOME``,
``XDG_DATA_HOME``, ``XDG_STATE_HOME``), read at call time so tests and users can
change them. Nothing here creates a directory; callers do that when they write.
"""

from __future__ import annotations

from pathlib import Path

APP_NAME = "lull"
SETTINGS_FILE = "settings.json"
PROJECT_DIR = ".lull"
CLAUDE_DIR = ".claude"
"""Claude Code's folder, read in place: ``~/.claude`` (the user's) and ``<workspace>/.claude``."""


def user_config_dir() -> Path:
    """The user's lull config directory (e.g. ``~/.config/lull``)."""
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def user_settings_path() -> Path:
    """The user settings file, ``<config dir>/settings.json``."""
    return user_config_dir() / SETTINGS_FILE


def project_settings_path(workspace: Path) -> Path:
    """The project settings file, ``<workspace>/.lull/settings.json``."""
    return Path(workspace) / PROJECT_DIR / SETTINGS_FILE


def mcp_json_path(workspace: Path) -> Path:
    """A project's MCP server list, ``<workspace>/.mcp.json`` (as Claude Code reads it)."""
    return Path(workspace) / ".mcp.json"


def user_agents_dir() -> Path:
    """The user's custom sub-agents, ``<config dir>/agents/*.md``."""
    return user_config_dir() / "agents"


def project_agents_dir(workspace: Path) -> Path:
    """A project's custom sub-agents, ``<workspace>/.lull/agents/*.md``."""
    return Path(workspace) / PROJECT_DIR / "agents"


def user_commands_dir() -> Path:
    """The user's custom slash commands, ``<config dir>/commands/**/*.md``."""
    return user_config_dir() / "commands"


def project_commands_dir(workspace: Path) -> Path:
    """A project's custom slash commands, ``<workspace>/.lull/commands/**/*.md``."""
    return Path(workspace) / PROJECT_DIR / "commands"


def skill_roots(workspace: Path) -> list[tuple[Path, bool]]:
    """The folders of skill folders (``<name>/SKILL.md``), each with whether it is a
    project's, in the order the first of a name wins: the user's (lull's, then
    ``~/.claude/skills``), then the project's (``.lull/skills``, then ``.claude/skills``)."""
    return [
        (user_config_dir() / "skills", False),
        (claude_user_dir() / "skills", False),
        (Path(workspace) / PROJECT_DIR / "skills", True),
        (Path(workspace) / CLAUDE_DIR / "skills", True),
    ]


def claude_user_dir() -> Path:
    """Claude Code's user folder, ``~/.claude`` (found through the home directory)."""
    return Path.home() / CLAUDE_DIR


def claude_user_settings_path() -> Path:
    """Claude Code's user settings, ``~/.claude/settings.json``."""
    return claude_user_dir() / SETTINGS_FILE


def claude_json_path() -> Path:
    """Claude Code's own state file, ``~/.claude.json``: its user-scope MCP servers under
    ``mcpServers``, each project's local-scope ones under ``projects[PATH].mcpServers``."""
    return Path.home() / ".claude.json"


def claude_project_settings_paths(workspace: Path) -> tuple[Path, Path]:
    """A project's Claude Code settings, the stronger first: ``.claude/settings.local.json``
    (personal, git-ignored) and ``.claude/settings.json`` (shared)."""
    folder = Path(workspace) / CLAUDE_DIR
    return folder / "settings.local.json", folder / SETTINGS_FILE


def claude_commands_dirs(workspace: Path) -> tuple[Path, Path]:
    """Claude Code's custom commands: ``~/.claude/commands`` and
    ``<workspace>/.claude/commands``."""
    return claude_user_dir() / "commands", Path(workspace) / CLAUDE_DIR / "commands"


def claude_agents_dirs(workspace: Path) -> tuple[Path, Path]:
    """Claude Code's sub-agents: ``~/.claude/agents`` and ``<workspace>/.claude/agents``."""
    return claude_user_dir() / "agents", Path(workspace) / CLAUDE_DIR / "agents"


def data_dir() -> Path:
    """The user's lull data directory (e.g. ``~/.local/share/lull``)."""
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def sessions_dir() -> Path:
    """Where session files (JSONL transcripts) are stored."""
    return data_dir() / "sessions"


def checkpoints_dir() -> Path:
    """Where file checkpoints (/undo, /rewind) are stored, per workspace and session."""
    return data_dir() / "checkpoints"


def tool_output_dir() -> Path:
    """Where the full text of truncated tool outputs is saved."""
    return data_dir() / "tool-output"


def state_dir() -> Path:
    """The user's lull state directory (e.g. ``~/.local/state/lull``)."""
    import platformdirs

    return Path(platformdirs.user_state_dir(APP_NAME, appauthor=False))


def clipboard_dir() -> Path:
    """Where images pasted from the clipboard (Ctrl+V in the TUI) are saved."""
    return state_dir() / "clipboard"


def pending_writes_dir() -> Path:
    """The journal of in-flight atomic writes (their temporary files are removed on the
    next start if lull was killed mid-write)."""
    return state_dir() / "pending-writes"


def log_path() -> Path:
    """The debug log file."""
    return state_dir() / "debug.log"


def history_path() -> Path:
    """The prompt input history file."""
    return state_dir() / "history"


def mcp_listings_dir() -> Path:
    """Where each MCP server's last tool listing is kept (``lull -p`` offers it by name
    while the server starts in the background)."""
    return state_dir() / "mcp-tools"
