"""``import settings`` stays cheap: no platformdirs and nothing heavy at import time."""

from __future__ import annotations

import subprocess
import sys


def test_import_settings_pulls_in_nothing_heavy() -> None:
    code = (
        "import sys, settings, lull.settings.describe, lull.settings.paths;"
        "heavy = {'platformdirs', 'anthropic', 'openai', 'textual', 'tiktoken', 'pydantic'};"
        "print(sorted(heavy & set(sys.modules)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=30
    )
    assert result.stdout.strip() == "[]"
