"""A widget whose place and size come from its parent's layout alone.

Textual's `Widget.virtual_size` is a reactive that asks for a layout of the whole screen whenever it
changes. It changes when a layout pass gives a widget its size (0 -> 2 rows for a new message), so each
mounted message cost two passes of the whole screen where one places it. The virtual size
matters only to widgets that scroll their content; the transcript's messages do not (the transcript
scrolls them), and a size change already marks a widget for repaint. The transcript itself, which does
scroll, needs no pass either: Textual updates its scrollbars from the layout pass that changed it.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widget import Widget


def quiet_virtual_size() -> Reactive[Size]:
    """`virtual_size` for a class: kept (and watched) as Textual's is, but asking for no layout or repaint."""
    return Reactive(Size(0, 0), layout=False, repaint=False)


class PlacedWidget(Widget):
    """A non-scrolling widget: setting its virtual size neither lays out nor repaints anything."""

    virtual_size = quiet_virtual_size()
