"""No import circle in tui/, counting the imports under `if TYPE_CHECKING:` and inside functions.

A helper that imports the chat screen to annotate its argument closes a circle (the screen imports the
helper): slash commands and screen helpers are typed against `ChatHost` (tui/host.py) instead, and the
command table's help lives beside the table, so nothing below the screen reaches back up to it
(docs/design.md, "The house"; STYLE.md, "helpers take a small host").
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "tui"
INSTALLED = "foldchat.tui"  # the name tui/ installs as (pyproject's package-dir): absolute imports use it


def module_names(root: Path, package: str) -> dict[str, Path]:
    """Every module of the package under `root` by its dotted name (`tui.screens.chat`; `tui.slash` for
    tui/slash/__init__.py)."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def local(module: str) -> str:
    """`foldchat.tui.x` as the repository names it, `tui.x`."""
    installed = module == INSTALLED or module.startswith(INSTALLED + ".")
    return PACKAGE + module.removeprefix(INSTALLED) if installed else module


def imported(node: ast.Import | ast.ImportFrom, name: str, is_package: bool, known: set[str]) -> list[str]:
    """The package's modules one import statement of module `name` loads (relative imports resolved)."""
    if isinstance(node, ast.Import):
        targets = [local(a.name) for a in node.names]
    else:
        if node.level:
            here = name.split(".") if is_package else name.split(".")[:-1]
            base = ".".join(here[: len(here) - node.level + 1] + ([node.module] if node.module else []))
        else:
            base = local(node.module or "")
        # `from . import editing` names a module; `from ..slash import BY_NAME` names a package's attribute
        targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
    out = []
    for target in targets:
        while target and target not in known:  # `import tui.widgets.x.y` with y an attribute: its module
            target = target.rpartition(".")[0]
        if target and target != name:
            out.append(target)
    return out


def import_graph(root: Path, package: str = PACKAGE) -> dict[str, set[str]]:
    """Module → the package's modules it imports, anywhere in it: at the top, under `if TYPE_CHECKING:`,
    inside a function (a lazy import still ties the two modules together)."""
    modules = module_names(root, package)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        is_package = path.name == "__init__.py"
        graph[name] = {
            target
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for target in imported(node, name, is_package, set(modules))
        }
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The graph's import circles: each set of modules that reach one another (a strongly connected
    component of more than one module, Tarjan's algorithm), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_tui_has_no_import_circle():
    graph = import_graph(ROOT)
    assert len(graph) > 30 and sum(map(len, graph.values())) > 50  # the walk found the modules and their imports
    found = circles(graph)
    said = "\n".join(f"{len(c)} modules: {', '.join(c)}" for c in found)
    print(f"import circles in tui/: {len(found)}\n{said}")
    assert not found, f"import circles in tui/ (type a helper against tui/host.py's ChatHost):\n{said}"


def test_the_check_sees_a_circle_held_open_by_type_checking(tmp_path):
    package = tmp_path / PACKAGE
    (package / "screens").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "screens" / "__init__.py").write_text("")
    (package / "screens" / "chat.py").write_text("from ..helper import run\n")
    (package / "helper.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .screens.chat import ChatScreen\n"
    )
    (package / "lazy.py").write_text("def f():\n    from foldchat.tui.screens import chat\n")
    (package / "other.py").write_text("from . import lazy\nfrom .screens import chat\n")
    graph = import_graph(tmp_path)
    assert graph["tui.lazy"] == {"tui.screens.chat"} and graph["tui.other"] == {"tui.lazy", "tui.screens.chat"}
    assert circles(graph) == [["tui.helper", "tui.screens.chat"]]
    (package / "helper.py").write_text("from .host import ChatHost\n")
    (package / "host.py").write_text("from typing import Protocol\n")
    assert circles(import_graph(tmp_path)) == []
