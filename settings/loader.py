"""Load settings: defaults < user file < project file < env < CLI flags, key by key.

Every problem in a file or an environment variable becomes a :class:`Diagnostic`
and only the offending file or key is ignored, so lull always gets valid
settings. A bad command-line value raises :class:`SettingsError` instead.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from settings.checks import Invalid
from settings.errors import Diagnostic, SettingsError
from settings.fields import ENV_FIELDS, FIELDS, GROUPS, Field, get_value, suggest, with_value
from settings.jsonfile import FileProblem, read_json_object
from settings.model import Settings
from settings.paths import project_settings_path, user_settings_path

SCHEMA_KEY = "$schema"
_SHOW_LIMIT = 60


@dataclass
class LoadedSettings:
    """The merged settings, what went wrong on the way, and where each value came from.

    ``sources`` maps every dotted key set by a file, env var or flag (e.g.
    ``"model.name"``) to that file path, ``"env LULL_..."`` or ``"--flag"``.
    """

    settings: Settings = field(default_factory=Settings)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)

    def set(self, key: str, value: object, source: str) -> None:
        """Let ``source`` override the dotted ``key`` with an already-checked value."""
        self.settings = with_value(self.settings, key, value)
        self.sources[key] = source

    def report(self, level: Literal["warning", "error"], message: str, source: str) -> None:
        """Record one diagnostic."""
        self.diagnostics.append(Diagnostic(level, message, source))

    def standing(self, key: str) -> str:
        """The value that stays when a new one is rejected, with where it came from."""
        shown = show(get_value(self.settings, key))
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
    apply_file(loaded, user_settings_path())
    apply_file(loaded, project_settings_path(workspace), trusted=False)
    apply_env(loaded, os.environ if env is None else env)
    apply_cli(loaded, cli or {})
    return loaded


def apply_file(loaded: LoadedSettings, path: Path, *, trusted: bool = True) -> None:
    """Apply one settings file; a missing file is fine, a broken one is reported.

    An untrusted (project) file cannot grant itself more power: see
    :data:`PROJECT_GUARDED`.
    """
    source = str(path)
    try:
        data = read_json_object(path)
    except FileProblem as exc:
        loaded.report("error", str(exc), source)
        return
    if data is not None:
        _apply_object(loaded, data, "", source, trusted)


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
        elif key in FIELDS and not trusted and _guarded(key, value):
            message = (
                f"{source}: {key} = {show(value)} is ignored in project settings (a repository "
                "cannot grant itself more access); set it in your user settings or on the "
                "command line"
            )
            loaded.report("warning", message, source)
        elif key in FIELDS:
            _apply_value(loaded, FIELDS[key], value, source)
        elif key != SCHEMA_KEY:
            hint = suggest(key)
            tail = f"; did you mean {hint}?" if hint else ""
            message = f"{source}: unknown setting {key} (ignored){tail}"
            loaded.report("warning", message, source)


PROJECT_GUARDED = (
    "tools.approvalMode",
    "tools.allowedPaths",
    "tools.allowPrivateNetwork",
    "tools.envPassthrough",
    "model.baseUrl",
)


def _guarded(key: str, value: object) -> bool:
    """Would this project-file value widen what lull may do (or where the API key goes)?"""
    if key == "tools.approvalMode":
        return value == "yolo"
    if key in ("tools.allowedPaths", "tools.envPassthrough"):
        return bool(value)
    if key == "tools.allowPrivateNetwork":
        return value is True
    return key == "model.baseUrl" and value is not None


def _apply_value(loaded: LoadedSettings, spec: Field, value: object, source: str) -> None:
    """Check one file value; keep the lower-precedence value when it is wrong."""
    try:
        checked = spec.check.check(value)
    except Invalid as exc:
        message = (
            f"{source}: {spec.key}: expected {exc}, got {show(value)}; "
            f"using {loaded.standing(spec.key)}"
        )
        loaded.report("error", message, source)
        return
    loaded.set(spec.key, checked, source)


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
    """Apply command-line values (strings are parsed like env values); raise on a bad one."""
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
        loaded.set(key, value, label)


def cli_label(spec: Field) -> str:
    """How a setting given on the command line is named ("--model")."""
    return spec.flag or f"command line {spec.key}"


def show(value: object) -> str:
    """Render a value as JSON for a message, shortened to one readable line."""
    if isinstance(value, tuple):
        value = list(value)
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _SHOW_LIMIT else text[: _SHOW_LIMIT - 3] + "..."
