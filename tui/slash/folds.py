"""/resummarize, /fold, /unfold, /folds and what the fold inspector sends back."""

from __future__ import annotations

from typing import TYPE_CHECKING

from foldchat.engine import FoldchatError, in_thread, off_loop

if TYPE_CHECKING:
    from ..host import ChatHost
    from ..screens.fold_inspector import InspectorAction

AUTO_LABELS = {"on": "on (fold at the trigger)", "ask": "ask first", "off": "off (a send that would not fit asks)"}


async def resummarize(screen: ChatHost, arg: str) -> None:
    if arg == "--preview" or arg.startswith("--preview "):
        preview(screen, arg.removeprefix("--preview").strip() or None)
        return
    if screen.conversation.streaming:
        screen.fold_requested = arg
        screen.notify("Folding as soon as the reply is complete")
        return
    screen.fold_history(force=True, focus=arg or None)


async def fold_mode(screen: ChatHost, arg: str) -> None:
    if arg:
        try:
            screen.session.auto.set_mode(arg.lower())
        except FoldchatError as error:
            screen.notify(str(error), severity="error")
            return
        await screen.refresh_usage()  # the gauge says what a send past the trigger does now
    screen.notify(f"Automatic folds: {AUTO_LABELS[screen.session.auto.mode]}")


async def recall_mode(screen: ChatHost, arg: str) -> None:
    """/recall on|off: recall at every send, for this session (the config's `[fold] auto_recall` is the default)."""
    if arg.lower() in ("on", "off"):
        screen.session.recall_at_send(arg.lower() == "on")
    elif arg:
        screen.notify(f"/recall takes on or off, not {arg!r}", severity="error", markup=False)
        return
    state = (
        "on: folded messages a new message is about go into its request" if screen.session.replies.at_send.on else "off"
    )
    screen.notify(f"Recall at every send: {state}", markup=False)


def preview(screen: ChatHost, focus: str | None, back_to: int | None = None) -> None:
    """Compute the fold, show it, and apply exactly that result only if the user says so (a worker of its
    own, in the fold group: a preview and a fold never run at once). `back_to`: the fold whose inspector
    asked for it, shown again when the preview is discarded (Esc backs out one level)."""
    screen.run_worker(_preview(screen, focus, back_to), group="fold", exit_on_error=False)


async def _preview(screen: ChatHost, focus: str | None, back_to: int | None = None) -> None:
    from foldchat.engine import fold_economics

    from ..screens.fold_preview import FoldPreview

    session = screen.session
    try:
        plan = await in_thread(lambda: session.preview_fold(focus))  # cancelled on quit: no more requests
        if plan is None:
            screen.notify("Nothing to fold: the conversation is empty")
            return
        before, after = plan.report.tokens_before, plan.report.tokens_after  # priced at the model's prices
        economics = await off_loop(fold_economics, before, after, session.target)
        if not await screen.app.push_screen_wait(FoldPreview(plan, economics)):
            told = "Fold preview discarded" if plan.report.compressed else f"Nothing folded: {plan.report.reason}"
            screen.notify(f"{told}: nothing changed" if plan.report.compressed else told)
            if back_to is not None:
                await inspect(screen, back_to)
            return
        report = await off_loop(session.apply_fold, plan)
    except FoldchatError as error:
        screen.notify(str(error), title="Could not fold", severity="error")
        return
    await screen.refresh_transcript()
    await screen.refresh_usage()
    if report is not None and report.compressed:
        screen.notify(
            f"Folded {report.folded_messages} messages · {report.tokens_before:,} → {report.tokens_after:,} tokens"
        )


async def unfold(screen: ChatHost, _: str) -> None:
    fold = await off_loop(screen.session.context.active_fold)
    if fold is None:
        screen.notify("No fold to undo")
        return
    from ..screens.confirm import ConfirmDialog

    async def answered(confirmed: bool | None) -> None:
        if confirmed:
            await undo(screen, fold.id)

    question = f"Undo fold {fold.id}? The context goes back to the original messages."
    screen.app.push_screen(ConfirmDialog(question, "Undo fold"), answered)


async def undo(screen: ChatHost, fold_id: int) -> None:
    await off_loop(screen.session.undo_fold, fold_id)
    await screen.refresh_transcript()
    screen.notify(f"Fold {fold_id} undone: the context holds the original messages again")


async def folds(screen: ChatHost, _: str) -> None:
    fold = await off_loop(screen.session.context.active_fold)
    if fold is None:
        screen.notify("No folds yet: /resummarize folds now")
        return
    await inspect(screen, fold.id)


async def inspect(screen: ChatHost, fold_id: int) -> None:
    """The fold inspector for one fold (/folds, Enter on a fold marker)."""
    from ..presenters import fold_view
    from ..screens.fold_inspector import FoldInspector

    view = await off_loop(fold_view, screen.session, fold_id)

    async def done(action: InspectorAction | None) -> None:
        if action is not None and screen.backend is not None:
            await _inspector_done(screen, action)

    screen.app.push_screen(FoldInspector(view, forward=screen.composer), done)


async def _inspector_done(screen: ChatHost, action: InspectorAction) -> None:
    if action.action == "undo":
        await undo(screen, action.fold_id)
    elif action.action == "edit":
        await _edit(screen, action.fold_id, action.text)
    elif action.action == "refold":
        await resummarize(screen, action.text)
    elif action.action == "preview":
        preview(screen, action.text or None, back_to=action.fold_id)
    elif action.action == "drop_rule":
        await _drop_rule(screen, action.fold_id, action.text)
    elif action.action == "open":
        await open_message(screen, action.text, back_to=action.fold_id)


async def _edit(screen: ChatHost, fold_id: int, text: str) -> None:
    try:
        await off_loop(screen.session.edit_fold, fold_id, text)
    except FoldchatError as error:  # the inspector refuses such an edit first; this is the engine's word on it
        screen.notify(str(error), severity="error", markup=False)
        return
    await screen.refresh_transcript()
    screen.notify("Snapshot edited: the corrected text is what the model sees from now on")


async def open_message(screen: ChatHost, number: str, back_to: int | None = None) -> None:
    """A message of the conversation by its number (as snapshots and recalled passages cite it), word for
    word; Esc goes back to the fold inspector it was opened from."""
    from ..screens.message_text import MessageText

    digits = number.strip().lstrip("#")
    numbers = await off_loop(screen.session.context.message_numbers)
    by_number = {n: i for i, n in numbers.items()}
    if not digits.isdigit() or int(digits) not in by_number:
        screen.notify(f"No message {number.strip()!r} in this conversation (1..{len(numbers)})", severity="error",
                      markup=False)  # fmt: skip
        return
    stored = await off_loop(screen.session.store.message, by_number[int(digits)])

    async def closed(_: None) -> None:
        if back_to is not None and screen.backend is not None:
            await inspect(screen, back_to)

    screen.app.push_screen(MessageText(int(digits), stored.message.role, stored.message.text), closed)


async def _drop_rule(screen: ChatHost, fold_id: int, number: str) -> None:
    try:
        rule = await off_loop(screen.session.drop_rule, fold_id, int(number) if number.isdigit() else 0)
    except FoldchatError as error:
        screen.notify(str(error), severity="error")
        return
    await screen.refresh_transcript()
    screen.notify(f"Rule dropped from the snapshot: {rule}", markup=False)
