"""Chat messages as immutable values, in OpenAI's chat-completions format.

`Message.from_dict` validates one message and freezes it; `Message.to_dict` gives back a plain dict
equal to what came in. Keys the engine does not interpret (`reasoning_content`, `thinking_blocks`,
`provider_specific_fields`, ...) ride along in `extras` untouched, so a transcript round-trips exactly
when the provider does not change.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from operator import attrgetter
from typing import Any, ClassVar, Literal

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


_NO_EXTRAS = FrozenDict({})
_set = object.__setattr__  # how a value's own __init__ fills its slots: its __setattr__ refuses


class FrozenValueError(AttributeError):
    """An attempt to change a message or tool call in place: build a new one with `evolve`."""


class _Value:
    """Immutable, slotted, equal by `_compared` (hashed alike), rebuilt by `evolve`.

    Written out rather than a frozen dataclass: `foldchat show` builds messages on every start, and
    `dataclasses` costs ~10 ms to import here (inspect, ast, dis, tokenize) and ~1.5 ms per class it defines."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()  # every field, in the order __init__ takes them
    _compared: ClassVar[tuple[str, ...]] = ()  # the fields that make the value; the others only say where it is from
    # operator.attrgetter objects, not methods: called with the value, read in C. Typed Any: `attrgetter[...]`
    # is not subscriptable at run time, and typing.get_type_hints(Message) evaluates these annotations
    _value_of: ClassVar[Any]
    _fields_of: ClassVar[Any]

    def __init_subclass__(cls) -> None:
        cls._value_of = attrgetter(*cls._compared)
        cls._fields_of = attrgetter(*cls._fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(self._value_of(self) == self._value_of(other))

    def __hash__(self) -> int:
        return hash(self._value_of(self))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{self.__class__.__name__}({shown})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenValueError(f"cannot assign to field {name!r}: {self.__class__.__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise FrozenValueError(f"cannot delete field {name!r}: {self.__class__.__name__} is immutable")

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # copy, deepcopy and pickle rebuild through __init__, since the slots cannot be set from outside
        return self.__class__, self._fields_of(self)

    def evolve(self, **changes: Any) -> Any:
        """A copy with `changes` applied (an unknown field is a TypeError, as for the constructor)."""
        return self.__class__(**{**dict(zip(self._fields, self._fields_of(self), strict=True)), **changes})


class ToolCall(_Value):
    """One function call requested by an assistant message."""

    __slots__ = ("arguments", "extras", "id", "name")
    _fields = _compared = ("id", "name", "arguments", "extras")
    __match_args__ = ("id", "name", "arguments", "extras")

    id: str
    name: str
    arguments: str
    extras: FrozenDict

    def __init__(self, id: str, name: str, arguments: str, extras: FrozenDict = _NO_EXTRAS) -> None:
        _set(self, "id", id)
        _set(self, "name", name)
        _set(self, "arguments", arguments)
        _set(self, "extras", extras)

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


class Message(_Value):
    """One chat message. Immutable: transformations build new messages with `evolve`."""

    _compared = ("role", "content", "tool_calls", "tool_call_id", "name", "extras", "has_content_key")
    _fields = (*_compared, "key", "is_snapshot")
    __slots__ = _fields
    __match_args__ = (
        "role", "content", "tool_calls", "tool_call_id", "name", "extras", "has_content_key", "key", "is_snapshot"
    )

    role: Role
    content: Any  # str | None | tuple[FrozenDict, ...] (content parts)
    tool_calls: tuple[ToolCall, ...]
    tool_call_id: str | None
    name: str | None
    extras: FrozenDict
    has_content_key: bool  # OpenAI lets assistant tool-call messages omit `content`
    key: int | None
    """Where the message comes from (transcript id, or input index); not part of its value."""
    is_snapshot: bool
    """Foldchat made this message from a fold record (docs/design.md §3.6); never inferred from its text."""

    def __init__(
        self,
        role: Role,
        content: Any = None,
        tool_calls: tuple[ToolCall, ...] = (),
        tool_call_id: str | None = None,
        name: str | None = None,
        extras: FrozenDict = _NO_EXTRAS,
        has_content_key: bool = True,
        key: int | None = None,
        is_snapshot: bool = False,
    ) -> None:
        _set(self, "role", role)
        _set(self, "content", content)
        _set(self, "tool_calls", tool_calls)
        _set(self, "tool_call_id", tool_call_id)
        _set(self, "name", name)
        _set(self, "extras", extras)
        _set(self, "has_content_key", has_content_key)
        _set(self, "key", key)
        _set(self, "is_snapshot", is_snapshot)

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
        return super().evolve(**changes)  # type: ignore[no-any-return]

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
