"""Recent turns keep their room (docs/design.md §6, §14): the verbatim tail takes its `keep_ratio` budget
first and the snapshot what it leaves (within its own floor), not the other way round. In a 32k window a
fold of long messages had kept one exchange beside a 9.4k-token snapshot, and the prompt before the newest
exchange was gone."""

from __future__ import annotations

from foldchat.engine.fold.pipeline import FoldRequest, fold_context
from foldchat.engine.messages import Message
from foldchat.engine.policy import FoldPolicy
from foldchat.engine.summarizers import RulesSummarizer
from foldchat.engine.tokens import counter_for

WORDS = ["Lisboa", "Porto", "Sevilla", "Granada", "València", "Bilbao", "Girona", "Córdoba", "Málaga", "Cádiz", "Toledo", "Segovia"]


def long_message(n: int, role: str) -> Message:
    """About 1,900 tokens of everyday multilingual text with facts in it."""
    lines = [
        f"Día {n}, línea {k}: en {WORDS[(n + k) % len(WORDS)]} reservamos la mesa {n * 40 + k} a las "
        f"{(k % 12) + 8}:30, y el código de la reserva es R{n:02d}{k:03d}; dann fahren wir weiter."
        for k in range(48)
    ]
    return Message.user("\n".join(lines)) if role == "user" else Message.assistant("\n".join(lines))


def test_a_fold_of_long_messages_keeps_the_prompt_before_the_newest_exchange():
    counter = counter_for("gpt-4o")
    messages: list[Message] = []
    for n in range(40):
        messages += [long_message(n, "user"), long_message(n, "assistant")]
    messages.append(Message.user("¿y mañana qué hacemos?"))
    assert counter.count_message(messages[0]) > 1_500
    request = FoldRequest(counter=counter, window=32_768, summarizer=RulesSummarizer(), policy=FoldPolicy(),
                          reserved_output=1_024, force=True)  # fmt: skip
    result = fold_context(messages, request)
    assert result.report.compressed
    kept_prompts = [m for m in result.messages if m.role == "user" and not m.is_snapshot]
    # the newest prompt, the exchange before it whole, and the prompt of the exchange before that
    assert len(kept_prompts) >= 3, [m.text[:30] for m in kept_prompts]
    snapshot = next(m for m in result.messages if m.is_snapshot)
    tail = sum(counter.count_message(m) for m in result.messages if not m.is_snapshot and m.role != "system")
    assert tail > counter.count_message(snapshot)  # the tail first, the snapshot what it leaves
    assert result.report.tokens_after + 1_024 <= FoldPolicy().target_at(32_768)
