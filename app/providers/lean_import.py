"""Importing an official SDK with only the modules lull's request path uses.

``import anthropic`` runs every ``__init__.py`` of the SDK, and those re-export everything:
3,500 modules (Vertex, Bedrock, Foundry, the beta and organization types, tool runners), of
which one streamed request uses about a third. :func:`import_lean` imports the same SDK, the
same code, with every package ``__init__`` of its tree made *lazy*: the names it re-exports
are bound on first use (a module ``__getattr__``, PEP 562), so a submodule runs only when
something reads a name from it. Clients, retries, errors and streaming are the SDK's own.

What a lean ``__init__`` does with each statement:

* ``from .x import a as b`` / ``import x as y`` (also under ``if not TYPE_CHECKING``):
  ``b`` is bound to ``.x.a`` on first use; ``from .x import *`` is searched last.
* ``if TYPE_CHECKING:`` blocks never run (as at any run time); ``__all__`` literals are kept.
* a bare call of an imported name (``_setup_logging()``) runs, after the bindings.
* anything else: in a subpackage the ``__init__`` runs as usual (it is not made lazy); in
  the root package it is skipped. Today that is anthropic's renaming of its exports'
  ``__module__`` (cosmetic) and openai's module-level client (``openai.api_key``,
  ``openai.chat…`` without a client object), neither of which lull uses.

If anything fails, the SDK's modules are dropped and it is imported the usual way (one
debug-log line): a new SDK version can make this slower, never broken.
"""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.machinery
import logging
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

log = logging.getLogger("lull.providers")

_LOCK = threading.Lock()


@dataclass
class Exports:
    """What one package ``__init__`` re-exports: name -> (module, attribute or None for the
    module itself), star-imported modules, ``__all__``, and the calls to run."""

    names: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    stars: list[str] = field(default_factory=list)
    all_names: list[str] | None = None
    calls: list[str] = field(default_factory=list)
    skipped: int = 0


def _type_checking_test(test: ast.expr) -> bool | None:
    """True for ``TYPE_CHECKING`` / ``x.TYPE_CHECKING``, False for their negation, else None."""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    inner = test.operand if isinstance(test, ast.UnaryOp) else test
    name = inner.attr if isinstance(inner, ast.Attribute) else getattr(inner, "id", None)
    if name != "TYPE_CHECKING":
        return None
    return not negated


def _all_value(node: ast.stmt) -> tuple[str, list[str]] | None:
    """("=" or "+=", names) for an ``__all__`` assignment of a literal list, else None."""
    if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [
        "__all__"
    ]:
        value, op = node.value, "="
    elif isinstance(node, ast.AugAssign) and getattr(node.target, "id", None) == "__all__":
        value, op = node.value, "+="
    else:
        return None
    try:
        names = ast.literal_eval(value)
    except ValueError:
        return None
    return op, [str(n) for n in names]


def _bare_call(node: ast.stmt) -> str | None:
    """The name in a statement ``name()`` (no arguments), else None."""
    if not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Call):
        return None
    call = node.value
    if call.args or call.keywords or not isinstance(call.func, ast.Name):
        return None
    return call.func.id


def _add_import(node: ast.Import | ast.ImportFrom, exports: Exports) -> None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname is not None:
                exports.names[alias.asname] = (alias.name, None)
            # a plain ``import a.b`` binds ``a``, which is imported anyway
        return
    if node.module == "__future__":
        return
    base = "." * node.level + (node.module or "")
    for alias in node.names:
        bound = alias.asname or alias.name
        if alias.name == "*":
            exports.stars.append(base)
        elif node.module is None:  # from . import sub
            exports.names[bound] = (base + alias.name, None)
        else:
            exports.names[bound] = (base, alias.name)


