"""Resolving model names: config aliases, any litellm model string, and the embedded `local` model.

`ModelRegistry` owns the local server (started only when a local model is first used) and hands out
one cached token counter per model, so counts are shared by the gauge, the policy and folds.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import replace

from ..config import Settings
from ..errors import LocalModelError, UsageError
from ..local import LOCAL_ALIAS
from ..local.gguf import Progress, gguf_ready
from ..local.model import SERVED_NAME, LocalModelServer, request_extras
from ..tokens import TextCounter, TokenCounter, counter_for, model_info
from .backend import EMBEDDED
from .target import ModelTarget

# A model each provider key unlocks, in order, when no default_model is configured.
KEYED_DEFAULTS = (
    ("OPENAI_API_KEY", "gpt-4o-mini"),
    ("ANTHROPIC_API_KEY", "anthropic/claude-3-5-haiku-latest"),
    ("GEMINI_API_KEY", "gemini/gemini-2.0-flash"),
    ("MISTRAL_API_KEY", "mistral/mistral-small-latest"),
)

# One model per provider that the model picker offers when litellm finds that provider's key set.
OFFERED_MODELS = (
    "openai/gpt-4o-mini",
    "anthropic/claude-3-5-haiku-latest",
    "gemini/gemini-2.0-flash",
    "mistral/mistral-small-latest",
    "groq/llama-3.1-8b-instant",
    "deepseek/deepseek-chat",
    "xai/grok-2-latest",
    "openrouter/openai/gpt-4o-mini",
)


def keyed_models() -> list[str]:
    """The `OFFERED_MODELS` whose provider key is set; litellm knows each provider's variable."""
    from ..lazy import load_litellm

    litellm = load_litellm()
    found = []
    for model in OFFERED_MODELS:
        try:
            if litellm.validate_environment(model).get("keys_in_environment"):
                found.append(model)
        except Exception:  # a provider this litellm version does not know: not offered
            continue
    return found


class ModelRegistry:
    def __init__(self, settings: Settings, local_server: LocalModelServer | None = None) -> None:
        self.settings = settings
        self.local = local_server or LocalModelServer(settings.local)
        self._counters: dict[str, TokenCounter] = {}

    def default_name(self) -> str:
        if self.settings.default_model:
            return self.settings.default_model
        for env, model in KEYED_DEFAULTS:
            if os.environ.get(env):
                return model
        return LOCAL_ALIAS

    def names(self) -> list[str]:
        return [LOCAL_ALIAS, *self.settings.models]

    def resolve(self, name: str | None = None, window: int | None = None) -> ModelTarget:
        """The target for `name` (alias, litellm string or 'local'); does not start anything. `window`
        overrides the model's own (`foldchat compress --context-window`): a model litellm does not know needs one."""
        name = name or self.default_name()
        if name == LOCAL_ALIAS:
            local = self.settings.local
            running = self.local.listening
            base = self.local.base_url if running else None
            return ModelTarget(
                name=LOCAL_ALIAS,
                litellm_model=f"openai/{SERVED_NAME}",
                window=window or local.context_size,
                api_base=base,
                max_output_tokens=local.max_reply_tokens,
                backend=EMBEDDED,
                temperature=local.temperature,
                extra_body=request_extras(local),
                api_key=self.local.api_key if running else None,
            )
        alias = self.settings.models.get(name)
        litellm_model = alias.model if alias else name
        info = model_info(litellm_model, window or (alias.context_window if alias else None))
        max_output = (alias.max_output_tokens if alias else None) or info.max_output_tokens
        return ModelTarget(
            name=name,
            litellm_model=litellm_model,
            window=info.window,
            api_base=alias.api_base if alias else None,
            api_key_env=alias.api_key_env if alias else None,
            max_output_tokens=max_output,
            input_cost_per_token=info.input_cost_per_token,
            output_cost_per_token=info.output_cost_per_token,
        )

    def prepare(self, target: ModelTarget, progress: Progress | None = None) -> ModelTarget:
        """A target ready to call: for the local model, the server is started (or reused)."""
        if not target.backend.on_this_machine:
            return target
        base = self.local.start(progress or (lambda *_: None))
        return replace(target, api_base=base, api_key=self.local.api_key)

    def launch_early(self, name: str | None) -> None:
        """Start the local server's process now if `name` is the local model, without waiting for it.

        Called before litellm is imported, so the model loads meanwhile and a cold `ask` to the local
        model waits less. Errors are left for `prepare` to raise at the usual point; a model that still
        needs assembling waits for `prepare`, which shows that progress.
        """
        if (name or self.default_name()) != LOCAL_ALIAS or not gguf_ready(self.settings.local):
            return
        with contextlib.suppress(LocalModelError):
            self.local.launch()

    def counter(self, target: ModelTarget) -> TokenCounter:
        key = target.litellm_model
        counter = self._counters.get(key)
        if counter is None:
            if target.backend.counts_itself:
                counter = TextCounter(f"gguf:{SERVED_NAME}", self.local.count_text)
            else:
                counter = counter_for(target.litellm_model)
            self._counters[key] = counter
        return counter

    def reserved_output(self, target: ModelTarget) -> int:
        return self.settings.fold.reply_reserve(target.window, target.max_output_tokens)

    def close(self) -> None:
        self.local.close()


def check_model_name(name: str, registry: ModelRegistry, window: int | None = None) -> ModelTarget:
    try:
        return registry.resolve(name, window)
    except UsageError:
        raise
    except Exception as error:  # litellm raising on an odd string
        raise UsageError(f"unknown model {name!r}: {error}") from None
