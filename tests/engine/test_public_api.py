"""The engine's public surface is pinned, and the two faces (tui/, the CLI) use nothing else."""

import ast
import subprocess
import sys
from pathlib import Path

import foldchat.engine as engine

ROOT = Path(__file__).resolve().parents[2]
FACES = (ROOT / "tui", ROOT / "foldchat")
SUBMODULES = {p.stem for p in (ROOT / "engine").glob("*.py")} | {"summarizers"}

EXPECTED = {
    # the application API
    "CompressOptions",
    "ModelEntry",
    "OpenOptions",
    "Session",
    "Usage",
    "turns_words",
    "FoldPlan",
    "Workspace",
    "Archive",
    "compress_messages",
    # values the faces receive
    "Conversation",
    "SearchHit",
    "Failed",
    "Finished",
    "ModelTarget",
    "ProviderEvent",
    "Retrying",
    "Waiting",
    "Notice",
    "missing_key",
    "SNAPSHOT_SECTIONS",
    "StoredFold",
    "StoredMessage",
    "TextDelta",
    "ReasoningDelta",
    "ReplyEvent",
    "ToolCallDelta",
    "UsageReport",
    "STOPPED",
    "Attachment",
    "read_attachment",
    "changed_since",
    "shown_attachments",
    "said",
    "human_size",
    "user_message",
    "takes_images",
    "TurnEvent",
    "Consent",
    "PromptStored",
    "Folded",
    "FoldSkipped",
    "Refused",
    "TurnEnded",
    "ReplyAsked",
    "ToolCalling",
    "ToolCallsAnswered",
    "PassagesRecalled",
    "Recalled",
    "is_snapshot_message",
    "line_without_recall",
    "is_standing_rule",
    "status_suffix",
    "fold_line",
    "load_settings",
    "max_input_bytes",
    "save_unsaved_text",
    # text we did not write, and crashes
    "visible",
    "json_safe",
    "well_formed",
    "read_regular",
    "in_thread",
    "off_loop",
    "is_cut_mark",
    "edit_refusal",
    "fold_economics",
    "reply_line",
    "total_line",
    "UsageTotals",
    "LocalModelSettings",
    "usage_totals",
    "reply_usages",
    "crash_line",
    "write_crash_log",
    # errors
    "ConfigError",
    "CurrentTurnTooLarge",
    "DiskFull",
    "ExportError",
    "InputTooLarge",
    "StorageError",
    "UnknownModel",
    "FoldFailed",
    "FoldchatError",
    "InvalidMessage",
    "ProviderError",
    "UsageError",
    # the fold pipeline
    "Decision",
    "FoldCompleted",
    "FoldEvent",
    "FoldFailedEvent",
    "FoldHistory",
    "FoldPolicy",
    "FoldProgress",
    "FoldReport",
    "FoldRequest",
    "FoldResult",
    "FoldStarted",
    "Message",
    "RulesSummarizer",
    "Snapshot",
    "Summarizer",
    "SummaryRequest",
    "ToolCall",
    "Trigger",
    "decide",
    "dump_messages",
    "fold_context",
    "parse_messages",
}


def test_public_api_is_pinned():
    assert set(engine.__all__) == EXPECTED
    assert all(hasattr(engine, name) for name in engine.__all__)


def engine_imports(path: Path) -> list[str]:
    """Every module name a file imports from the engine, as written (`foldchat.engine.x`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from foldchat import engine` and `from foldchat.engine import store` name modules too
            parents = {"foldchat": lambda a: True, "foldchat.engine": lambda a: a in SUBMODULES}
            wanted = parents.get(node.module, lambda a: False)
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names if wanted(a.name)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found += [n for n in names if n.startswith("foldchat.engine")]
    return found


def test_the_faces_import_only_the_public_engine_api():
    offenders = {
        f"{path.relative_to(ROOT)}: {name}"
        for face in FACES
        for path in face.rglob("*.py")
        for name in engine_imports(path)
        if name != "foldchat.engine"
    }
    assert not offenders, "import these from foldchat.engine (add them to __all__ if needed):\n" + "\n".join(
        sorted(offenders)
    )
    assert sum(len(engine_imports(p)) for face in FACES for p in face.rglob("*.py")) > 10  # the walk found them


def test_the_import_check_catches_a_submodule_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from foldchat.engine import Session\nfrom foldchat.engine.store import Store\n"
        "import foldchat.engine.fold.pipeline\nfrom foldchat import engine\nfrom foldchat.engine import replies\n"
        "def f():\n    from foldchat.engine.replies import X\n"
    )
    assert engine_imports(sample) == [
        "foldchat.engine",
        "foldchat.engine.store",
        "foldchat.engine.fold.pipeline",
        "foldchat.engine",
        "foldchat.engine",
        "foldchat.engine.replies",
        "foldchat.engine.replies",
    ]


def loaded_after(code: str, watched: tuple[str, ...] = ("textual", "rich", "litellm")) -> list[str]:
    probe = f"{code}; import sys; print(sorted(m for m in {watched!r} if m in sys.modules))"
    return eval(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout)


def test_engine_never_imports_a_ui_toolkit_and_litellm_only_lazily():
    assert loaded_after("import foldchat.engine, foldchat.engine.fold.pipeline, foldchat.engine.tokens") == []


def test_the_application_api_loads_without_litellm_or_a_ui_toolkit():
    assert loaded_after("from foldchat.engine import Session, Workspace, OpenOptions, compress_messages") == []


def test_cli_start_up_parses_arguments_without_litellm_or_textual():
    code = (
        "from foldchat.cli.main import build_parser; p = build_parser(); "
        "p.parse_args(['ask', 'hi']); p.parse_args(['compress', 'x.json', '--model', 'gpt-4o']); p.parse_args([])"
    )
    assert loaded_after(code) == []


def test_the_first_screen_imports_neither_litellm_nor_pydantic():
    # pydantic, pydantic-settings and the store load in the worker that opens the session (~250 ms)
    assert loaded_after("import foldchat.tui.app", ("litellm", "pydantic", "sqlite3")) == []
