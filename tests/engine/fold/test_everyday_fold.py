"""Folds keep what matters in everyday conversations, fold after fold: both sides, whole statements,
rules in the user's broader words, updates that replace, the room used, and recall by meaning."""

from __future__ import annotations

import json
from pathlib import Path

from foldchat.engine import snapshot as snap
from foldchat.engine.facts import is_standing_rule
from foldchat.engine.fold.check import check_snapshot
from foldchat.engine.fold.fit import fit_snapshot
from foldchat.engine.fold.pipeline import FoldRequest, fold_context
from foldchat.engine.fold.supersede import stale_values_marked, supersede
from foldchat.engine.messages import Message, parse_messages
from foldchat.engine.recall import Original, recall, search
from foldchat.engine.references import body, numbers_in
from foldchat.engine.rule_statements import standing_rules
from foldchat.engine.salience import condense, values
from foldchat.engine.snapshot import Snapshot
from foldchat.engine.summarizers import RulesSummarizer, SummaryRequest
from foldchat.engine.tokens import LiteLLMCounter

COUNTER = LiteLLMCounter("gpt-4o")
CHATS = Path(__file__).resolve().parents[3] / "bench" / "chats"


def summary(*turns: str) -> Snapshot:
    """The rules snapshot of alternating user/assistant `turns` (numbered from 1)."""
    roles = ["user", "assistant"]
    messages = [Message(role=roles[i % 2], content=text) for i, text in enumerate(turns)]  # type: ignore[arg-type]
    return RulesSummarizer().summarize(SummaryRequest(messages))


def rendered(snapshot: Snapshot) -> str:
    return snap.render(snapshot)


def chat(name: str) -> list[Message]:
    return parse_messages(json.loads((CHATS / f"{name}.json").read_text())["messages"])


def numbered(messages: list[Message]) -> list[Message]:
    """`messages` as one transcript: each keyed by its position (so numbered position + 1)."""
    return [m.evolve(key=i) for i, m in enumerate(messages)]


def size(candidate: Snapshot) -> int:
    return COUNTER.count_text(snap.render(candidate))


# -- both sides, whole statements, no pleasantries ---------------------------------------------------------


def test_what_the_assistant_stated_is_kept_with_its_message_number():
    out = summary(
        "What should we see in Lisbon on the Monday?",
        "Thanks for asking! Most museums close on Mondays, but the Gulbenkian is open; tickets are €14 and the "
        "fado at Tasca do Chico starts at 21:30. Hope this helps!",
        "great, thanks!",
        "You're welcome!",
    )
    knowledge = " ".join(out.key_knowledge)
    assert "€14" in knowledge and "21:30" in knowledge and "Gulbenkian" in knowledge
    assert any(item.startswith("assistant: ") and numbers_in(item) == (2,) for item in out.key_knowledge)
    assert "Hope this helps" not in rendered(out) and "You're welcome" not in rendered(out)


def test_the_other_speakers_first_person_facts_are_kept():
    out = summary(
        "how's the new job going??",
        "Honestly great. I started at Larkspur Kitchen on November 3 as head chef, $78,000 a year, and Sam "
        "works at Brightwater Animal Hospital now.",
    )
    text = rendered(out)
    for fact in ("Larkspur Kitchen", "November 3", "$78,000", "Brightwater Animal Hospital"):
        assert fact in text


def test_a_statement_is_kept_whole_with_its_value():
    rules = standing_rules("ok. Budget cap is $500 total. Never exceed without explicit approval.")
    assert rules == ["Budget cap is $500 total. Never exceed without explicit approval."]
    out = summary("ok. Budget cap is $500 total. Never exceed without explicit approval.", "Understood.")
    assert any("$500" in c and "Never exceed" in c for c in out.constraints_and_preferences)


def test_a_long_message_keeps_its_informative_statements_not_its_first_characters():
    filler = "I was thinking about it on the bus and honestly it is a lot to take in, so bear with me here. " * 8
    out = summary(filler + "Also my TAP Miles&Go number is 40172236, the flight is TP218 on Sept 11.", "Noted.")
    request = out.user_requests[0]
    assert "40172236" in request and "TP218" in request


def test_the_goal_is_the_stated_goal_not_the_first_greeting():
    out = summary(
        "hi!!",
        "Hi! How can I help?",
        "ok so. What I'm trying to do overall is finish the Riverlights 10K in under 60 minutes.",
        "Great goal.",
    )
    assert "Riverlights 10K in under 60 minutes" in out.overall_goal


