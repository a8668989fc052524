"""lull settings: typed model, JSON files + env + CLI loader, and where files live.

Typical use::

    from lull.settings import load_settings
    loaded = load_settings(Path.cwd(), cli={"model.name": args.model})
    for diagnostic in loaded.diagnostics:
        print(diagnostic, file=sys.stderr)

Only the standard library is imported here (platformdirs is imported when a
path is asked for), so ``import settings`` is cheap.
"""

from lull.settings.errors import Diagnostic, SettingsError
from lull.settings.loader import LoadedSettings, load_settings
from lull.settings.model import (
    ApprovalMode,
    CompressionSettings,
    ContextSettings,
    IdleSettings,
    ModelSettings,
    Settings,
    ToolsSettings,
)

__all__ = [
    "ApprovalMode",
    "CompressionSettings",
    "ContextSettings",
    "Diagnostic",
    "IdleSettings",
    "LoadedSettings",
    "ModelSettings",
    "Settings",
    "SettingsError",
    "ToolsSettings",
    "load_settings",
]
