"""/model (a name, or the picker) and /context."""

from __future__ import annotations

from typing import TYPE_CHECKING

from foldchat.engine import FoldchatError, off_loop

if TYPE_CHECKING:
    from ..host import ChatHost


async def model(screen: ChatHost, arg: str) -> None:
    from ..presenters import model_choices
    from ..screens.model_picker import ModelPicker

    if arg:
        await switch_model(screen, arg)
        return
    session = screen.session  # the picker opens at once and reads the models in a worker

    async def picked(name: str | None) -> None:
        if name:
            await switch_model(screen, name)

    screen.app.push_screen(ModelPicker(lambda: model_choices(session), session.target.name), picked)


async def switch_model(screen: ChatHost, name: str) -> None:
    session = screen.session
    try:
        target, usage = await off_loop(session.check_model, name)
    except FoldchatError as error:
        screen.notify(str(error), title="Cannot switch", severity="error")
        return
    # said as the picker's row says it, with the gauge's numbers (Usage.fit_words)
    said = f"{name} ({usage.window:,}-token window): the conversation {usage.fit_words()}"
    if usage.fits:
        screen.notify(said, title="Model switched")
    else:
        screen.notify(f"{said}; the history folds before the next reply", title="Model switched", severity="warning")
    await off_loop(session.switch_model, target)
    screen.set_usage(usage)
    screen.prepare_model()


async def context(screen: ChatHost, _: str) -> None:
    from ..presenters import context_breakdown
    from ..screens.info import InfoScreen

    typed = screen.gauge_state.typing
    text = await off_loop(context_breakdown, screen.session, typed)
    screen.app.push_screen(InfoScreen(text, "context-screen"))
