"""Adapting a context to the model it is sent to (docs/design.md §8). A pure function of its inputs.

The transcript is stored once, as it came. Before each call, `adapt` rewrites a copy for the target:
- tool-call ids the target rejects are mapped to ids it accepts; the call and its result get the same
  new id; the mapping is a deterministic function of the original id (so it is stable across sends
  without storage) and `IdMap.original` reverses it for display;
- Gemini thought signatures embedded in ids (`…__thought__…`) are kept for Gemini, stripped for others;
- reasoning (`reasoning_content`, `thinking_blocks` and their signatures) goes back only to the provider
  that produced it;
- images reach only models that take them; others get a text placeholder naming the image; a provider
  that takes only inline (`data:`) images gets a placeholder for an image given as a web address
  (Anthropic rejects those, and Foldchat fetches nothing on its own);
- tool-call arguments that are not a JSON object (ChatGPT's python tool sends raw code) are wrapped
  as `{"input": "<the original text>"}`: providers that parse arguments would reject them; an object
  that holds what a reader chokes on (a 5,000-digit integer) is written again, bounded (untrusted_json);
- roles: the context has already been repaired (alternation, results after calls, systems first);
- the embedded model gets Foldchat's short system prompt before the conversation's, in the language of the
  user's messages (local/system_prompt.py).
"""

from __future__ import annotations

import hashlib
import json
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .. import untrusted_json
from ..attachments import without_marks
from ..local.system_prompt import local_system_prompt, with_system_prompt
from ..messages import FrozenDict, Message

if TYPE_CHECKING:
    from .target import ModelTarget

THOUGHT_MARK = "__thought__"
REASONING_KEYS = ("reasoning_content", "thinking_blocks", "reasoning", "provider_specific_fields")
_ANTHROPIC_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_ALPHANUMERIC = string.ascii_letters + string.digits


def json_object_arguments(arguments: str) -> str:
    """`arguments` if it is a JSON object any reader takes (else the object written so that one does:
    `untrusted_json.object_text`); otherwise the same text wrapped into one."""
    if not arguments.strip():
        return "{}"
    readable = untrusted_json.object_text(arguments)
    if readable is not None:
        return readable
    return json.dumps({"input": untrusted_json.well_formed(arguments)}, ensure_ascii=False)


@dataclass(frozen=True)
class TargetRules:
    """What a provider accepts, as far as adaptation is concerned."""

    provider: str
    vision: bool = True
    plain_text: bool = False
    """The embedded model reads its context through a text template (SmolLM2's ChatML): tool calls become
    text in the assistant's message and no content is null (the template would fail on it)."""
    own_prompt: bool = False
    """Foldchat's own system prompt goes before the conversation's (the embedded model's, in the language of
    the user's messages: local/system_prompt.py)."""

    def accepts_id(self, call_id: str) -> bool:
        if self.provider == "anthropic":
            return bool(_ANTHROPIC_ID.match(call_id))
        if self.provider == "mistral":
            return len(call_id) == 9 and call_id.isalnum()
        if self.provider in ("openai", "azure", "text-completion-openai"):
            return len(call_id) <= 40
        return bool(call_id)


@dataclass
class IdMap:
    """New id → original id, for showing the transcript's ids again."""

    original: dict[str, str] = field(default_factory=dict)


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


def map_call_id(call_id: str, rules: TargetRules) -> str:
    """An id `rules` accepts, derived only from `call_id` (the same input always gives the same id)."""
    if rules.provider != "gemini" and THOUGHT_MARK in call_id:
        call_id = call_id.split(THOUGHT_MARK, 1)[0] or call_id
    if rules.accepts_id(call_id):
        return call_id
    digest = _digest(call_id)
    if rules.provider == "mistral":
        return "".join(_ALPHANUMERIC[b % len(_ALPHANUMERIC)] for b in digest[:9])
    return "call_" + digest.hex()[:24]


INLINE_IMAGES_ONLY = frozenset({"anthropic"})
IMAGE_LEFT_OUT = "[image left out: "
IMAGE_NOT_SHOWN = "[image not shown to this model: "


def _without_linked_images(content: object, provider: str) -> object:
    """`content` with every image given by URL (not `data:`) replaced by a note saying why."""
    if not isinstance(content, tuple):
        return content
    parts = []
    for part in content:
        image = part.get("image_url") if part.get("type") == "image_url" else None
        url = image.get("url", "") if isinstance(image, FrozenDict) else str(image or "")
        if image is not None and not url.startswith("data:"):
            note = (
                f"{IMAGE_LEFT_OUT}{url[:200]} ({provider} takes only images sent inline; Foldchat does not fetch URLs)]"
            )
            parts.append(FrozenDict({"type": "text", "text": note}))
        else:
            parts.append(part)
    return tuple(parts)


def images_left_out(messages: Sequence[Message]) -> tuple[int, int]:
    """How many images `adapt` replaced with a note in `messages`: (given by URL to a provider that takes
    only inline ones, sent to a model that takes no images)."""
    notes = [
        str(part.get("text", ""))
        for m in messages
        if isinstance(m.content, tuple)
        for part in m.content
        if part.get("type") == "text"
    ]
    return sum(n.startswith(IMAGE_LEFT_OUT) for n in notes), sum(n.startswith(IMAGE_NOT_SHOWN) for n in notes)


