"""The installed distribution has one import package, ``lull``; the repository keeps its folders.

``app/`` is ``lull``, ``tools/`` is ``lull.tools``, ``settings/`` is ``lull.settings``. The
metadata is in ``pyproject.toml``; only the package layout, which ``pyproject.toml`` cannot
derive from folders named otherwise, is here.
"""

from setuptools import find_packages, setup

FOLDERS = {"lull": "app", "lull.tools": "tools", "lull.settings": "settings"}

setup(
    package_dir=FOLDERS,
    packages=[
        f"{package}.{sub}" if sub else package
        for package, folder in FOLDERS.items()
        for sub in ["", *find_packages(folder)]
    ],
)
