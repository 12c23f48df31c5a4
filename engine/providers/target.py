"""`ModelTarget`: a model resolved from a name or alias, with how to call it and what it costs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .backend import PROVIDER, Backend


@dataclass(frozen=True)
class ModelTarget:
    """A model resolved from a name or alias: how to call it and what it costs."""

    name: str
    litellm_model: str
    window: int
    api_base: str | None = None
    api_key_env: str | None = None
    max_output_tokens: int | None = None
    input_cost_per_token: float = 0.0
    output_cost_per_token: float = 0.0
    backend: Backend = PROVIDER
    """How it is reached, and what that changes (backend.py): chosen once, where the model is picked."""
    temperature: float | None = None
    extra_body: dict[str, Any] = field(default_factory=dict)
    api_key: str | None = field(default=None, repr=False)  # a session key (the local server), never stored

    @property
    def is_local(self) -> bool:
        """The embedded local model (or another backend on this machine): for faces that only say so."""
        return self.backend.on_this_machine

    @property
    def provider(self) -> str:
        return self.litellm_model.split("/", 1)[0] if "/" in self.litellm_model else "openai"

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        if self.backend.on_this_machine:
            return 0.0
        return prompt_tokens * self.input_cost_per_token + completion_tokens * self.output_cost_per_token
