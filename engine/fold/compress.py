"""Folding a message list that lives outside the database: what `foldchat compress` runs.

The same pipeline, policy and reply-reserve rule as a conversation in the app; only the messages come
from JSON and nothing is stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ..config_file import SettingsNeeded, settings_free_database
from ..errors import UsageError
from ..local import LOCAL_ALIAS
from ..messages import parse_messages
from ..policy import FoldPolicy
from ..snapshot import mark_named_snapshots, name_snapshots
from ..summarizers import RulesSummarizer
from ..tokens import TokenCounter, counter_for, model_info
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
    """Config file, read for its model aliases (`model`'s and the LLM summarizer's) and the local model's settings."""
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
    if options.summarizer == "rules" and options.model != LOCAL_ALIAS and not _settings_needed(options.config):
        # a litellm name and no config that could alias it: the light path (no pydantic, no registry)
        info = model_info(options.model, options.context_window)
        request = _fold_request(counter_for(options.model), info.window, info.max_output_tokens, options)
        return _named(fold_context(messages, request), request)
    # the settings (pydantic-settings) and the model registry: a config alias, 'local', or the LLM summarizer
    from ..config import load_settings
    from ..providers.registry import ModelRegistry, check_model_name
    from ..providers.stream import missing_key
    from ..summarizers.llm import llm_with_fallback

    settings = load_settings(options.config)
    registry = ModelRegistry(settings)
    try:  # the local model's server, if it counts or summarizes, stops with the command
        # the name as the app resolves it (an alias first), the window given winning over the model's own
        target = check_model_name(options.model, registry, options.context_window)
        request = _fold_request(registry.counter(target), target.window, target.max_output_tokens, options)
        if options.summarizer == "rules":
            return _named(fold_context(messages, request), request)
        name = options.summarizer_model or options.model
        summarizer_target = check_model_name(name, registry, options.context_window if name == options.model else None)
        key = missing_key(summarizer_target)
        if key is not None:  # falling back to rules in silence would hide why the snapshot is not an LLM's
            raise UsageError(f"--summarizer llm with {name!r} needs {key} set (or use --summarizer rules)")
        summarizer = llm_with_fallback(registry.prepare(summarizer_target), settings.request_timeout)
        return _named(fold_context(messages, replace(request, summarizer=summarizer)), request)
    finally:
        registry.close()


def _settings_needed(config: str | Path | None) -> bool:
    """Whether the configuration sets more than the database (model aliases, say): then it is read whole."""
    try:
        settings_free_database(config)
    except SettingsNeeded:
        return True
    return False


def _fold_request(counter: TokenCounter, window: int, max_output: int | None, options: CompressOptions) -> FoldRequest:
    """The fold `options` ask for, by the rules summarizer, counted by `counter` against `window`."""
    return FoldRequest(
        counter=counter,
        window=window,
        summarizer=RulesSummarizer(),
        policy=options.policy,
        reserved_output=options.policy.reply_reserve(window, max_output),
        force=options.force,
        pinned=tuple(options.pinned),
        focus=options.focus,
    )


def _named(result: FoldResult, request: FoldRequest) -> FoldResult:
    """The output JSON names its snapshot message; the counts are of exactly what is written."""
    if not result.report.compressed:
        return result
    messages = name_snapshots(result.messages)
    report = replace(result.report, tokens_after=request.counter.count(messages))
    return replace(result, messages=messages, report=report)