def _collect(body: Sequence[ast.stmt], exports: Exports, *, root: bool) -> bool:
    """Fill ``exports`` from ``body``; False when a statement rules out a lazy ``__init__``."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            _add_import(node, exports)
        elif isinstance(node, ast.If) and (checking := _type_checking_test(node.test)) is not None:
            if not _collect(node.orelse if checking else node.body, exports, root=root):
                return False
        elif (assigned := _all_value(node)) is not None:
            op, names = assigned
            exports.all_names = names if op == "=" else [*(exports.all_names or []), *names]
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # a docstring
        elif (called := _bare_call(node)) is not None and called in exports.names:
            exports.calls.append(called)
        elif root:
            exports.skipped += 1
        else:
            return False
    return True


def parse_exports(source: str, *, root: bool = False) -> Exports | None:
    """What a package ``__init__`` source re-exports, or None if it must run as usual."""
    exports = Exports()
    if not _collect(ast.parse(source).body, exports, root=root):
        return None
    return exports


class _LazyPackageLoader(importlib.abc.Loader):
    """Creates a package module whose re-exports resolve on first use."""

    def __init__(self, exports: Exports, submodules: frozenset[str]) -> None:
        self.exports = exports
        self.submodules = submodules

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        """The default module object."""
        return None

    def exec_module(self, module: ModuleType) -> None:
        """Install the lazy ``__getattr__`` and ``__dir__``; run the bare calls."""
        exports = self.exports
        package = module.__name__

        def resolve(name: str) -> Any:
            target, attribute = exports.names[name]
            imported = importlib.import_module(target, package)
            return imported if attribute is None else getattr(imported, attribute)

        def module_getattr(name: str) -> Any:
            if name in exports.names:
                value = resolve(name)
            else:
                value = _from_stars(name, exports.stars, package)
            setattr(module, name, value)
            return value

        def module_dir() -> list[str]:
            return sorted({*module.__dict__, *exports.names, *(exports.all_names or [])})

        module.__getattr__ = module_getattr  # type: ignore[method-assign]
        module.__dir__ = module_dir  # type: ignore[method-assign]
        if exports.all_names is not None:
            setattr(module, "__all__", list(exports.all_names))  # noqa: B010
        # a re-export named like a submodule would be replaced by the submodule once anything
        # imports it, so such names are bound now (as running the __init__ would)
        for name in exports.names.keys() & self.submodules:
            setattr(module, name, resolve(name))
        for name in exports.calls:
            module_getattr(name)()


def _from_stars(name: str, stars: list[str], package: str) -> Any:
    if not name.startswith("_"):
        for star in stars:
            imported = importlib.import_module(star, package)
            public = getattr(imported, "__all__", None)
            if (public is None or name in public) and hasattr(imported, name):
                return getattr(imported, name)
    raise AttributeError(f"module {package!r} has no attribute {name!r}")


class LeanFinder(importlib.abc.MetaPathFinder):
    """Finds the packages of ``roots`` as usual and gives them lazy ``__init__`` loaders."""

    def __init__(self, roots: frozenset[str]) -> None:
        self.roots = roots

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        """The usual spec; a package of a lean root gets a lazy loader when it allows one."""
        if fullname.partition(".")[0] not in self.roots:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        locations = spec.submodule_search_locations if spec else None
        if spec is None or not locations or not (spec.origin or "").endswith("__init__.py"):
            return spec
        assert spec.origin is not None
        with open(spec.origin, encoding="utf-8") as handle:
            exports = parse_exports(handle.read(), root="." not in fullname)
        if exports is None:
            return spec
        spec.loader = _LazyPackageLoader(exports, _submodule_names(locations))
        return spec


def _submodule_names(locations: Sequence[str]) -> frozenset[str]:
    import os

    names: set[str] = set()
    for location in locations:
        try:
            entries = os.listdir(location)
        except OSError:
            continue
        names.update(e.removesuffix(".py") for e in entries if not e.startswith("__"))
    return frozenset(names)


def import_lean(name: str) -> ModuleType:
    """The SDK package ``name``, imported lean (see the module docstring); an SDK already
    imported is returned as it is."""
    with _LOCK:
        if name in sys.modules:
            return sys.modules[name]
        finder = LeanFinder(frozenset({name}))
        sys.meta_path.insert(0, finder)
        try:
            return importlib.import_module(name)
        except Exception as error:
            log.debug("lean import of %s failed (%s); importing it as usual", name, error)
            _forget(name)
            sys.meta_path.remove(finder)
            return importlib.import_module(name)


def _forget(root: str) -> None:
    """Drop ``root`` and its submodules from ``sys.modules``."""
    for module in [m for m in sys.modules if m == root or m.startswith(root + ".")]:
        del sys.modules[module]
