"""Load settings: defaults < user files < project files < env < CLI flags, key by key.

The user files are lull's ``settings.json`` and Claude Code's ``~/.claude/settings.json`` (and
the MCP servers of ``~/.claude.json``, below both); the project files ``.lull/settings.json``,
Claude Code's ``.claude/settings.local.json`` and ``.claude/settings.json``
(:mod:`lull.settings.claude_code`), and ``.mcp.json``. Where lull's
own file and Claude Code's of the same level both set a key, lull's wins; list keys (rules,
hooks, added directories) add up.

Every problem in a file or an environment variable becomes a :class:`Diagnostic`
and only the offending file or key is ignored, so lull always gets valid
settings. A bad command-line value raises :class:`SettingsError` instead.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, assert_never

from lull.model.mcp import McpServerConfig
from lull.settings.checks import AdditiveList, Invalid, PartlyInvalid
from lull.settings.errors import Diagnostic, SettingsError, show
from lull.settings.fields import ENV_FIELDS, FIELDS, GROUPS, Field, get_value, suggest, with_value
from lull.settings.jsonfile import FileProblem, read_json_object
from lull.settings.mcp_servers import parse_server
from lull.settings.model import Settings
from lull.settings.paths import (
    claude_json_path,
    claude_project_settings_paths,
    claude_user_settings_path,
    mcp_json_path,
    project_settings_path,
    user_settings_path,
)
from lull.settings.trust import judge, narrowed_message, refused_message

__all__ = [
    "LoadedSettings",
    "apply_claude_file",
    "apply_cli",
    "apply_env",
    "apply_file",
    "load_settings",
    "show",
]

SCHEMA_KEY = "$schema"
MCP_JSON_KEY = "mcpServers"
_INVALID = object()


@dataclass
class LoadedSettings:
    """The merged settings, what went wrong on the way, and where each value came from.

    ``sources`` maps every dotted key set by a file, env var or flag (e.g.
    ``"model.name"``) to that file path, ``"env LULL_..."`` or ``"--flag"``;
    ``overruled`` maps a key whose project-file value was ignored or narrowed to a note
    saying so (shown by ``/settings`` next to the source); ``untrusted`` holds the sources
    that are repository files, not the user's.
    """

    settings: Settings = field(default_factory=Settings)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    overruled: dict[str, str] = field(default_factory=dict)
    untrusted: set[str] = field(default_factory=set)

    def set_by_user(self, key: str) -> bool:
        """Whether the user set ``key`` (their file, an env variable, a flag): a value from
        the repository's file, or the default, is not the user's explicit choice."""
        source = self.sources.get(key)
        return source is not None and source not in self.untrusted

    def set(self, key: str, value: object, source: str) -> None:
        """Let ``source`` override the dotted ``key`` with an already-checked value."""
        self.settings = with_value(self.settings, key, value)
        self.sources[key] = source

    def report(self, level: Literal["warning", "error"], message: str, source: str) -> None:
        """Record one diagnostic."""
        self.diagnostics.append(Diagnostic(level, message, source))

    def standing(self, key: str) -> str:
        """The value that stays when a new one is rejected, with where it came from."""
        shown = show(FIELDS[key].check.to_json(get_value(self.settings, key)))
        source = self.sources.get(key)
        return f"{shown} from {source}" if source else f"default {shown}"


def load_settings(
    workspace: Path,
    env: Mapping[str, str] | None = None,
    cli: Mapping[str, Any] | None = None,
) -> LoadedSettings:
    """Merge defaults, the user and project files, ``env`` (default: os.environ) and ``cli``.

    ``cli`` maps dotted JSON keys ("tools.approvalMode") to flag values; None
    values are skipped. Raises :class:`SettingsError` for a bad CLI value.
    """
    loaded = LoadedSettings()
    user_file = user_settings_path()
    apply_file(loaded, user_file)
    apply_claude_file(loaded, claude_user_settings_path(), below=(user_file,))
    apply_claude_json(loaded, claude_json_path(), workspace)
    apply_workspace_rules(loaded, workspace)
    project_file = project_settings_path(workspace)
    apply_file(loaded, project_file, trusted=False)
    local, shared = claude_project_settings_paths(workspace)
    apply_claude_file(loaded, local, trusted=False, below=(project_file,))
    apply_claude_file(loaded, shared, trusted=False, below=(project_file, local))
    apply_mcp_json(loaded, mcp_json_path(workspace))
    apply_env(loaded, os.environ if env is None else env)
    apply_cli(loaded, cli or {})
    return loaded


def apply_file(loaded: LoadedSettings, path: Path, *, trusted: bool = True) -> None:
    """Apply one settings file; a missing file is fine, a broken one is reported.

    An untrusted (project) file may only narrow what the user allows: each key's
    :attr:`lull.settings.fields.Field.project` rule decides (see :mod:`lull.settings.trust`).
    """
    source = str(path)
    data = _read_settings_file(loaded, path, trusted)
    if data is not None:
        _apply_object(loaded, data, "", source, trusted)


def _read_settings_file(loaded: LoadedSettings, path: Path, trusted: bool) -> dict[str, Any] | None:
    """A settings file's object (None: missing, or broken and reported); an untrusted file's
    values are marked as not the user's."""
    if not trusted:
        loaded.untrusted.add(str(path))
    try:
        return read_json_object(path)
    except FileProblem as exc:
        loaded.report("error", str(exc), str(path))
        return None


