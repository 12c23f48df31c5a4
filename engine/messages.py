"""Chat messages as immutable values, in OpenAI's chat-completions format.

`Message.from_dict` validates one message and freezes it; `Message.to_dict` gives back a plain dict
equal to what came in. Keys the engine does not interpret (`reasoning_content`, `thinking_blocks`,
`provider_specific_fields`, ...) ride along in `extras` untouched, so a transcript round-trips exactly
when the provider does not change.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from .errors import InvalidMessage

Role = Literal["system", "user", "assistant", "tool"]
ROLES: frozenset[str] = frozenset({"system", "user", "assistant", "tool"})
_KNOWN_KEYS = frozenset({"role", "content", "tool_calls", "tool_call_id", "name"})


class FrozenDict(Mapping[str, Any]):
    """A hashable, read-only dict used for frozen JSON objects."""

    __slots__ = ("_data", "_hash")

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = dict(data)
        self._hash: int | None = None

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(tuple(self._data.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenDict):
            return self._data == other._data
        return isinstance(other, Mapping) and self._data == dict(other)

    def __repr__(self) -> str:
        return f"FrozenDict({self._data!r})"


def freeze(value: Any) -> Any:
    """Turn parsed JSON into hashable values (dict -> FrozenDict, list -> tuple)."""
    if isinstance(value, Mapping):
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """The inverse of `freeze`: plain dicts and lists, ready for JSON or litellm."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One function call requested by an assistant message."""

    id: str
    name: str
    arguments: str
    extras: FrozenDict = field(default_factory=lambda: FrozenDict({}))

    @classmethod
    def from_dict(cls, raw: Any, where: str) -> ToolCall:
        if not isinstance(raw, Mapping):
            raise InvalidMessage(f"{where}: each tool call must be an object")
        call_id = raw.get("id")
        function = raw.get("function")
        if not isinstance(call_id, str) or not call_id:
            raise InvalidMessage(f"{where}: tool call without a string 'id'")
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise InvalidMessage(f"{where}: tool call {call_id!r} needs a 'function' object with a 'name'")
        arguments = function.get("arguments", "")
        if not isinstance(arguments, str):
            # Some providers hand back parsed arguments; OpenAI's format is a JSON string.
            arguments = json.dumps(arguments)
        extras = {k: v for k, v in raw.items() if k not in ("id", "function")}
        fn_extras = {k: v for k, v in function.items() if k not in ("name", "arguments")}
        if fn_extras:
            extras["_function_extras"] = fn_extras
        return cls(call_id, function["name"], arguments, freeze(extras))

    def to_dict(self) -> dict[str, Any]:
        extras = thaw(self.extras)
        fn_extras = extras.pop("_function_extras", {})
        out: dict[str, Any] = {"id": self.id}
        out.update(extras)
        out["function"] = {"name": self.name, "arguments": self.arguments, **fn_extras}
        out.setdefault("type", "function")
        return out


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message. Immutable: transformations build new messages with `evolve`."""

    role: Role
    content: Any = None  # str | None | tuple[FrozenDict, ...] (content parts)
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    extras: FrozenDict = field(default_factory=lambda: FrozenDict({}))
    has_content_key: bool = True  # OpenAI lets assistant tool-call messages omit `content`
    key: int | None = field(default=None, compare=False, hash=False)
    """Where the message comes from (transcript id, or input index); not part of its value."""
    is_snapshot: bool = field(default=False, compare=False, hash=False)
    """Foldchat made this message from a fold record (docs/design.md §3.6); never inferred from its text."""

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, raw: Any, index: int | None = None, key: int | None = None) -> Message:
        where = f"message {index}" if index is not None else "message"
        if not isinstance(raw, Mapping):
            raise InvalidMessage(f"{where}: expected an object, got {type(raw).__name__}")
        role = raw.get("role")
        if role not in ROLES:
            raise InvalidMessage(f"{where}: unknown role {role!r} (expected system, user, assistant or tool)")
        raw_calls = raw.get("tool_calls")
        calls: tuple[ToolCall, ...] = ()
        if raw_calls is not None:
            if role != "assistant":
                raise InvalidMessage(f"{where}: only assistant messages may carry tool_calls")
            if not isinstance(raw_calls, list):
                raise InvalidMessage(f"{where}: tool_calls must be a list")
            calls = tuple(ToolCall.from_dict(c, where) for c in raw_calls)
            if len({c.id for c in calls}) != len(calls):
                raise InvalidMessage(f"{where}: two tool calls share one id")
        has_content_key = "content" in raw
        content = raw.get("content")
        if not has_content_key and not (role == "assistant" and calls):
            raise InvalidMessage(f"{where}: missing 'content'")
        if content is None and role in ("system", "user", "tool"):
            raise InvalidMessage(f"{where}: {role} message with null content")
        if content is not None and not isinstance(content, str | list):
            raise InvalidMessage(f"{where}: content must be a string, null or a list of parts")
        if isinstance(content, list):
            for part in content:
                if not isinstance(part, Mapping) or not isinstance(part.get("type"), str):
                    raise InvalidMessage(f"{where}: each content part needs a 'type'")
        tool_call_id = raw.get("tool_call_id")
        if role == "tool" and tool_call_id is not None and not isinstance(tool_call_id, str):
            raise InvalidMessage(f"{where}: a tool message's 'tool_call_id' must be a string")
        # Exports converted from ChatGPT carry tool results with no call id at all: accepted here,
        # `repair` turns such an orphan into visible text instead of losing it.
        name = raw.get("name")
        if name is not None and not isinstance(name, str):
            raise InvalidMessage(f"{where}: 'name' must be a string")
        extras = {k: v for k, v in raw.items() if k not in _KNOWN_KEYS}
        return cls(
            role=role,
            content=freeze(content),
            tool_calls=calls,
            tool_call_id=tool_call_id if role == "tool" else None,
            name=name,
            extras=freeze(extras),
            has_content_key=has_content_key,
            key=key,
        )

    @classmethod
    def user(cls, text: str) -> Message:
        return cls(role="user", content=text)

    @classmethod
    def assistant(cls, text: str) -> Message:
        return cls(role="assistant", content=text)

    @classmethod
    def system(cls, text: str) -> Message:
        return cls(role="system", content=text)

    @classmethod
    def tool(cls, call_id: str, text: str, name: str | None = None) -> Message:
        return cls(role="tool", content=text, tool_call_id=call_id, name=name)

    def evolve(self, **changes: Any) -> Message:
        return replace(self, **changes)

    # -- output -------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": self.role}
        if self.has_content_key:
            out["content"] = thaw(self.content)
        if self.name is not None:
            out["name"] = self.name
        if self.tool_calls:
            out["tool_calls"] = [c.to_dict() for c in self.tool_calls]
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        out.update(thaw(self.extras))
        return out

    # -- reading ------------------------------------------------------------------------------
    @property
    def text(self) -> str:
        """The message's text: the string content, or the text parts joined; images become a label."""
        if self.content is None:
            return ""
        if isinstance(self.content, str):
            return self.content
        pieces: list[str] = []
        for part in self.content:
            kind = part.get("type")
            if kind == "text":
                pieces.append(str(part.get("text", "")))
            elif kind == "image_url":
                attached = part.get("foldchat_attachment")  # an attached image says its name (attachments.py)
                name = attached.get("name") if isinstance(attached, Mapping) else None
                pieces.append(f"[attached {name} (image)]" if isinstance(name, str) else "[image]")
            else:
                pieces.append(f"[{kind}]")
        return "\n".join(pieces)

    @property
    def call_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.tool_calls)


def parse_messages(raw: Any) -> list[Message]:
    """Validate a JSON array of chat messages; raises `InvalidMessage` with the first problem."""
    if not isinstance(raw, list):
        raise InvalidMessage(f"expected a JSON array of messages, got {type(raw).__name__}")
    return [Message.from_dict(item, index, key=index) for index, item in enumerate(raw)]


def dump_messages(messages: Iterable[Message]) -> list[dict[str, Any]]:
    return [m.to_dict() for m in messages]


def merge_content(first: Any, second: Any) -> Any:
    """Content of two same-role messages merged into one (strings joined, part lists concatenated)."""
    if first is None or first == "":
        return second
    if second is None or second == "":
        return first
    if isinstance(first, str) and isinstance(second, str):
        return f"{first}\n\n{second}"
    as_parts = [p if isinstance(p, tuple) else (FrozenDict({"type": "text", "text": p}),) for p in (first, second)]
    return as_parts[0] + as_parts[1]
