"""One transcript message: replies as Markdown, user text as typed, tool calls and results and the
model's thinking collapsed, status and pins shown.

User messages are shown exactly as typed (line breaks kept, nothing reflowed or taken for Markdown);
replies are Markdown. `y` copies the message's last code block, `c` the whole message: both go out
as OSC 52, which works over ssh and tmux, but a terminal never confirms it, so the notice says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from foldchat.engine import is_cut_mark, said, shown_attachments, visible
from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.message import Message as TextualMessage
from textual.visual import VisualType
from textual.widgets import Collapsible, Static

from ..literal import literal, shortened
from .placed import PlacedWidget
from .reply_markdown import ParsedMarkdown, ReplyMarkdown
from .reply_stream import ReplyStream, StreamTail
from .stepping import STEP_BINDINGS, step_focus

if TYPE_CHECKING:
    from foldchat.engine import Recalled, StoredMessage

RESULT_PREVIEW_LINES = 200
ATTACHMENT_PREVIEW_LINES = 400
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
SEPARATOR = " · "
NUMBER_STYLE = "not bold $foreground-muted"
"""The number in a header: quiet beside the role's bold colour (`$text-muted` is see-through, drawn white here)."""
CLIPBOARD_NOTE = "sent to the terminal's clipboard (OSC 52); terminals without OSC 52 cannot confirm it"


def last_code_block(text: str) -> str | None:
    """The body of the last fenced code block in `text` (an unclosed fence runs to the end), or None."""
    found: str | None = None
    fence = ""
    body: list[str] = []
    for line in text.splitlines():
        match = _FENCE.match(line)
        if not fence and match:
            fence, body = match.group(1), []
        elif fence and match and match.group(1).startswith(fence) and not line.strip(" `~"):
            found, fence = "\n".join(body), ""
        elif fence:
            body.append(line)
    return "\n".join(body) if fence else found


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
    note: str = ""
    """A passing state shown in the header, such as "waiting for the model… 12 s"."""
    attachments: tuple[tuple[str, str], ...] = ()
    """What the message attached: (title, content), shown as collapsed lines that expand to the content."""
    recalled: tuple[str, str] | None = None
    """What automatic recall added to this prompt's request: ("recalled #12, #48 · 312 tokens", the
    passages), a collapsed line under the prompt that Enter opens."""
    cut: bool = False
    """A reply the output cap ended: /continue asks for the rest of it."""
    number: int | None = None
    """Its number in the conversation (`Context.message_numbers`: what snapshots, stubs, the inspector and
    `recall` cite as "#12"); None until it is stored (a reply is numbered as its turn ends)."""

    @classmethod
    def from_stored(
        cls, stored: StoredMessage, recalled: Recalled | None = None, number: int | None = None
    ) -> MessageData:
        message = stored.message
        attached = shown_attachments(message)
        cut = stored.status == "complete" and is_cut_mark(stored.error)  # a failed reply's error stays an error
        return cls(
            recalled=None if recalled is None else shown_recall(recalled),
            number=number,
            id=stored.id,
            role=message.role,
            text=visible(said(message) if attached else message.text),
            attachments=tuple((visible(title), visible(content)) for title, content in attached),
            status=stored.status,
            model=visible(stored.model) if stored.model else None,
            error=visible(stored.error) if stored.error and not cut else None,
            note=f"[{visible(str(stored.error))}] /continue asks for the rest" if cut else "",
            tool_calls=tuple((visible(c.name), visible(c.arguments)) for c in message.tool_calls),
            tool_name=visible(message.name) if message.name else None,
            reasoning=visible(str(message.extras.get("reasoning_content") or "")),
            superseded=stored.superseded_by is not None,
            cut=cut,
        )


def shown_recall(recalled: Recalled) -> tuple[str, str]:
    """A recall as the transcript shows it: its one line, and the passages (made visible: text we did not
    write never reaches the terminal raw)."""
    return visible(recalled.summary()), visible(recalled.shown())


FAILED = frozenset({"error", "interrupted"})
"""Statuses whose header is drawn in the warning colour (the class `-failed`)."""


