"""No function in engine/, tui/ or foldchat/ over 60 lines: past that, split it into named steps.

Argument-parser declarations (`add_parser`, `build_parser`) are a list of options, not logic, and are
left out.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 60
DECLARATIONS = {"add_parser", "build_parser"}


def long_functions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [
        f"{path}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name not in DECLARATIONS
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > LIMIT
    ]


def test_no_function_is_over_the_limit():
    folders = [ROOT / "engine", ROOT / "tui", ROOT / "foldchat"]
    found = [line for folder in folders for path in folder.rglob("*.py") for line in long_functions(path)]
    assert not found, "\n".join(found)


def test_the_check_sees_a_long_function(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def long():\n" + "    x = 1\n" * LIMIT + "\n\ndef add_parser():\n" + "    y = 2\n" * 80)
    assert long_functions(sample) == [f"{sample}:1 long ({LIMIT + 1} lines)"]