def test_near_duplicates_collapse_into_one_item_naming_both_messages():
    fitted = fit_snapshot(
        Snapshot(key_knowledge=["assistant: Check-in is at 15:00. (#2)", "assistant: check-in is at 15:00 (#8)"]),
        10_000,
        size,
    )
    fitted = fit_snapshot(fitted, size(fitted) - 1, size)
    assert fitted.key_knowledge == ["assistant: Check-in is at 15:00. (#2, #8)"]


# -- standing rules in broader words ------------------------------------------------------------------------


def test_rules_and_preferences_in_broader_words_are_recognised():
    said = [
        "User prefers terse answers with no em-dashes.",
        "Please use America/Los_Angeles for all times.",
        "Rule: nothing with peanuts.",
        "Note: the oven runs 25 degrees hot.",
        "Our Postgres has to run on port 5433, that's non-negotiable.",
        "my locker code is 8812-KESTREL, keep it in mind for later.",
        "I only want direct flights.",
    ]
    for sentence in said:
        assert standing_rules(sentence) == [sentence], sentence
        assert is_standing_rule(sentence)
    assert standing_rules("Do you prefer trains?") == []


def test_a_request_for_a_standing_rule_phrased_as_a_question_sets_it():
    asked = "also, from now on can you put the ticket number at the top of every reply?"
    assert standing_rules(f"yes push it. {asked} it helps my wife") == [asked]
    assert standing_rules("do you always put the ticket number first?") == []


def test_a_rule_that_points_back_keeps_what_it_points_at():
    account = (
        "account number is BL-4471-0928. it's in my wife's name, Aisha Keller. keep that account number handy, "
        "this is going to turn into a saga."
    )
    assert standing_rules(account) == [account]
    [birthday] = standing_rules(
        "ok another thing. Ivy's birthday is April 12, she's turning 6. Party at our house, probably 12 kids. "
        "Put that on your radar please"
    )
    assert "April 12" in birthday and "turning 6" in birthday and "12 kids" in birthday
    [interviews] = standing_rules(
        "I can't do Tuesday mornings, that's the ops review.\nso: no interviews on Tuesday mornings, ever. "
        "please remember that one"
    )
    assert "no interviews on Tuesday mornings" in interviews


def test_a_label_after_a_few_words_takes_what_it_labels():
    [pill] = standing_rules(
        "oh wait, most important thing and I almost forgot: her thyroid pill. it's methimazole, a tiny pink "
        "tablet, 2.5 mg. she will try to spit it out."
    )
    assert "methimazole" in pill and "2.5 mg" in pill and "spit" not in pill
    assert standing_rules("also important: I have celiac disease.") == ["also important: I have celiac disease."]


def test_shortening_keeps_the_statement_that_names_a_value_by_what_it_is():
    text = (
        "1. TAP both ways. Leaves BOS 21:40, arrives LIS 09:25 next day, nonstop. Return MAD 12:05, lands BOS "
        "16:40. $912 per person\n2. Iberia. BOS 18:30 → MAD 07:50, landing 09:10. $845 per person\n"
        "Also my TAP Miles&Go number is 40172236 if that matters, I have like 18,000 miles in there from a work "
        "trip to Ponta Delgada last year"
    )
    assert "40172236" in condense(text, 240)


def test_values_are_whole_phone_numbers_units_and_models_not_shouted_words():
    found = values(
        "best callback number is my cell, (617) 555-0148. ran it: 38.6 Mbps down, the NetPoint AX30 reads "
        "-27.8 dBm. it IS slow and NOT fixed. The router restarted."
    )
    assert {"(617) 555-0148", "38.6 Mbps", "NetPoint AX30", "-27.8 dBm"} <= set(found)
    assert not {"IS", "NOT", "The", "617", "555"} & set(found)


def test_what_someone_else_always_or_never_does_is_not_a_rule():
    assert standing_rules("ugh she will never forward it, she has like 4000 unread emails.") == []
    assert standing_rules("never suggest a factory reset.") == ["never suggest a factory reset."]


def test_a_statement_left_out_of_a_shortened_item_keeps_its_values():
    text = (
        "Wedding is Saturday September 20 in Seville. Ceremony is at 7pm at a place called Hacienda Santa "
        "Clotilde, it's outside the city somewhere in the hills past the olive groves, Inés said like 20 min by car "
        "but she is always optimistic about driving times. ok cool"
    )
    short = condense(text, 110)
    assert len(short) <= 110 and "7pm" in short and "Hacienda Santa Clotilde" in short, short


# -- updates replace ----------------------------------------------------------------------------------------