def apply_claude_file(
    loaded: LoadedSettings, path: Path, *, trusted: bool = True, below: tuple[Path, ...] = ()
) -> None:
    """Apply what lull understands of one Claude Code settings file (a missing one is fine).

    A key one of the files ``below`` already set keeps that value (lull's own file wins),
    except list keys, whose entries add up. A project file (``trusted=False``) goes through
    the same rules as ``.lull/settings.json``.
    """
    from lull.settings.claude_code import translated

    source = str(path)
    data = _read_settings_file(loaded, path, trusted)
    if data is None:
        return
    found = translated(data, source)
    for problem in found.problems:
        loaded.report("warning", problem, source)
    stronger = {str(file) for file in below}
    for key, value in found.values.items():
        spec = FIELDS[key]
        if loaded.sources.get(key) in stronger and spec.project != "adds":
            continue
        if trusted:
            _apply_value(loaded, spec, value, source)
        else:
            _apply_project_value(loaded, spec, value, source)


def apply_claude_json(loaded: LoadedSettings, path: Path, workspace: Path) -> None:
    """The MCP servers Claude Code keeps in ``~/.claude.json`` (the user's own file): the
    user-scope ``mcpServers`` and this workspace's local-scope
    ``projects["<abs path>"].mcpServers`` (which win a name both use). They come below every
    server lull's settings name (a name taken there keeps lull's entry), each marked with its
    source for ``/mcp``; a bad entry is a warning naming the file and the server."""
    source = str(path)
    data = _read_settings_file(loaded, path, trusted=True)
    if data is None:
        return
    projects = data.get("projects")
    project = projects.get(str(workspace.resolve())) if isinstance(projects, Mapping) else None
    found: dict[str, McpServerConfig] = {}
    for where, holder in (
        ("", data),
        (f'projects["{workspace.resolve()}"].', project if isinstance(project, Mapping) else {}),
    ):
        servers = holder.get(MCP_JSON_KEY)
        if servers is None:
            continue
        key = f"{where}{MCP_JSON_KEY}"
        if not isinstance(servers, Mapping):
            loaded.report(
                "warning",
                f"{source}: {key}: expected an object, got {show(servers)}; ignored",
                source,
            )
            continue
        scope = "local scope" if where else "user scope"
        for name, entry in servers.items():
            try:
                server = parse_server(str(name), entry)
            except Invalid as exc:
                message = f"{source}: {key}.{name}: expected {exc}; this server is ignored"
                loaded.report("warning", message, source)
                continue
            found[server.name] = dataclasses.replace(server, source=f"{source}, {scope}")
    if not found:
        return
    standing = get_value(loaded.settings, MCP_JSON_KEY)
    taken = {server.name for server in standing}
    added = tuple(server for name, server in found.items() if name not in taken)
    if added:
        loaded.set(MCP_JSON_KEY, (*standing, *added), loaded.sources.get(MCP_JSON_KEY, source))


