"""What a fold did, said on the chat screen: a fold run now (/resummarize, an idle fold), and the outcome of
any fold, a turn's too: the transcript rebuilt around its marker and a toast, or why nothing was folded;
and the next fold prepared ahead when one is near.

The fold's progress comes up from the engine's thread as it runs (`Conversation.post_fold_event`); here is
only its end. Typed against `ChatHost` (tui/host.py), like the commands that start a fold.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from foldchat.engine import FoldchatError, in_thread

if TYPE_CHECKING:
    from foldchat.engine import FoldReport

    from .host import ChatHost


async def fold(screen: ChatHost, force: bool, focus: str | None = None) -> bool:
    """Fold now (`force`, with `focus`), or if the policy says so, and recount the gauge; True when folded.
    (A fold before a reply is part of the turn.)"""
    session, posted = screen.session, screen.conversation.post_fold_event
    try:  # cancelled (quit): the fold's remaining requests are not made, and quitting waits for none
        if force:
            report = await in_thread(lambda: session.fold_now(focus, posted))
        else:
            report = await in_thread(lambda: session.auto.fold_if_needed(posted))
    except FoldchatError as error:
        not_made(screen, str(error), failed=True)
        return False
    folded = await show(screen, report, force)
    if force:
        await screen.refresh_usage()
    return folded


def not_made(screen: ChatHost, reason: str, failed: bool) -> None:
    """A fold skipped, declined or failed (`failed`: said as an error)."""
    screen.folding = False
    if screen.backend is not None:
        screen.update_gauge(fold_paused=screen.backend.auto.paused)
    if failed:
        screen.notify(reason, title="Could not fold", severity="error")


async def show(screen: ChatHost, report: FoldReport | None, force: bool) -> bool:
    """What a fold did, said: the transcript rebuilt around its marker and a toast, or why nothing was
    folded. True when the history was folded."""
    screen.folding = False
    screen.update_gauge(fold_paused=screen.session.auto.paused)  # a forced fold re-arms automatic ones
    if report is None or not report.compressed:
        if force:
            reason = report.reason if report is not None else "the conversation is empty"
            # stays under the title until the next reply: a toast alone is gone before it is read
            screen.status = f"Nothing folded: {reason}"
            screen.notify(f"Nothing folded: {reason}")
        elif report is not None and report.failed:
            screen.notify(f"Could not fold: {report.reason}", title="Fold failed", severity="warning")
        return False
    await screen.refresh_transcript()
    screen.status = screen.model_status()
    restored = f" · {report.restored_identifiers} identifiers restored" if report.restored_identifiers else ""
    screen.notify(
        # the report's numbers: the marker and the inspector show the same stored ones
        f"Folded {report.folded_messages} messages · {report.tokens_before:,} → {report.tokens_after:,} tokens"
        f" · {report.summarizer}{restored}",
        title="Folded",
    )
    if report.rules_notice():
        screen.notify(report.rules_notice() or "", title="Standing rules", severity="warning", timeout=20)
    return True


def prepare_next(screen: ChatHost, due: bool) -> None:
    """Past the reset ratio (`due`: `Session.auto.prefold_due`), the next fold is prepared in a thread worker,
    so that at the trigger it applies at once (engine/fold/prefold.py). The engine runs one at a time and
    keeps its failures quiet; the worker touches no widget."""
    session = screen.backend
    if session is not None and due:
        screen.run_worker(
            session.auto.prepare_fold, name="prepare_fold", group="prefold", thread=True, exit_on_error=False
        )