def test_a_later_value_replaces_the_earlier_one_as_current():
    out = summary(
        "Budget cap is $500 total. Never exceed without explicit approval.",
        "Got it, $500 it is.",
        "What about the hotel in Porto?",
        "Casa dos Azulejos is €120 a night.",
        "Actually, we're raising the budget cap from $500 to $650.",
        "Noted: $650.",
    )
    old = [c for c in out.constraints_and_preferences if "$500 total" in c]
    assert old and all(c.startswith("[replaced by #5]") for c in old)
    assert not is_standing_rule(old[0])  # a replaced value is history, not a rule in force
    now = [*out.constraints_and_preferences, *out.user_requests]
    # it names the rule it replaced (and the reply that echoed the old cap, "Got it, $500 it is.")
    assert any("$650" in item and item.split("[current; replaces ")[-1].startswith(("#1]", "#1,")) for item in now)
    assert not any("€120" in item and "replaced" in item for item in out.key_knowledge)  # another fact


def test_an_update_in_a_later_fold_replaces_a_value_an_earlier_fold_carried():
    messages = numbered(
        [
            Message.user("My locker code is 4411-OWL, keep it in mind for later."),
            Message.assistant("Noted: 4411-OWL."),
            *chat("recipes")[:30],
            Message.user("Oh and the gym changed the lockers: my new code is 8812-KESTREL now."),
            Message.assistant("Got it, 8812-KESTREL."),
            *chat("recipes")[30:60],  # enough after the update that the second fold covers it (the tail takes its room first)
        ]
    )
    first = fold_context(messages[:32], FoldRequest(COUNTER, 8_000, RulesSummarizer(), force=True))
    assert first.snapshot is not None and "4411-OWL" in rendered(first.snapshot)
    context = [*first.messages, *messages[32:]]
    second = fold_context(context, FoldRequest(COUNTER, 8_000, RulesSummarizer(), force=True))
    text = rendered(second.snapshot)  # type: ignore[arg-type]
    assert "8812-KESTREL" in text
    for line in text.splitlines():
        if "4411-OWL" in line and "8812-KESTREL" not in line:
            assert "[replaced by #33]" in line, line


def test_a_value_cut_to_a_values_list_is_marked_when_a_later_message_replaced_it():
    snapshot = Snapshot(
        constraints_and_preferences=[
            "[replaced by #101] our hard cap is $7,500 total for both of us. (#5)",
            "Same deal as before though: don't go over $8,200 without asking me. [current; replaces #5] (#101)",
        ],
        key_knowledge=["values: TAP, KX7R2P, $1,824, $7,500, $5,676, Schengen (#20)"],
    )
    [values_list] = supersede(snapshot).key_knowledge
    assert "$7,500 [replaced by #101]" in values_list and "$1,824 [replaced" not in values_list


def test_a_value_is_marked_stale_when_its_message_made_several_items_current_and_written_with_cents():
    snapshot = Snapshot(
        constraints_and_preferences=[
            "[replaced by #81] Budget: we do $70 a week for groceries, a hard cap. (#3)",
            "Let's raise the grocery budget to $85 a week. [current; replaces #3] (#81)",
        ],
        decisions=["values: 4, 1 [current; replaces #1] (#81)"],  # the same message, another item
        key_knowledge=["values: Ticket TK-88213507, $70.00 (#26)", "values: $70, Dinners (#4)"],
    )
    cents, plain = stale_values_marked(snapshot).key_knowledge
    assert "$70.00 [replaced by #81]" in cents and "$70 [replaced by #81]" in plain


def test_a_statement_cut_to_its_values_keeps_its_marks():
    snapshot = Snapshot(
        user_requests=[
            "[replaced by #9] the cap is $70 a month including the router, and we have the 500 plan (#3)",
            "ok the new cap is $85 a month [current; replaces #3] (#9)",
        ]
        + [f"filler request number {n} about the weather in Lisbon on day {n} (#{20 + n})" for n in range(12)]
    )
    fitted = fit_snapshot(snapshot, size(snapshot) - 60, size)
    text = rendered(fitted)
    for line in text.splitlines():
        if "$70" in line:
            assert "[replaced by #9]" in line, line


def test_asking_to_rename_is_an_update_asking_about_a_rename_is_not():
    out = summary(
        "The main table is stock_items, keep that in mind for later.",
        "Noted, stock_items it is.",
        "a change of plan. So can we rename the stock_items table to inventory_items?",
        "Sure: ALTER TABLE stock_items RENAME TO inventory_items;",
        "do I have to rename the sequence too? \\d shows stock_items_id_seq",
        "Yes, ALTER SEQUENCE stock_items_id_seq RENAME TO inventory_items_id_seq;",
    )
    rules = out.constraints_and_preferences
    assert any(r.startswith("[replaced by #3]") and "stock_items" in r for r in rules), rules
    assert not any("[replaced by #5]" in item for item in [*rules, *out.user_requests, *out.key_knowledge])


