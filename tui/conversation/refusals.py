"""A message that cannot be sent, refused by the turn: up front (no fold could make room; the engine stored
nothing), or later (the engine kept it as unsent). Either way its text goes back to the composer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .attaching import keep

if TYPE_CHECKING:
    from ..host import Sender
    from ..widgets.reply_turn import PromptRefused


def refuse_prompt(conversation: Sender, refused: PromptRefused) -> None:
    """What the turn refused, said: up front (nothing stored) its text and attachments go back; kept as unsent,
    its view says so."""
    if (prompt := refused.given_back) is not None:
        refuse_up_front(conversation, prompt.text, refused.reason)
        keep(conversation, list(prompt.attachments))
    else:
        refuse_last_message(conversation, refused.reason, refused.message_id)


def refuse_up_front(conversation: Sender, text: str, problem: str) -> None:
    """A message no fold can make room for: nothing is stored or sent; it stays in the composer only."""
    give_back(conversation, text)
    conversation.notify(
        f"Not sent: {problem}. It is back in the composer to shorten (Ctrl+L clears it, F7 selects all).",
        title="Too big to send", severity="warning", timeout=20,
    )  # fmt: skip


def refuse_while_replying(conversation: Sender, text: str) -> bool:
    """One send at a time: a message sent while a reply is on its way (or waits for the model) would be a
    second user turn in a row, answered twice. It stays in the composer; Enter sends it once the reply ends.
    True: refused."""
    give_back(conversation, text, enter_kept=True)
    conversation.notify("Not sent yet: the reply to your last message is still coming (Esc stops it). "
                        "Your message stays in the composer: press Enter again once the reply has ended.",
                        title="One message at a time", severity="warning", timeout=8)  # fmt: skip
    return True


def give_back(conversation: Sender, text: str, enter_kept: bool = False) -> None:
    """`text`, refused, back in the composer, before whatever was typed since it was sent: a paste that
    comes as keys (no bracketed paste) sends each line with its Enter, and the lines after a refused one
    are typed in the meantime. Giving it back only into an empty composer lost every line but the last.
    `enter_kept`: the Enter that sent it stays, as a line break before what is typed next, so such a paste
    keeps its lines (a lone Enter adds nothing)."""
    composer = conversation.composer
    typed = composer.text
    composer.text = f"{text}\n{typed}" if typed.strip() else text
    composer.move_cursor(composer.document.end)
    composer.line_break_owed = enter_kept and not typed.strip()


def refuse_last_message(conversation: Sender, problem: str, message_id: int | None) -> None:
    """The turn refused a user message (too big for the window; the engine kept `message_id` as unsent):
    its view says so, no reply is asked for, and its text goes back to the composer to shorten. With no
    message (a regenerated reply), only the reason is said."""
    session = conversation.backend
    views = [v for v in conversation.transcript.message_views() if v.data.role == "user"]
    view = next((v for v in views if message_id is not None and v.data.id == message_id), None)
    if session is None or view is None:
        conversation.notify(f"{problem}: not sent.", title="Too big to send", severity="warning", timeout=15)
        return
    view.set_status("unsent", f"not sent: too big for {session.target.name}")
    composer = conversation.composer
    if not composer.text.strip():
        composer.text = view.data.text
        composer.move_cursor(composer.document.end)
    conversation.notify(f"{problem}. Your message was not sent: it is back in the composer to shorten.",
                        title="Too big to send", severity="warning", timeout=15)  # fmt: skip
