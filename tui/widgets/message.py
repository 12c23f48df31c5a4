"""One transcript message: Markdown text, tool calls and results collapsed, status and pins shown."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from foldchat.engine import visible
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message as TextualMessage
from textual.widgets import Collapsible, Markdown, Static

from ..literal import literal

if TYPE_CHECKING:
    from foldchat.engine import StoredMessage

RESULT_PREVIEW_LINES = 200
_MARKDOWN = re.compile(r"(^|\n)(#{1,6} |[-*+] |\d+\. |```|> )|\*\*|`[^`]+`|\[[^\]]+\]\(")


def looks_like_markdown(text: str) -> bool:
    return bool(_MARKDOWN.search(text))


@dataclass
class MessageData:
    """What a message view shows; built from a stored message or while a reply streams."""

    id: int | None
    role: str
    text: str
    status: str = "complete"
    model: str | None = None
    error: str | None = None
    tool_calls: tuple[tuple[str, str], ...] = ()
    tool_name: str | None = None
    reasoning: str = ""
    superseded: bool = False

    @classmethod
    def from_stored(cls, stored: StoredMessage) -> MessageData:
        message = stored.message
        return cls(
            id=stored.id,
            role=message.role,
            text=visible(message.text),
            status=stored.status,
            model=visible(stored.model) if stored.model else None,
            error=visible(stored.error) if stored.error else None,
            tool_calls=tuple((visible(c.name), visible(c.arguments)) for c in message.tool_calls),
            tool_name=visible(message.name) if message.name else None,
            reasoning=visible(str(message.extras.get("reasoning_content") or "")),
            superseded=stored.superseded_by is not None,
        )


class MessageView(Vertical, can_focus=True):
    DEFAULT_CSS = """
    MessageView { height: auto; padding: 0 1; margin: 0 0 1 0; border-top: blank; border-title-align: left;
                  border-title-color: $text-muted; border-title-style: bold; }
    MessageView:focus { background: $boost; }
    MessageView.-user { border-title-color: $primary; }
    MessageView.-assistant { border-title-color: $secondary; }
    MessageView.-folded { opacity: 60%; }
    MessageView.-superseded { opacity: 50%; }
    MessageView.-error, MessageView.-interrupted { border-title-color: $warning; }
    MessageView > .plain { height: auto; }
    MessageView Markdown { margin: 0; padding: 0; }
    MessageView Collapsible { margin: 0; padding: 0; border: none; }
    """
    BINDINGS = [
        Binding("p", "pin", "Pin"),
        Binding("c", "copy", "Copy"),
    ]

    class PinRequested(TextualMessage):
        def __init__(self, view: MessageView) -> None:
            super().__init__()
            self.view = view

    def __init__(self, data: MessageData, *, pinned: bool = False, folded: bool = False) -> None:
        super().__init__(classes=f"-{data.role} -{data.status}")
        self.data = data
        self.pinned = pinned
        self.note = ""
        """A passing state shown in the header, such as "waiting for the model… 12 s"."""
        self.set_class(folded, "-folded")
        self.set_class(data.superseded, "-superseded")

    def header_text(self) -> str:
        d = self.data
        parts = [{"user": "You", "assistant": "Assistant", "tool": "Tool", "system": "System"}[d.role]]
        if d.model and d.role == "assistant":
            parts.append(d.model)
        if d.tool_name:
            parts.append(d.tool_name)
        if d.status != "complete":
            parts.append(f"[{d.status}{': ' + d.error if d.error else ''}]")
        if self.note:
            parts.append(self.note)
        if d.superseded:
            parts.append("(replaced by a newer reply)")
        if self.pinned:
            parts.append("📌 pinned")
        return " · ".join(parts)

    def compose(self) -> ComposeResult:
        d = self.data
        self.border_title = literal(self.header_text())  # a title, not a child widget: one widget less per message
        if d.reasoning:
            with Collapsible(title="thinking", collapsed=True):
                yield Static(d.reasoning, markup=False)
        if d.role == "tool":
            lines = d.text.splitlines()
            preview = "\n".join(lines[:RESULT_PREVIEW_LINES])
            if len(lines) > RESULT_PREVIEW_LINES:
                preview += f"\n… {len(lines) - RESULT_PREVIEW_LINES} more lines"
            with Collapsible(title=f"result · {len(lines)} lines", collapsed=True):
                yield Static(preview, markup=False)
        elif d.role == "system":
            yield Static(d.text, markup=False)
        elif d.role == "assistant" or looks_like_markdown(d.text):
            yield Markdown(d.text)
        elif d.text:  # plain user text: a Static costs far less layout than a Markdown block tree
            yield Static(d.text, markup=False, classes="plain")
        for name, arguments in d.tool_calls:
            title = literal(f"→ {name}({arguments[:60]}{'…' if len(arguments) > 60 else ''})")
            with Collapsible(title=title, collapsed=True):  # type: ignore[arg-type]  # Content is what it stores
                yield Static(arguments, markup=False)

    def set_status(self, status: str, error: str | None = None) -> None:
        self.remove_class(f"-{self.data.status}")
        self.data.status = status
        self.data.error = error
        self.add_class(f"-{status}")
        self.refresh_header()

    def set_note(self, note: str) -> None:
        self.note = note
        self.refresh_header()

    def set_pinned(self, pinned: bool) -> None:
        self.pinned = pinned
        self.refresh_header()

    def refresh_header(self) -> None:
        self.border_title = literal(self.header_text())

    @property
    def markdown(self) -> Markdown:
        return self.query_one(Markdown)

    def action_pin(self) -> None:
        self.post_message(self.PinRequested(self))

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.data.text)
        self.notify("Message copied to the clipboard")