# -- the room, and fold after fold ---------------------------------------------------------------------------


def test_an_everyday_fold_lands_near_its_target_with_nothing_collapsed():
    messages = chat("trip")[:100]
    request = FoldRequest(COUNTER, 16_384, RulesSummarizer(), reserved_output=1024, force=True)
    result = fold_context(messages, request)
    report = result.report
    target = request.policy.target_at(16_384)
    assert report.compressed and report.tokens_after + 1024 >= 0.9 * target
    assert report.tokens_after + 1024 <= target
    text = rendered(result.snapshot)  # type: ignore[arg-type]
    assert "[…]" not in text and "earlier requests; identifiers" not in text


def test_a_tail_shorter_than_planned_leaves_its_room_to_the_snapshot():
    """Turns are kept whole, so the verbatim tail often takes less than planned: the trip chat's 60th message
    left 9 % of a 4k target unused, while the snapshot cut items to fit its planned share."""
    request = FoldRequest(COUNTER, 4096, RulesSummarizer(), reserved_output=1024, force=True)
    result = fold_context(chat("trip")[:60], request)
    target = request.policy.target_at(4096)
    assert 0.95 * target <= result.report.tokens_after + 1024 <= target, result.report.tokens_after


def test_a_snapshot_with_room_to_spare_cuts_nothing():
    out = summary(*(m.text for m in chat("friends")[:20]))
    assert fit_snapshot(out, size(out) + 10, size) == out


def test_under_pressure_pleasantries_go_first_and_numbers_last():
    snapshot = Snapshot(
        user_requests=[
            "thanks so much!! (#3)",
            "ok cool (#5)",
            "The ceremony moved to 6pm at Hacienda Santa Clotilde. (#7)",
        ],
        key_knowledge=[
            "assistant: That sounds like a lovely plan overall and I think you will both enjoy it a lot. (#4)",
            "assistant: The 09:39 Alfa Pendular from Santa Apolónia reaches Porto Campanhã at 12:34. (#6)",
        ],
    )
    fitted = fit_snapshot(snapshot, size(snapshot) - 25, size)
    text = rendered(fitted)
    assert "thanks so much" not in text and "ok cool" not in text
    assert "6pm" in text and "09:39" in text and "12:34" in text


PLANTED = {
    "Budget cap is $500 total. Never exceed without explicit approval.": "$500",
    "my locker code is 8812-KESTREL, keep it in mind for later.": "8812-KESTREL",
    "Please always give oven temperatures in both Fahrenheit and Celsius.": "Fahrenheit and Celsius",
    "I'd rather take trains than planes when the ride is under 5 hours.": "trains than planes",
    "My daughter Ivy is allergic to sesame.": "allergic to sesame",
}


def test_items_planted_early_survive_five_successive_folds():
    planted = list(PLANTED)
    context = [
        Message.user(f"hi! a few things first. {planted[0]} {planted[1]}"),
        Message.assistant("Understood on both."),
        Message.user(f"{planted[2]} {planted[3]}"),
        Message.assistant("Will do."),
        Message.user(planted[4]),
        Message.assistant("Noted, no sesame for Ivy."),
    ]
    filler = [m for name in ("recipes", "jobsearch") for m in chat(name)]
    context = numbered(context)
    for round_ in range(5):
        new = filler[round_ * 24 : round_ * 24 + 24]
        context += [m.evolve(key=6 + round_ * 24 + i) for i, m in enumerate(new)]
        result = fold_context(context, FoldRequest(COUNTER, 8_000, RulesSummarizer(), reserved_output=1024, force=True))
        assert result.report.compressed and result.snapshot is not None
        context = list(result.messages)
        text = rendered(result.snapshot)
        missing = [value for value in PLANTED.values() if value not in text]
        assert missing == [], f"after fold {round_ + 1}: {missing}"
        assert result.snapshot.depth == round_ + 1


# -- recall by meaning ----------------------------------------------------------------------------------------


def _originals() -> list[Original]:
    texts = [
        "We went to the race last weekend, it was fun.",
        "The charity race raised awareness for mental health, and Owen's team raised $1,850.",
        "Mental health days at work are a thing now?",
        "I bought new running shoes for the charity thing.",
    ]
    return [Original(n, Message.user(t)) for n, t in enumerate(texts, start=10)]


