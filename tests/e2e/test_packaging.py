"""`pip install .` into a clean virtual environment gives a working `lull`, whose only top-level
import package is `lull`."""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.heavy]  # make check-slow: a wheel build

ROOT = Path(__file__).resolve().parents[2]


def test_pip_install_gives_a_working_lull(tmp_path: Path) -> None:
    target = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(target)
    python = target / "bin" / "python"
    # Build the wheel with this (dev) environment's setuptools, as `pip install .` would, but
    # offline; then install it with no dependencies: `make test` proves those resolve.
    wheels = tmp_path / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(wheels),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    wheel = next(wheels.glob("lullcode-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        tops = {name.split("/")[0] for name in archive.namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"lull"}
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel)],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    lull = target / "bin" / "lull"
    done = subprocess.run([str(lull), "--help"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "usage: lull" in done.stdout
    check = subprocess.run(
        [
            str(python),
            "-c",
            "import lull.cli, lull.tools.registry, lull.settings.loader, importlib.resources as r;"
            "print(r.files('lull.settings').joinpath('schema.json').is_file())",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert check.stdout.strip() == "True", check.stderr
    assert str(ROOT) not in check.stdout