def apply_mcp_json(loaded: LoadedSettings, path: Path) -> None:
    """A project's ``.mcp.json`` (``{"mcpServers": {...}}``): its servers are added like
    ``mcpServers`` in the project settings file (they start only in a trusted workspace)."""
    source = str(path)
    try:
        data = read_json_object(path)
    except FileProblem as exc:
        loaded.report("error", str(exc), source)
        return
    if data is None:
        return
    servers = data.get(MCP_JSON_KEY)
    if servers is None:
        loaded.report("warning", f"{source}: no {MCP_JSON_KEY} object; nothing used", source)
        return
    _apply_project_value(loaded, FIELDS[MCP_JSON_KEY], servers, source)


def _apply_object(
    loaded: LoadedSettings, data: Mapping[str, Any], prefix: str, source: str, trusted: bool
) -> None:
    """Apply every key of one JSON object found at ``prefix`` in a file."""
    for name, value in data.items():
        key = f"{prefix}.{name}" if prefix else name
        if key in GROUPS:
            if isinstance(value, dict):
                _apply_object(loaded, value, key, source, trusted)
            else:
                message = f"{source}: {key}: expected an object, got {show(value)}; ignored"
                loaded.report("error", message, source)
        elif key in FIELDS and not trusted:
            _apply_project_value(loaded, FIELDS[key], value, source)
        elif key in FIELDS:
            _apply_value(loaded, FIELDS[key], value, source)
        elif key != SCHEMA_KEY:
            hint = suggest(key)
            tail = f"; did you mean {hint}?" if hint else ""
            message = f"{source}: unknown setting {key} (ignored){tail}"
            loaded.report("warning", message, source)


def _apply_value(loaded: LoadedSettings, spec: Field, value: object, source: str) -> None:
    """Check one file value; keep the lower-precedence value when it is wrong."""
    checked = _checked(loaded, spec, value, source)
    if checked is _INVALID:
        return
    checked = spec.check.stamped(checked, source, project=False)
    if spec.project == "adds" and spec.key in loaded.sources:
        checked = judge(spec, checked, get_value(loaded.settings, spec.key)).value
    loaded.set(spec.key, checked, source)


def _apply_project_value(loaded: LoadedSettings, spec: Field, value: object, source: str) -> None:
    """Apply one project-file value only as far as :attr:`Field.project` lets it narrow.

    A user-only key is refused whatever its value; anything else is checked first.
    """
    standing = get_value(loaded.settings, spec.key)
    if spec.project == "no":
        _refuse(loaded, spec, value, source)
        return
    checked = _checked(loaded, spec, value, source)
    if checked is _INVALID:
        return
    checked = spec.check.stamped(checked, source, project=True)
    judgement = judge(spec, checked, standing, source)
    match judgement.outcome:
        case "accepted":
            loaded.set(spec.key, judgement.value, source)
        case "narrowed":
            message = narrowed_message(source, spec, judgement, loaded.standing(spec.key))
            loaded.set(spec.key, judgement.value, source)
            loaded.report("warning", message, source)
            loaded.overruled[spec.key] = "entries you did not allow were ignored"
        case "refused":
            _refuse(loaded, spec, checked, source)
        case unreachable:
            assert_never(unreachable)


def _refuse(loaded: LoadedSettings, spec: Field, value: object, source: str) -> None:
    """Keep the user's value of ``spec`` and say why the project's ``value`` was ignored."""
    message = refused_message(source, spec, value, loaded.standing(spec.key))
    loaded.report("warning", message, source)
    loaded.overruled[spec.key] = f"{source} ignored"