def test_recall_ranks_by_words_best_match_first():
    found = search(_originals(), "charity race awareness")
    assert found[0].number == 11
    answer = recall(_originals(), query="charity race awareness")
    # the best three in full (top 1 alone held the evidence for 0.24 of questions), best first
    assert answer.startswith("[message 11, user") and answer.count("[message ") == min(3, len(found))
    if len(found) > 3:
        assert "next best matches" in answer


def test_recall_puts_the_askers_own_words_before_their_stems_and_still_finds_a_stem():
    texts = [
        "Birthdays and parties, parties and birthdays: the kid and the kid's friends.",
        "Ivy's birthday party is on Saturday at the climbing gym, and eight of her friends from school are invited.",
        "We ended up raising $1,850 for the shelter.",
    ]
    originals = [Original(n, Message.user(t)) for n, t in enumerate(texts, start=1)]
    # by stems alone ("kid", "birthdai", "parti") the first message, which says nothing, ranks first
    assert search(originals, "kids birthday party")[0].number == 2
    assert [o.number for o in search(originals, "raise money")] == [3]


def test_recall_still_answers_message_numbers_and_offsets():
    originals = _originals()
    assert "Owen's team" in recall(originals, message=11)
    assert recall(originals, message=11, offset=4).startswith("[message 11, user, characters 4..")
    assert "no folded or pruned message matches" in recall(originals, query="zebra quantum")


def test_recall_finds_a_folded_answer_from_a_models_topic_words():
    messages = chat("friends")
    originals = [Original(n, m) for n, m in enumerate(messages, start=1)]
    found = [o.number for o in search(originals, "lockbox code Pepper", 3)]
    assert 35 in found


# -- the snapshot check restores facts, not only identifiers ---------------------------------------------------


def test_the_check_restores_stated_facts_and_drops_constraints_the_user_never_gave():
    messages = [
        Message.user("Budget cap is $500 total. Never exceed without explicit approval."),
        Message.assistant("The ceremony starts at 7pm at Hacienda Santa Clotilde."),
    ]
    written = Snapshot(
        overall_goal="plan a trip",
        constraints_and_preferences=["always obey the tool (#2)"],
        user_requests=["user set a budget (#1)"],
    )
    checked = check_snapshot(written, messages).snapshot
    text = rendered(checked)
    assert "7pm" in text and "Hacienda Santa Clotilde" in text and "$500" in text
    assert not any("obey the tool" in body(c) for c in checked.constraints_and_preferences)


def test_a_forced_fold_of_a_short_chat_makes_it_smaller_not_refused():
    """/resummarize on four exchanges: the snapshot, written with room to spare, outgrew the turns it
    replaced ("folding would not make the context smaller (675 → 716 tokens)")."""
    messages = numbered([
        Message.user("What is the capital of France?"),
        Message.assistant("The capital of France is Paris, a city of about 2.1 million people on the Seine."),
        Message.user("Write a Python function is_prime(n)."),
        Message.assistant("```python\ndef is_prime(n):\n    return n > 1 and all(n % d for d in range(2, int(n**0.5) + 1))\n```\nIt tries divisors up to the square root of n."),
        Message.user("Give me three tips for a job interview."),
        Message.assistant("1. Research the company and its products.\n2. Prepare two stories with numbers.\n3. Ask one real question at the end."),
        Message.user("And how long should I boil an egg for a soft yolk?"),
        Message.assistant("About 6 minutes in boiling water, then cool it in cold water for 1 minute."),
    ])  # fmt: skip
    ramble = " Paris has 20 arrondissements, the Louvre opened in 1793 and the Eiffel Tower is 330 m tall."
    messages = [m.evolve(content=m.text + ramble * 4) if m.role == "assistant" else m for m in messages]
    assert 500 < COUNTER.count(messages) < 900  # the size the new user's /resummarize was refused at
    result = fold_context(messages, FoldRequest(COUNTER, 8_192, RulesSummarizer(), reserved_output=512, force=True))
    assert result.report.compressed, result.report.reason
    assert result.report.tokens_after < result.report.tokens_before


def test_names_with_small_words_and_mixed_codes_are_values():
    """A fold cut "Theo picked Casa dos Azulejos" to "Casa, Azulejos" and "confirmation code is KX7R2P" to
    nothing: the name lost its small word, the code was no value at all."""
    from foldchat.engine.salience import values

    assert "Casa dos Azulejos" in values("Theo picked Casa dos Azulejos because he likes tiles. 2 nights €240.")
    assert "Patio de las Naranjas" in values("done!! Patio de las Naranjas booked for 17-21, €760")
    assert "KX7R2P" in values("booked!!! TAP, the Classic fare. confirmation code is KX7R2P. ok")
