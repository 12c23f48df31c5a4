"""How a model is reached, chosen once when the model is picked (docs/design.md §8, §10).

Everything that differs between the embedded local model and a provider reached through litellm is a
field here, read where it matters (`target.backend.reads_ahead`), instead of an "is it the local model?"
question asked in a dozen files: a second backend of the local kind (a llama.cpp or Ollama server the
user already runs) is one more `Backend`, not an edit of every place that asks.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Backend:
    name: str
    on_this_machine: bool
    """Foldchat starts it (`ModelRegistry.prepare`) and it costs nothing: no key, no price, no cache marks."""
    streams_directly: bool
    """Its stream is read by the standard library's client (local/stream.py), never through litellm."""
    counts_itself: bool
    """Tokens are counted by the server's own vocabulary, not litellm's tokenizer for the model name."""
    reads_ahead: bool
    """A context whose start changed is read ahead while the user types (local/prefix_warm.py)."""
    one_at_a_time: bool
    """One completion at a time across processes (local/turns.py): a second one would cut the first."""
    schema_as_grammar: bool
    """A summarizer's JSON schema is sent whole: the server turns it into a grammar a tiny model keeps to."""
    may_call_tools: bool
    """Whether it may be offered tools at all (litellm then says which models call them)."""
    reads_images: bool | None
    """False: text only, whatever litellm's map says; None: litellm says."""
    small_recall_budget: bool
    """Recalled passages get `[fold] local_recall_budget` of its small window instead of `recall_budget`."""
    own_system_prompt: bool
    """Foldchat's short system prompt goes first in every request (local/system_prompt.py): a tiny model left
    alone drifts out of the user's language and makes up what it cannot know."""


EMBEDDED = Backend(
    "embedded", on_this_machine=True, streams_directly=True, counts_itself=True, reads_ahead=True,
    one_at_a_time=True, schema_as_grammar=True, may_call_tools=False, reads_images=False,
    small_recall_budget=True, own_system_prompt=True,
)  # fmt: skip
"""The local model Foldchat serves itself (llama.cpp's server on 127.0.0.1)."""

PROVIDER = Backend(
    "provider", on_this_machine=False, streams_directly=False, counts_itself=False, reads_ahead=False,
    one_at_a_time=False, schema_as_grammar=False, may_call_tools=True, reads_images=None,
    small_recall_budget=False, own_system_prompt=False,
)  # fmt: skip
"""Any model litellm reaches: a hosted provider, a proxy, a self-hosted endpoint."""
