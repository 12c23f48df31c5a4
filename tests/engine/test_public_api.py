import subprocess
import sys

import foldchat.engine as engine

EXPECTED = {
    "CurrentTurnTooLarge",
    "Decision",
    "FoldCompleted",
    "FoldEvent",
    "FoldFailed",
    "FoldFailedEvent",
    "FoldHistory",
    "FoldPolicy",
    "FoldProgress",
    "FoldReport",
    "FoldRequest",
    "FoldResult",
    "FoldStarted",
    "FoldchatError",
    "InvalidMessage",
    "Message",
    "RulesSummarizer",
    "Snapshot",
    "Summarizer",
    "SummaryRequest",
    "ToolCall",
    "Trigger",
    "UsageError",
    "decide",
    "dump_messages",
    "fold_context",
    "parse_messages",
}


def test_public_api_is_pinned():
    assert set(engine.__all__) == EXPECTED
    assert all(hasattr(engine, name) for name in engine.__all__)


def test_engine_never_imports_a_ui_toolkit_and_litellm_only_lazily():
    code = (
        "import sys, foldchat.engine, foldchat.engine.fold, foldchat.engine.tokens;"
        "print(sorted(m for m in ('textual', 'rich', 'litellm') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