class MessageView(PlacedWidget, can_focus=True):
    """One message. A prompt or a finished reply with nothing collapsed in it is drawn by this one widget
    (its text, or the reply's Markdown); the rest (a streaming reply, thinking, tool calls and results)
    are children laid out in a column. Every layout pass walks every widget of the transcript and a turn
    makes several: a child per message cost ~15 % more UI-thread CPU per streamed turn."""

    DEFAULT_CSS = """
    MessageView { width: 1fr; height: auto; overflow: hidden hidden; padding: 0 1; margin: 0 0 1 0;
                  border-top: blank; border-title-align: left; border-title-color: $text-muted;
                  border-title-style: bold; }
    MessageView:focus { background: $accent 12%; border-top: heavy $accent; border-title-color: $accent; }
    MessageView.-user { border-title-color: $primary; }
    MessageView.-assistant { border-title-color: $secondary; }
    MessageView.-folded { opacity: 60%; }
    MessageView.-folded:focus { opacity: 100%; }
    MessageView.-superseded { opacity: 50%; }
    MessageView.-failed { border-title-color: $warning; }
    MessageView Collapsible { margin: 0; padding: 0; border: none; }
    """
    BINDINGS = [Binding("enter", "actions", "Pin · copy · edit"), *STEP_BINDINGS]

    class Requested(TextualMessage):
        """An action on this message, asked from its menu; each kind its own class, since Textual hands a
        message to the handlers of its base classes too (an edit was also taken for a pin)."""

        def __init__(self, view: MessageView) -> None:
            super().__init__()
            self.view = view

    class PinRequested(Requested):
        """`p`: pin it, or unpin it."""

    class EditRequested(Requested):
        """`e` on a prompt: edit it and resend (the later messages are superseded)."""

    def __init__(self, data: MessageData, *, pinned: bool = False, folded: bool = False) -> None:
        super().__init__(classes=f"-{data.role}")
        self.set_class(data.status in FAILED, "-failed")
        self.data = data
        self.pinned = pinned
        self.stream: ReplyStream | None = None
        self._markdown = ParsedMarkdown()  # a finished reply's, when the view draws it itself
        self._header_width = 0
        self.set_class(folded, "-folded")
        self.set_class(data.superseded, "-superseded")

    def header_text(self) -> str:
        """The header whole, as plain text (`header` draws it, fitted to the width)."""
        return SEPARATOR.join(self._header_parts())

    def _header_parts(self) -> list[str]:
        """Who, the number, then the rest by how much the user needs it: the model's name last, so a long one
        is what gets shortened (the wait's seconds, a cut mark, the pin stay in view)."""
        d = self.data
        parts = [{"user": "You", "assistant": "Assistant", "tool": "Tool", "system": "System"}[d.role]]
        if d.number is not None:
            parts.append(f"#{d.number}")
        if d.tool_name:
            parts.append(d.tool_name)
        if d.status != "complete":
            parts.append(f"[{d.status}{': ' + d.error if d.error else ''}]")
        if d.note:
            parts.append(d.note)
        if d.superseded:
            parts.append("(edited: replaced by a newer prompt)" if d.role == "user" else "(replaced)")
        if self.pinned:
            parts.append("📌 pinned")
        if d.model and d.role == "assistant":
            parts.append(d.model)
        return parts

    def header(self) -> Content:
        """The header as drawn: in the title's width (the parts shortened at a word, the last first, never the
        role or the number), the number quiet (muted, not bold), every part literal (text we did not write)."""
        parts = self._header_parts()
        kept = 2 if self.data.number is not None else 1
        width = self.outer_size.width - 2  # what Textual leaves a top border's title
        for at in range(len(parts) - 1, kept - 1, -1):
            over = cell_len(SEPARATOR.join(parts)) - width
            if width <= 0 or over <= 0:
                break
            parts[at] = shortened(parts[at], max(1, cell_len(parts[at]) - over))
        pieces: list[str | Content | tuple[str, str]] = []
        for at, part in enumerate(parts):
            pieces += [SEPARATOR] if at else []
            pieces.append((part, NUMBER_STYLE) if at == 1 and kept == 2 else literal(part))
        return Content.assemble(*pieces)

    @property
    def draws_itself(self) -> bool:
        """A prompt or a finished reply with no thinking or tool calls: no child widget (see the class)."""
        d = self.data
        plain = not d.reasoning and not d.tool_calls and not d.attachments and d.recalled is None
        return d.role in ("user", "assistant") and d.status != "streaming" and plain

    def render(self) -> VisualType:
        if not self.draws_itself or self.children:
            return ""  # drawn by the children
        if self.data.role == "user":  # as typed: line breaks kept, no Markdown reflow, no markup
            return Content(self.data.text)
        return self._markdown.of(self.data.text)

    def compose(self) -> ComposeResult:
        d = self.data
        self.border_title = self.header()  # a title, not a child widget: one widget less per message
        if self.draws_itself:
            return
        if d.reasoning:
            with Collapsible(title="thinking", collapsed=True, classes="thinking"):
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
        elif d.role == "assistant":
            if d.text or d.status != "streaming":
                yield ReplyMarkdown(d.text)
            if d.status == "streaming":  # the stream adds Markdown as blocks finish: no empty one to mount first
                yield StreamTail()
        elif d.text:  # a prompt with tool calls (an imported export) or attachments: as typed
            yield Static(d.text, markup=False)
        for name, content in d.attachments:
            lines = content.splitlines()
            preview = "\n".join(lines[:ATTACHMENT_PREVIEW_LINES])
            if len(lines) > ATTACHMENT_PREVIEW_LINES:
                preview += f"\n… {len(lines) - ATTACHMENT_PREVIEW_LINES} more lines (/export shows them all)"
            with Collapsible(title=literal(f"attached {name}"), collapsed=True, classes="attachment"):  # type: ignore[arg-type]
                yield Static(preview, markup=False)
        if d.recalled is not None:
            with Collapsible(title=literal(d.recalled[0]), collapsed=True, classes="recalled"):  # type: ignore[arg-type]
                yield Static(d.recalled[1], markup=False)
        for name, arguments in d.tool_calls:
            title = literal(f"→ {name}({arguments[:60]}{'…' if len(arguments) > 60 else ''})")
            with Collapsible(title=title, collapsed=True):  # type: ignore[arg-type]  # Content is what it stores
                yield Static(arguments, markup=False)

    def set_status(self, status: str, error: str | None = None) -> None:
        # a status is a class only where it looks different: a class change restyles the view and all its
        # children, and every reply would pay that as it goes from streaming to complete
        self.set_class(status in FAILED, "-failed")
        self.data.status = status
        self.data.error = error
        self.refresh_header()

    def set_note(self, note: str) -> None:
        """In the data, so a view mounted again from it (scrolled back to) shows it as it is now."""
        if note != self.data.note:  # the same title again would still repaint the header: a frame of its own
            self.data.note = note
            self.refresh_header()

    async def show_recalled(self, recalled: Recalled) -> None:
        """What automatic recall found for this prompt, as a line under it (see `MessageData.recalled`)."""
        self.data.recalled = shown_recall(recalled)
        await self.recompose()

    def set_pinned(self, pinned: bool) -> None:
        self.pinned = pinned
        self.refresh_header()

    def refresh_header(self) -> None:
        self._show_header()

    def _show_header(self) -> None:
        header = self.header()
        if self._border_title is None or header != self._border_title:  # the same title again is a frame of its own
            self.border_title = header

    def on_resize(self, event: events.Resize) -> None:
        """A new width fits the header again (a reply growing as it streams changes only the height); a header
        that still fits is left as it is, no repaint."""
        if event.size.width != self._header_width:
            self._header_width = event.size.width
            self._show_header()

    def reply_stream(self, interval: float, on_paint: Callable[[str], None] | None = None) -> ReplyStream:
        """How a reply streams into this (streaming) view: Markdown per finished block, a plain tail;
        kept as `stream` (tests read its counters)."""
        self.stream = ReplyStream(self.query_one(StreamTail), interval, on_paint)
        return self.stream

    async def end_stream(self) -> None:
        """The reply ended (or was stopped): a plain reply drops its streaming children and draws its
        Markdown itself, in the same frame; one with thinking keeps a Markdown child."""
        if self.stream is None:
            return
        redraw = (lambda: self.refresh(layout=True)) if self.draws_itself else None  # a repaint drops the height
        await self.stream.finish(self.data.text, replaced_by=redraw)

    def action_pin(self) -> None:
        self.post_message(self.PinRequested(self))

    def action_step(self, step: int) -> None:
        step_focus(self, step)

    def action_actions(self) -> None:
        """The message's actions, chosen on purpose (a menu), never by a bare letter typed by mistake."""
        from ..screens.message_actions import MessageActions

        actions = {"pin": self.action_pin, "copy": self.action_copy, "copy_code": self.action_copy_code,
                   "edit": self.action_edit}  # fmt: skip

        def chosen(name: str | None) -> None:
            if name in actions:
                actions[name]()

        self.app.push_screen(MessageActions(prompt=self.data.role == "user"), chosen)

    async def show_reasoning(self, text: str, streaming: bool) -> None:
        """The thinking streamed so far, collapsed above the reply (mounted on its first words)."""
        title = "thinking…" if streaming else "thinking"
        found = self.query(".thinking")
        if not found:
            static = Static(text, markup=False)
            await self.mount(Collapsible(static, title=title, collapsed=True, classes="thinking"), before=0)
            return
        collapsible = found.first(Collapsible)
        collapsible.title = title
        collapsible.query_one(Static).update(text)

    def action_edit(self) -> None:
        if self.data.role != "user" or self.data.id is None or self.data.superseded:
            self.notify("Only a prompt that still counts can be edited and resent", severity="warning")
            return
        self.post_message(self.EditRequested(self))

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.data.text)
        self.notify(f"Message {CLIPBOARD_NOTE}", markup=False)

    def action_copy_code(self) -> None:
        code = last_code_block(self.data.text)
        if code is None:
            self.notify("This message has no code block (c copies the whole message)", severity="warning")
            return
        self.app.copy_to_clipboard(code)
        lines = len(code.splitlines())
        self.notify(f"Code block ({lines} line{'s' if lines != 1 else ''}) {CLIPBOARD_NOTE}", markup=False)