def _strip_images(content: object) -> object:
    if not isinstance(content, tuple):
        return content
    parts = []
    for part in content:
        if part.get("type") == "image_url":
            image = part.get("image_url")
            url = image.get("url", "") if isinstance(image, FrozenDict) else str(image or "")
            name = "an inline image" if url.startswith("data:") else url
            parts.append(FrozenDict({"type": "text", "text": f"{IMAGE_NOT_SHOWN}{name}]"}))
        else:
            parts.append(part)
    return tuple(parts)


def adapt(
    messages: Sequence[Message],
    rules: TargetRules,
    origins: Sequence[str | None] | None = None,
) -> tuple[list[Message], IdMap]:
    """`messages` ready for a model under `rules`; `origins[i]` is the provider that wrote message i."""
    ids = IdMap()
    owner: dict[str, str] = {}  # new id -> the original it stands for, to catch two ids mapped alike

    def new_id_for(call_id: str) -> str:
        new_id = map_call_id(call_id, rules)
        if owner.setdefault(new_id, call_id) != call_id:
            new_id = map_call_id("collision:" + call_id, TargetRules(rules.provider, rules.vision))
            new_id = new_id if rules.accepts_id(new_id) else "call_" + _digest(call_id).hex()[:24]
            owner[new_id] = call_id
        if new_id != call_id:
            ids.original[new_id] = call_id
        return new_id

    out: list[Message] = []
    for index, message in enumerate(messages):
        origin = origins[index] if origins is not None else None
        changes: dict[str, object] = {}
        if message.tool_calls:
            calls = [
                type(call)(new_id_for(call.id), call.name, json_object_arguments(call.arguments), call.extras)
                for call in message.tool_calls
            ]
            if calls != list(message.tool_calls):
                changes["tool_calls"] = tuple(calls)
        if message.tool_call_id is not None:
            new_id = new_id_for(message.tool_call_id)
            if new_id != message.tool_call_id:
                changes["tool_call_id"] = new_id
        if origin != rules.provider and any(key in message.extras for key in REASONING_KEYS):
            changes["extras"] = FrozenDict({k: v for k, v in message.extras.items() if k not in REASONING_KEYS})
        content = without_marks(message.content)  # an attachment's mark is ours, never a provider's
        if not rules.vision and isinstance(content, tuple):
            content = _strip_images(content)
        elif rules.provider in INLINE_IMAGES_ONLY and isinstance(content, tuple):
            content = _without_linked_images(content, rules.provider)
        if content != message.content:
            changes["content"] = content
        if rules.plain_text:
            changes.update(_as_plain_text(message))
        out.append(message.evolve(**changes) if changes else message)
    return (_own_prompted(out, out) if rules.own_prompt else out), ids


def _as_plain_text(message: Message) -> dict[str, object]:
    """The changes that make `message` plain text for a template: calls said in words, content a string."""
    calls = "".join(f"\n[called {call.name}({call.arguments})]" for call in message.tool_calls)
    if not calls and isinstance(message.content, str):
        return {}
    return {"content": (message.text + calls).strip(), "tool_calls": (), "has_content_key": True}


def with_own_prompt(messages: Sequence[Message], target: ModelTarget, said: Sequence[Message] = ()) -> list[Message]:
    """`messages` with the system prompt `target`'s backend adds of its own (the embedded model's, in the
    language of `said`, else of `messages`: local/system_prompt.py), as `adapt` sends them: what the gauge
    and the window's arithmetic count. Unchanged for a backend that adds none, and with nothing said yet (no
    request, nothing counted: an empty conversation's gauge never asks the local server)."""
    if not target.backend.own_system_prompt or not (said or messages):
        return list(messages)
    return _own_prompted(messages, said or messages)


def _own_prompted(messages: Sequence[Message], said: Sequence[Message]) -> list[Message]:
    """`messages` after Foldchat's own system prompt, in the language of `said` (the one place it is added)."""
    return with_system_prompt(messages, local_system_prompt(said))


def takes_images(target: ModelTarget) -> bool:
    """Whether `target` reads image parts (litellm says; the embedded local model reads text only)."""
    return rules_for_target(target).vision


def rules_for_target(target: ModelTarget) -> TargetRules:
    """The rules of `target`'s provider; the embedded local model's are known without asking litellm:
    its server speaks OpenAI's format and its model reads text only."""
    if target.is_local:
        return TargetRules(
            provider=target.provider, vision=False, plain_text=True, own_prompt=target.backend.own_system_prompt
        )
    return rules_for(target.litellm_model)


def rules_for(litellm_model: str) -> TargetRules:
    """The rules of the provider behind a litellm model string."""
    from ..lazy import load_litellm

    litellm = load_litellm()
    try:
        provider = litellm.get_llm_provider(litellm_model)[1]
    except Exception:
        provider = litellm_model.split("/", 1)[0] if "/" in litellm_model else "openai"
    try:
        vision = bool(litellm.supports_vision(litellm_model))
    except Exception:
        vision = False
    return TargetRules(provider=provider, vision=vision)
