"""The gauge's numbers agree with each other: the percentage is of the number shown (it counted the
reply's reserve too: "0 / 8,192 (6%)"), "fold at" is where that number triggers a fold, and the turns
left do not change while the user types."""

from __future__ import annotations

from dataclasses import replace

from foldchat.tui.widgets.gauge import ContextGauge, GaugeState
from textual.app import App, ComposeResult


class GaugeOnly(App[None]):
    def compose(self) -> ComposeResult:
        yield ContextGauge()


def line(app: App[None], state: GaugeState) -> str:
    gauge = app.query_one(ContextGauge)
    gauge.state = state
    return str(gauge.render())


async def test_the_percentage_is_of_the_number_shown_and_fold_at_is_of_the_same_count():
    app = GaugeOnly()
    async with app.run_test(size=(160, 3)):
        empty = line(app, GaugeState(tokens=0, window=8192, reserved=512, trigger=6553, turns_left=3))
        assert " 0 / 8,192 (0%) · fold at 6,041 · reserve 512" in empty
        half = line(app, GaugeState(tokens=4096, window=8192, reserved=512, trigger=6553, turns_left=3))
        assert " 4,096 / 8,192 (50%) · fold at 6,041" in half


async def test_turns_left_stay_the_same_while_typing_for_the_same_context():
    app = GaugeOnly()
    async with app.run_test(size=(160, 3)):
        base = GaugeState(tokens=3000, window=8192, reserved=512, trigger=6553, turns_left=10)
        shown = {line(app, GaugeState(**{**base.__dict__, "typing": typed})).split(" · ≈ ")[1].split(" ")[0]
                 for typed in (0, 5, 120, 290)}  # fmt: skip
        assert shown == {"10"}  # the engine's count for the stored context (engine/headroom.py)


async def test_what_is_typed_and_cannot_fit_any_window_says_so_instead_of_folds_next_send():
    app = GaugeOnly()
    async with app.run_test(size=(160, 3)):
        shown = line(app, GaugeState(tokens=171, typing=12_000, window=8192, reserved=60, trigger=6553, turns_left=3))
        assert "too big to send" in shown and "folds" not in shown.split("fold at")[-1]


async def test_past_the_trigger_the_gauge_says_what_the_next_send_does():
    """ "folds on next send" was said in ask mode too, and after "not now", when no fold came."""
    app = GaugeOnly()
    async with app.run_test(size=(160, 3)):
        over = GaugeState(tokens=7000, window=8192, reserved=512, trigger=6553, turns_left=3)
        said = {mode: line(app, replace(over, at_trigger=mode)) for mode in ("folds", "asks", "declined", "off")}
        assert "folds on next send" in said["folds"] and "asks to fold on next send" in said["asks"]
        assert "fold declined" in said["declined"] and "auto-fold off" in said["off"]
        assert all("folds on next send" not in said[m] for m in ("asks", "declined", "off"))


async def test_past_the_trigger_a_fold_the_policy_holds_back_is_not_promised():
    """Right after a fold (its cooldown), or after one that left too much, a send past the trigger does not
    fold: the gauge said "folds on next send" all the same."""
    app = GaugeOnly()
    async with app.run_test(size=(160, 3)):
        over = GaugeState(tokens=7000, window=8192, reserved=512, trigger=6553, turns_left=3)
        held = ("cooldown", "not re-armed", "too few messages")
        said = {reason: line(app, replace(over, at_trigger=reason)) for reason in held}
        assert "folds after the cooldown" in said["cooldown"] and "/resummarize" in said["not re-armed"]
        assert "too few messages to fold" in said["too few messages"]
        assert all("folds on next send" not in text for text in said.values())
    narrow = GaugeOnly()
    async with narrow.run_test(size=(80, 3)):  # the short words, in a narrow terminal
        assert "fold after cooldown" in line(narrow, replace(over, at_trigger="cooldown"))


async def test_one_turn_left_is_one_turn():
    app = GaugeOnly()
    async with app.run_test(size=(160, 3)):
        shown = line(app, GaugeState(tokens=5700, window=8192, reserved=512, trigger=6553, turns_left=1))
        assert "≈ 1 turn left" in shown, shown
        assert "≈ 2 turns left" in line(
            app, GaugeState(tokens=5400, window=8192, reserved=512, trigger=6553, turns_left=2)
        )


async def test_the_cost_says_how_much_of_the_input_the_provider_read_cached():
    app = GaugeOnly()
    async with app.run_test(size=(200, 3)):
        cached = GaugeState(tokens=3000, window=200_000, reserved=512, trigger=160_000, turns_left=3, cost=0.042,
                            cached_share=0.71)  # fmt: skip
        assert "$0.0420 · 71% of input cached" in line(app, cached)
        assert "cached" not in line(app, replace(cached, cached_share=0.0))  # nothing cached: nothing said


async def test_the_first_typed_key_does_not_switch_the_gauge_to_its_short_form_at_120_columns():
    app = GaugeOnly()
    async with app.run_test(size=(122, 3)):  # 120 columns inside the gauge's padding
        idle = GaugeState(tokens=12_000, window=128_000, reserved=4_096, trigger=102_400, model="gpt-4o",
                          turns_left=57, cost=0.0123)  # fmt: skip
        before, typing = line(app, idle), line(app, replace(idle, typing=40))
        assert " / 128,000 (9%)" in before and " +40 typing / 128,000 (9%)" in typing  # the long form, both
        assert typing.replace(" +40 typing", "") == before  # the rest of the line stays where it was
