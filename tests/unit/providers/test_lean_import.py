"""Lean SDK imports: a package's re-exports resolve on first use, the SDK works the same."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lull.providers.lean_import import LeanFinder, import_lean, parse_exports
from tests.fakes import FakeServer, Reply

ROOT = Path(__file__).resolve().parents[3]


def test_parse_exports_binds_imports_and_keeps_all_and_calls() -> None:
    source = textwrap.dedent(
        """
        '''doc'''
        from __future__ import annotations
        import typing as _t
        from . import types
        from ._client import Client as Client, Timeout
        from .lib.vertex import *
        from ._logs import setup as _setup
        if _t.TYPE_CHECKING:
            from .heavy import Never
        if not _t.TYPE_CHECKING:
            from ._proxy import resources as resources
        __all__ = ["Client", "Timeout"]
        __all__ += ["types"]
        _setup()
        """
    )
    exports = parse_exports(source, root=True)
    assert exports is not None
    assert exports.names["_t"] == ("typing", None)
    assert exports.names["types"] == (".types", None)
    assert exports.names["Client"] == ("._client", "Client")
    assert exports.names["resources"] == ("._proxy", "resources")
    assert "Never" not in exports.names
    assert exports.stars == [".lib.vertex"]
    assert exports.all_names == ["Client", "Timeout", "types"]
    assert exports.calls == ["_setup"]


def test_a_subpackage_with_other_statements_runs_as_usual() -> None:
    source = "from .a import b\nclass Webhooks(b):\n    pass\n"
    assert parse_exports(source) is None
    root = parse_exports(source, root=True)
    assert root is not None and root.skipped == 1


def _package(tmp_path: Path) -> Path:
    """A package ``leanpkg`` whose __init__ re-exports a cheap and a 'heavy' submodule."""
    package = tmp_path / "leanpkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text(
        "from .cheap import value as value\n"
        "from .heavy import expensive as expensive\n"
        "from . import sub\n"
        "from .stars import *\n"
        "from ._log import setup as _setup\n"
        "__all__ = ['value', 'expensive', 'sub']\n"
        "_setup()\n"
    )
    (package / "cheap.py").write_text("value = 42\n")
    (package / "heavy.py").write_text("import builtins\nbuiltins.HEAVY_RAN = True\nexpensive = 7\n")
    (package / "stars.py").write_text("__all__ = ['starred']\nstarred = 'yes'\n")
    (package / "_log.py").write_text(
        "import builtins\ndef setup():\n    builtins.SETUP_RAN = True\n"
    )
    (package / "sub" / "__init__.py").write_text("from .inner import thing as thing\n")
    (package / "sub" / "inner.py").write_text("thing = 'inner'\n")
    return tmp_path


def _run(tmp_path: Path, code: str) -> str:
    """Run ``code`` in a fresh interpreter with ``tmp_path`` on the path; its stdout."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        env={"PYTHONPATH": f"{tmp_path}:{ROOT}", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_submodule_runs_only_when_a_name_from_it_is_used(tmp_path: Path) -> None:
    out = _run(
        _package(tmp_path),
        """
        import builtins, sys
        from lull.providers.lean_import import import_lean
        pkg = import_lean("leanpkg")
        print(getattr(builtins, "SETUP_RAN", False), "leanpkg.heavy" in sys.modules)
        print(pkg.value, "leanpkg.heavy" in sys.modules)
        print(pkg.expensive, getattr(builtins, "HEAVY_RAN", False))
        print(pkg.sub.thing, pkg.starred, sorted(pkg.__all__))
        from leanpkg import value, expensive
        print(value + expensive, "expensive" in dir(pkg))
        """,
    )
    assert out.splitlines() == [
        "True False",
        "42 False",
        "7 True",
        "inner yes ['expensive', 'sub', 'value']",
        "49 True",
    ]


def test_a_missing_name_is_an_attribute_error(tmp_path: Path) -> None:
    out = _run(
        _package(tmp_path),
        """
        from lull.providers.lean_import import import_lean
        pkg = import_lean("leanpkg")
        try:
            pkg.nothing_here
        except AttributeError as error:
            print(error)
        """,
    )
    assert "has no attribute 'nothing_here'" in out


def test_a_failing_lean_import_falls_back_to_the_usual_one(tmp_path: Path) -> None:
    _package(tmp_path)
    # a bare call of a name that cannot be resolved lazily fails; the usual import then
    # fails the same way, as it would have without lull
    (tmp_path / "leanpkg" / "_log.py").write_text("raise ImportError('broken on purpose')\n")
    out = _run(
        tmp_path,
        """
        import sys
        from lull.providers.lean_import import import_lean
        try:
            import_lean("leanpkg")
        except ImportError as error:
            print("usual import failed too:", error, "leanpkg" in sys.modules)
        """,
    )
    assert out.strip() == "usual import failed too: broken on purpose False"


def test_an_sdk_already_imported_is_returned_as_it_is() -> None:
    assert import_lean("json") is sys.modules["json"]


def test_the_finder_leaves_other_packages_alone() -> None:
    assert LeanFinder(frozenset({"anthropic"})).find_spec("json", None) is None


@pytest.mark.parametrize(
    ("sdk", "client", "unused"),
    [
        ("anthropic", "AsyncAnthropic", "anthropic.lib.vertex"),
        ("openai", "AsyncOpenAI", "openai.lib.azure"),
    ],
)
def test_the_lean_sdk_streams_a_request_and_skips_what_lull_never_uses(
    sdk: str, client: str, unused: str
) -> None:
    with FakeServer() as fake:
        fake.script(Reply(text="hello"))
        url = fake.url if sdk == "anthropic" else fake.url + "/v1"
        call = (
            "c.messages.create(model='claude-test', max_tokens=50, stream=True, "
            "messages=[{'role': 'user', 'content': 'hi'}])"
            if sdk == "anthropic"
            else "c.chat.completions.create(model='gpt-test', stream=True, "
            "messages=[{'role': 'user', 'content': 'hi'}])"
        )
        out = _run(
            ROOT,
            f"""
            import asyncio, sys
            from lull.providers.lean_import import import_lean
            sdk = import_lean({sdk!r})
            c = sdk.{client}(api_key="test", base_url={url!r}, max_retries=0)
            async def main():
                stream = await {call}
                return [type(item).__name__ async for item in stream]
            print(len(asyncio.run(main())) > 0)
            c = sdk.{client}(api_key="t", base_url="http://127.0.0.1:9", max_retries=0)
            async def refused():
                await {call}
            try:
                asyncio.run(refused())
            except sdk.APIConnectionError as error:
                print("mapped:", type(error).__name__)
            print({unused!r} in sys.modules, len(sys.modules))
            """,
        )
    lines = out.splitlines()
    assert lines[0] == "True"
    assert lines[1] == "mapped: APIConnectionError"
    unused_loaded, modules = lines[2].split()
    assert unused_loaded == "False"
    print(f"{sdk}: {modules} modules")


def test_no_collection_runs_while_an_sdk_is_imported_and_its_objects_are_frozen() -> None:
    import gc

    from lull.providers.sdk import without_collections

    frozen = gc.get_freeze_count()
    try:
        with without_collections():
            assert not gc.isenabled()
            made = [[n] for n in range(1000)]  # long-lived objects, as an import makes
        assert gc.isenabled()
        assert gc.get_freeze_count() >= frozen + len(made)
    finally:
        gc.unfreeze()
