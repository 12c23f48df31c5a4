"""The transcript: every message of the conversation, folded ones dimmed, fold markers inline.

Only the last `WINDOW` items are mounted at first; scrolling to the top mounts the previous batch.
A 2,000-message conversation therefore opens as fast as a 40-message one.

A conversation opened at a message (a /history search's match, `show(at=...)`) mounts a window from just
before it instead, selected and scrolled to; what comes after that window is mounted as the user scrolls
down to it, and all at once (the newest window) when something is added at the end. While the user reads
there, the transcript does not keep to its end.

A reload (`show`: /new, resume, undo, model switch) may start while a lazy load of earlier items is
scheduled or half done. Each reload bumps `generation`; a lazy load does nothing during a reload, and
stops when the generation changed under it, so it never looks for a banner a reload removed nor
writes its position over the new conversation's. (A lock would deadlock: the lazy load runs on the
transcript's own message loop, which the reload's mount needs.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Static

from .fold_marker import FoldMarker
from .message import MessageData, MessageView
from .placed import quiet_virtual_size
from .welcome import Welcome

if TYPE_CHECKING:
    from foldchat.engine import LocalModelSettings, ModelTarget


@dataclass
class FoldItem:
    fold_id: int
    text: str


Item = MessageData | FoldItem


class Transcript(VerticalScroll, can_focus=False):
    # not a stop of its own for Tab: focused, it showed nothing and took ↑/↓; its messages and fold markers
    # are what Tab, ↑/↓ (stepping.py) and PageUp/PageDown (the conversation's) move through
    WINDOW = 40
    MOUNTED_AT_MOST = 2 * WINDOW
    virtual_size = quiet_virtual_size()  # one layout pass per message added, not two (placed.py)
    DEFAULT_CSS = """
    Transcript { height: 1fr; padding: 0 1; scrollbar-gutter: stable; scrollbar-visibility: hidden; }
    Transcript #earlier, Transcript #later { color: $text-muted; text-align: center; width: 100%; }
    """
    LEAD = 2
    """Items mounted above the one a conversation opens at: what led to it."""

    def __init__(self) -> None:
        super().__init__(id="transcript")
        self.items: list[Item] = []
        self.first_mounted = 0
        self.later = 0
        """Items after the mounted ones (opened at a message further back than a window)."""
        self.reading_at = False
        """Opened at a message: not kept at the end (anchored) until something is added there."""
        self.pinned: set[int] = set()
        self.folded_upto = 0
        self._loading = False
        self.generation = 0
        self._reloading = False
        self.prepared_reply: MessageView | None = None
        """A reply's view mounted with its prompt, for the next reply worker to take (widgets/reply_turn.py)."""
        self.streaming = False
        """A turn's reply worker runs, or the screen has not yet handled its end (`reply_turn.TurnOver`)."""
        self.welcome_due = True
        """Shown empty, this conversation opens on the welcome panel: until something is typed or said in it
        (a switch to another conversation makes it due again: slash/conversations.py)."""
        self.welcome: Welcome | None = None
        self.model_known: tuple[ModelTarget, LocalModelSettings] | None = None  # what a new panel names

    def on_mount(self) -> None:
        self.watch(self, "scroll_y", self._scrolled, init=False)

    def _scrolled(self, scroll_y: float) -> None:
        self._maybe_load_earlier(scroll_y)
        if self.later and scroll_y >= self.max_scroll_y - 1 and not self._loading:
            self._loading = True
            self.call_later(self.load_later)
        self._show_scrollbar_when_reading_back(scroll_y)

    def _show_scrollbar_when_reading_back(self, scroll_y: float) -> None:
        """The scrollbar shows while the user reads back, not at the end where new messages arrive: there,
        every message moved the bar and repainted all of it, in a frame of its own (a third of the UI's
        CPU per turn of a long conversation). Its column stays reserved, so nothing reflows."""
        visibility = "visible" if scroll_y < self.max_scroll_y - 1 else "hidden"
        if self.styles.scrollbar_visibility != visibility:
            self.styles.scrollbar_visibility = visibility
            self.refresh(layout=True)  # the bar is placed by a layout pass (a repaint would not draw it)

    def watch_virtual_size(self, size: Size) -> None:
        """Anchored while the conversation is taller than the screen: the layout pass itself keeps it at
        the end, until the user scrolls away, so a message added (or a reply grown) at the end is drawn
        scrolled in one frame, where a scroll after the layout drew the whole transcript twice, once
        unscrolled. Not while it fits: Textual's anchor would then push it to the bottom."""
        overflows = size.height > self.size.height
        if overflows != self.is_anchored and not self.reading_at:
            self.anchor(overflows)

    def _view(self, item: Item) -> Widget:
        if isinstance(item, FoldItem):
            return FoldMarker(item.fold_id, item.text)
        folded = item.id is not None and item.id <= self.folded_upto
        return MessageView(item, pinned=item.id in self.pinned, folded=folded)

    def _earlier_text(self) -> str:
        return f"▲ {self.first_mounted:,} earlier items · scroll up or press Home to load more"

    def _later_text(self) -> str:
        return f"▼ {self.later:,} later items · scroll down to load more (a new message goes to the end)"

    async def show(self, items: list[Item], *, pinned: set[int], folded_upto: int, at: int | None = None) -> None:
        """Replace everything with `items`, mounting only the newest window; or, `at` a message (its id), the
        window from just before it, with that message selected (see the module)."""
        self.generation += 1
        self._reloading = True
        index = next((n for n, i in enumerate(items) if isinstance(i, MessageData) and i.id == at), None)
        try:
            self.items = list(items)
            self.welcome_due = self.welcome_due and not self.items
            self.pinned = pinned
            self.folded_upto = folded_upto
            await self.remove_children()
            count = len(self.items)
            self.first_mounted = max(
                0, count - self.WINDOW if index is None else min(index - self.LEAD, count - self.WINDOW)
            )
            end = min(count, self.first_mounted + self.WINDOW)
            self.later, self.reading_at = count - end, index is not None
            if self.reading_at:
                self.anchor(False)  # kept at the end no more (an anchor scrolls there at every layout)
            earlier = Static(self._earlier_text(), id="earlier")
            earlier.display = self.first_mounted > 0
            self.welcome = Welcome(*self.model_known or ()) if self.welcome_due else None
            welcome = [self.welcome] if self.welcome is not None else []
            later = [Static(self._later_text(), id="later")] if self.later else []
            views = [self._view(i) for i in self.items[self.first_mounted : end]]
            await self.mount(earlier, *welcome, *views, *later)
        finally:
            self._reloading = False
        if index is None:
            self.call_after_refresh(self.scroll_end, animate=False)  # after layout, or the end is not known yet
        else:
            self.call_after_refresh(self._select, views[index - self.first_mounted])

    def _select(self, view: Widget, tries: int = 20) -> None:
        """`view` at the top of the transcript, selected (focused: its accent line), once laid out: until the
        transcript's size takes it in, a scroll there is cut to the size of what was shown before."""
        if not view.is_attached:
            return
        placed = view.virtual_region
        if tries and (not placed.height or placed.bottom > self.virtual_size.height):
            self.call_after_refresh(self._select, view, tries - 1)
            return
        self.scroll_to_widget(view, top=True, animate=False, immediate=True)
        view.focus(scroll_visible=False)

    async def append(self, item: Item) -> Widget:
        return (await self.append_all([item]))[0]

    async def append_all(self, items: list[Item], follow: bool = False) -> list[Widget]:
        """Add `items` at the end in one mount: one layout pass and one repaint for all of them. With
        `follow` (the user sent them) the transcript goes to the end and follows it again, wherever the
        user had scrolled to; otherwise it stays where the user reads."""
        if self.welcome_due:  # a message said: the conversation is under way
            self.end_welcome()
        gap = self.later > 0
        if gap:  # opened at a message far back: the end is mounted, and shown, before anything goes after it
            await self.show(self.items, pinned=self.pinned, folded_upto=self.folded_upto)
        self.reading_at = self.reading_at and not follow
        self.items.extend(items)
        at_bottom = follow or gap or self.scroll_y >= self.max_scroll_y - 2
        views = [self._view(item) for item in items]
        await self.mount(*views)
        if follow and not self.is_anchored and self.virtual_size.height > self.size.height:
            self.anchor()  # scrolling up released it
        if at_bottom:
            self.call_after_refresh(self.scroll_end, animate=False)
            await self._unmount_oldest()
        return views

    def name_model(self, target: ModelTarget, local: LocalModelSettings) -> None:
        """The model the welcome panel names, once the session knows it (and after a switch of model)."""
        self.model_known = (target, local)
        if self.welcome is not None:
            self.welcome.show_model(target, local)

    @on(Welcome.Dismissed)
    def end_welcome(self) -> None:
        """Something was typed: the panel goes, and stays gone for this conversation."""
        self.welcome_due = False
        if self.welcome is not None:
            self.welcome.remove()
            self.welcome = None

    def set_pinned(self, view: MessageView, pinned: bool) -> None:
        """Shown on `view`, and kept for the view mounted again from its item (scrolled back to)."""
        assert view.data.id is not None
        view.set_pinned(pinned)
        if pinned:
            self.pinned.add(view.data.id)
        else:
            self.pinned.discard(view.data.id)

    def forget(self, view: MessageView) -> None:
        """`view` leaves the transcript, its item too (a reply that was never asked for)."""
        self.items = [item for item in self.items if item is not view.data]
        view.remove()

    async def _unmount_oldest(self) -> None:
        """Past `MOUNTED_AT_MOST` items on screen, the oldest go back behind "earlier" (still in `items`,
        mounted again by scrolling up) until `WINDOW` are left. Every layout pass walks every mounted
        widget, so without this each turn of a long session cost more than the last (adding a message:
        25 ms of CPU with 20 messages mounted, 63 ms with 300). Only while the user is at the end."""
        mounted = len(self.items) - self.first_mounted
        if mounted <= self.MOUNTED_AT_MOST:
            return  # most turns: no query of the whole transcript for the banner
        earlier = next(self.query("#earlier").results(Static), None)
        if earlier is None or self._loading or self._reloading:
            return
        leaving = mounted - self.WINDOW
        views = [child for child in self.children if child is not earlier][:leaving]
        self.first_mounted += leaving
        earlier.update(self._earlier_text())
        earlier.display = True
        await self.remove_children(views)

    def _maybe_load_earlier(self, scroll_y: float) -> None:
        if scroll_y <= 0 and self.first_mounted > 0 and not self._loading:
            self._loading = True
            self.call_later(self.load_earlier)

    async def load_earlier(self) -> None:
        """Mount the previous batch; a no-op when everything is mounted (or a reload just ran)."""
        try:
            earlier = next(self.query("#earlier").results(Static), None)
            if self._reloading or earlier is None or self.first_mounted <= 0:
                return
            generation = self.generation
            start = max(0, self.first_mounted - self.WINDOW)
            views = [self._view(i) for i in self.items[start : self.first_mounted]]
            anchor = self.children[1] if len(self.children) > 1 else None
            await self.mount(*views, after=earlier)
            if generation != self.generation:
                return  # a reload replaced everything while these were mounting
            self.first_mounted = start
            earlier.update(self._earlier_text())
            earlier.display = start > 0
            if anchor is not None:
                self.call_after_refresh(self.scroll_to_widget, anchor, top=True, animate=False)
        finally:
            self._loading = False

    async def load_later(self) -> None:
        """Mount the next batch after the mounted items (opened at a message far back); a no-op when there is
        none (or a reload just ran)."""
        try:
            later = next(self.query("#later").results(Static), None)
            if self._reloading or later is None or not self.later:
                return
            generation, start = self.generation, len(self.items) - self.later
            end = min(len(self.items), start + self.WINDOW)
            await self.mount(*[self._view(i) for i in self.items[start:end]], before=later)
            if generation != self.generation:
                return  # a reload replaced everything while these were mounting
            self.later = len(self.items) - end
            if self.later:
                later.update(self._later_text())
            else:
                await later.remove()
        finally:
            self._loading = False

    def focus_fold_marker(self, focused: Widget | None, older: bool) -> bool:
        """Focus the fold marker before the `focused` one (from elsewhere: the newest), or after it when not
        `older`, wrapping around; False when there is none."""
        markers = list(self.query(FoldMarker))
        if not markers:
            return False
        at = markers.index(focused) if isinstance(focused, FoldMarker) and focused in markers else len(markers)
        step = -1 if older else 1
        target = markers[(at + step) % len(markers)] if at < len(markers) else markers[-1 if older else 0]
        target.focus()
        target.scroll_visible()
        return True

    def mark_last_replies_replaced(self) -> None:
        """The replies to the last prompt, shown as replaced by the one being regenerated."""
        views = {id(v.data): v for v in self.message_views()}
        for data in self.said()[::-1]:
            if data.role == "user":
                break
            data.superseded = True  # kept if the view is mounted again (scrolled back to)
            if (view := views.get(id(data))) is not None:
                view.add_class("-superseded")
                view.refresh_header()  # "(replaced)" now, not at the next reload

    def said(self) -> list[MessageData]:
        """Every message of the transcript, mounted or not, in order."""
        return [item for item in self.items if isinstance(item, MessageData)]

    def unanswered(self) -> bool:
        """The last prompt has no reply yet (a reply still streaming, or not yet asked for, is none)."""
        said = [
            data
            for data in self.said()  # all of them: the last may not be mounted
            if data.role != "system" and data.status not in ("unsent", "streaming")
        ]
        return bool(said) and said[-1].role == "user"

    def set_last_note(self, note: str) -> None:
        """The last message's passing note (an unanswered prompt's), shown if it is mounted, kept if not."""
        said = self.said()
        view = next((v for v in self.message_views()[::-1] if said and v.data is said[-1]), None)
        if view is not None:
            view.set_note(note)
        elif said:
            said[-1].note = note

    def message_views(self) -> list[MessageView]:
        """The mounted message views in order: its direct children, scanned (a CSS query matched selectors
        against every widget below it, twice or more a turn)."""
        return [child for child in self.children if isinstance(child, MessageView)]
