"""Folding a message list that lives outside the database: what `foldchat compress` runs.

The same pipeline, policy and reply-reserve rule as a conversation in the app; only the messages come
from JSON and nothing is stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ..errors import UsageError
from ..messages import parse_messages
from ..policy import FoldPolicy
from ..snapshot import mark_named_snapshots, name_snapshots
from ..summarizers import RulesSummarizer
from ..tokens import counter_for, model_info
from .pipeline import FoldRequest, FoldResult, fold_context


@dataclass(frozen=True)
class CompressOptions:
    """How to fold: the model whose tokenizer and window count, the policy, and who summarizes."""

    model: str
    context_window: int | None = None
    """Overrides litellm's window (required for models litellm does not know)."""
    policy: FoldPolicy = field(default_factory=FoldPolicy)
    force: bool = False
    summarizer: Literal["rules", "llm"] = "rules"
    summarizer_model: str | None = None
    """For `llm`: config alias, litellm model or 'local' (default: `model`)."""
    config: str | Path | None = None
    """Config file, read only for the LLM summarizer's model aliases."""
    focus: str | None = None
    pinned: Sequence[str] = ()


def compress_messages(data: Any, options: CompressOptions) -> FoldResult:
    """Fold the OpenAI-format message list `data` if the policy (or `force`) says so.

    Plain JSON has no room for our mark, so the snapshot message we write carries
    `"name": "foldchat_snapshot"` (OpenAI-format user messages allow a `name`), and on input only a user
    message with that name is taken for an earlier snapshot: pasted text that merely contains
    `<state_snapshot>` is an ordinary message. Message numbers in the report, and the `(#12)` references
    snapshot items end with, are 1-based positions in `data`: a bare array has no other numbers, and these
    are the ones its user can look up. An earlier snapshot's items keep the numbers they were written with
    (positions in the array that fold read), so compressing an already compressed array mixes the two.
    """
    messages = mark_named_snapshots(parse_messages(data))
    info = model_info(options.model, options.context_window)
    request = FoldRequest(
        counter=counter_for(options.model),
        window=info.window,
        summarizer=RulesSummarizer(),
        policy=options.policy,
        reserved_output=options.policy.reply_reserve(info.window, info.max_output_tokens),
        force=options.force,
        pinned=tuple(options.pinned),
        focus=options.focus,
    )
    if options.summarizer == "rules":
        return _named(fold_context(messages, request), request)
    # the settings (pydantic-settings) and the model registry are the LLM summarizer's, not the rules'
    from ..config import load_settings
    from ..providers.registry import ModelRegistry, check_model_name
    from ..providers.stream import missing_key
    from ..summarizers.llm import llm_with_fallback

    settings = load_settings(options.config)
    registry = ModelRegistry(settings)
    try:  # the local model's server, if the summarizer is local, stops with the command
        name = options.summarizer_model or options.model
        summarizer_target = check_model_name(name, registry)
        key = missing_key(summarizer_target)
        if key is not None:  # falling back to rules in silence would hide why the snapshot is not an LLM's
            raise UsageError(f"--summarizer llm with {name!r} needs {key} set (or use --summarizer rules)")
        target = registry.prepare(summarizer_target)
        summarizer = llm_with_fallback(target, settings.request_timeout)
        return _named(fold_context(messages, replace(request, summarizer=summarizer)), request)
    finally:
        registry.close()


def _named(result: FoldResult, request: FoldRequest) -> FoldResult:
    """The output JSON names its snapshot message; the counts are of exactly what is written."""
    if not result.report.compressed:
        return result
    messages = name_snapshots(result.messages)
    report = replace(result.report, tokens_after=request.counter.count(messages))
    return replace(result, messages=messages, report=report)