def _checked(loaded: LoadedSettings, spec: Field, value: object, source: str) -> object:
    """The checked file value, or :data:`_INVALID` (reported) when it is wrong; a value with
    some wrong entries keeps the others (one warning per entry left out)."""
    try:
        return spec.check.check(value)
    except PartlyInvalid as exc:
        for problem in exc.problems:
            loaded.report("warning", f"{source}: {spec.key}: {problem}", source)
        return exc.kept
    except Invalid as exc:
        message = (
            f"{source}: {spec.key}: expected {exc}, got {show(value)}; "
            f"using {loaded.standing(spec.key)}"
        )
        loaded.report("error", message, source)
        return _INVALID


def apply_env(loaded: LoadedSettings, env: Mapping[str, str]) -> None:
    """Apply the LULL_* overrides; an empty variable counts as unset."""
    for name, spec in ENV_FIELDS.items():
        raw = env.get(name)
        if raw is None or not raw.strip():
            continue
        source = f"env {name}"
        try:
            value = spec.check.parse(raw)
        except Invalid as exc:
            loaded.report("error", f"{source}: expected {exc}, got {raw!r}; ignored", source)
            continue
        loaded.set(spec.key, value, source)


def apply_cli(loaded: LoadedSettings, cli: Mapping[str, Any]) -> None:
    """Apply command-line values (strings are parsed like env values); raise on a bad one.

    A deny list (:class:`~lull.settings.checks.AdditiveList`, e.g. ``--exclude-tools``) and a
    list whose entries keep their origin (rules such as ``--allowedTools`` and
    ``--disallowedTools``, ``--add-dir``) add to the value from the files instead of replacing
    it.
    """
    for key, raw in cli.items():
        if raw is None:
            continue
        spec = FIELDS.get(key)
        if spec is None:
            hint = suggest(key)
            tail = f"; did you mean {hint}?" if hint else ""
            raise SettingsError(f"unknown setting {key}{tail}")
        label = cli_label(spec)
        try:
            value = spec.check.parse(raw) if isinstance(raw, str) else spec.check.check(raw)
        except Invalid as exc:
            shown = repr(raw) if isinstance(raw, str) else show(raw)
            raise SettingsError(f"{label}: expected {exc}, got {shown}") from None
        value = spec.check.stamped(value, label, project=False)
        if (isinstance(spec.check, AdditiveList) or spec.project == "adds") and isinstance(
            value, tuple
        ):
            standing: tuple[object, ...] = get_value(loaded.settings, key)
            value = standing + tuple(entry for entry in value if entry not in standing)
        loaded.set(key, value, label)


def apply_workspace_rules(loaded: LoadedSettings, workspace: Path) -> None:
    """Add the user's permission rules and sandbox domains for ``workspace`` (kept in the
    user's config directory: "allow always ... this workspace"); a broken file is reported
    and skipped."""
    from lull.settings.rule_files import (
        DOMAINS_KEY,
        workspace_domains,
        workspace_rules,
        workspace_rules_path,
    )

    source = str(workspace_rules_path())
    try:
        found = workspace_rules(workspace)
        domains = workspace_domains(workspace)
    except FileProblem as exc:
        loaded.report("error", str(exc), source)
        return
    except Invalid as exc:
        loaded.report("error", f"{source}: expected {exc}; its rules are ignored", source)
        return
    for effect, rules in found.items():
        if rules:
            key = f"permissions.{effect}"
            held = get_value(loaded.settings, key)
            loaded.set(key, held + tuple(r for r in rules if r not in held), source)
    if domains:
        held = get_value(loaded.settings, DOMAINS_KEY)
        loaded.set(DOMAINS_KEY, held + tuple(d for d in domains if d not in held), source)


def cli_label(spec: Field) -> str:
    """How a setting given on the command line is named ("--model")."""
    return spec.flag or f"command line {spec.key}"
