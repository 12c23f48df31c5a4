"""The LLM summarizer against the real local model: the fold always lands, user facts always survive."""

from __future__ import annotations

import pytest
from foldchat.engine import snapshot as snap
from foldchat.engine.config import Settings
from foldchat.engine.fold.pipeline import FoldRequest, fold_context
from foldchat.engine.messages import parse_messages
from foldchat.engine.providers.registry import ModelRegistry
from foldchat.engine.summarizers.llm import LLMSummarizer, WithFallback
from foldchat.engine.tokens import LiteLLMCounter

from synth import coding_conversation

pytestmark = pytest.mark.slow  # minutes on the real local model: started first (tests/conftest.py)


def test_a_fold_written_by_the_local_model_or_visibly_by_the_fallback():
    registry = ModelRegistry(Settings())
    try:
        target = registry.prepare(registry.resolve("local"))
        raw, facts = coding_conversation(4_000, seed=5)
        messages = parse_messages(raw)
        llm = LLMSummarizer(target, timeout=120)
        result = fold_context(
            messages,
            FoldRequest(counter=LiteLLMCounter("gpt-4o"), window=6_000, summarizer=WithFallback(llm), force=True),
        )
        report = result.report
        assert report.compressed and llm.calls >= 1
        assert report.summarizer == "llm:local" or report.summarizer.startswith("rules (llm:local failed: ")
        rendered = snap.render(snap.parse(result.messages[1].text))
        folded_user_text = " ".join(m.text for m in result.folded if m.role == "user")
        kept = [f for f in facts if f in folded_user_text]
        assert kept and all(f in rendered for f in kept)
    finally:
        registry.close()
