"""What a fold keeps of one everyday statement: its values whole, its clauses that carry them, and no rule
read into words that only sound like one (long chats between friends, a family's meals, a job search)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from foldchat.engine import snapshot as snap
from foldchat.engine.facts import identifiers, is_constraint, is_pinned_rule
from foldchat.engine.fold.fit import fit_snapshot
from foldchat.engine.fold.item_cuts import values_only
from foldchat.engine.fold.supersede import stale_values_marked, supersede
from foldchat.engine.messages import Message, parse_messages
from foldchat.engine.references import body, numbers_in, rewrite
from foldchat.engine.rule_statements import standing_rules
from foldchat.engine.salience import clauses, condense, one_line, statements, values
from foldchat.engine.snapshot import Snapshot
from foldchat.engine.summarizers import RulesSummarizer
from foldchat.engine.summarizers.base import SummaryRequest
from foldchat.engine.tokens import LiteLLMCounter
from foldchat.engine.updates import has_update_cue

COUNTER = LiteLLMCounter("gpt-4o")
CHATS = Path(__file__).resolve().parents[3] / "bench" / "chats"

BUMP = (
    "ok I thought about it. the grinder is the right gift, Ana will actually use it every single day. I got paid "
    "a little extra for the textbook call thing, so let's bump the joint budget to $300 total, $150 each. that "
    "covers the grinder and the mugs. but $300 is the new ceiling, not a suggestion lol"
)


def size(candidate: Snapshot) -> int:
    return COUNTER.count_text(snap.render(candidate))


def test_ranges_fractions_and_percentages_are_values_whole():
    found = values(
        "Tip 5–10% at sit-down dinners. Leftovers keep 3 to 4 days; soak the chickpeas 8 to 12 hours and use "
        "1 1/2 cups of dry lentils. About 20% of the budget."
    )
    assert {"5–10%", "3 to 4 days", "8 to 12 hours", "1 1/2 cups", "20%"} <= set(found), found


def test_a_name_is_a_value_without_the_word_that_opened_the_sentence_and_with_its_title():
    found = values("Hey Mel, so it's a SALAD bowl. Because Theo said MY sister asked Dr. Haskell about it.")
    assert {"Mel", "Theo", "Dr. Haskell"} <= set(found), found
    assert not {"Hey Mel", "Because Theo", "MY"} & set(found), found
    assert "Hey Mel" not in identifiers("Hey Mel, how are you")


def test_an_update_cut_under_pressure_keeps_the_clause_with_its_new_value_and_no_mark_numbers():
    cut = rewrite(f"{BUMP} [current; replaces #7, #76] (#77)", values_only)
    assert "$300 total, $150 each" in cut, cut
    assert cut.endswith("[current; replaces #7, #76] (#77)"), cut
    assert "76," not in cut.split("[current")[0]


def test_a_statement_too_long_for_its_room_keeps_the_clauses_that_carry_a_value():
    statement = (
        "I got paid a little extra for the textbook call thing last week and the week before, so let's bump "
        "the joint budget to $300 total, $150 each and honestly that should be plenty for everyone involved"
    )
    short = condense(statement, 90)
    assert "$300 total, $150 each" in short and len(short) <= 100, short


def test_what_someone_has_or_may_have_done_always_or_never_is_not_a_rule():
    assert standing_rules("I've never broken an hour for a 10K.") == []
    assert standing_rules("He's always been curious about what's on the other side of things.") == []
    assert standing_rules("after this move I may never move again.") == []
    rule = "which brings me to a rule: you never bring up Dana in front of my mom."
    assert standing_rules(rule) == [rule]
    assert standing_rules("I never eat pork.") == ["I never eat pork."]


def test_words_that_only_sound_like_a_constraint_set_none():
    for chatter in ("a gluten-full one, don't worry, I'll wear gloves lol.", "ok here it is, don't laugh:",
                    "I don't know what that means but it sounds like money.", "I don't hate it, I LOVE it."):  # fmt: skip
        assert not is_constraint(chatter), chatter
    for rule in ("please don't improvise on this one", "never go over the cap without asking first",
                 "don't book anything before 8am"):  # fmt: skip
        assert is_constraint(rule), rule


def test_an_update_in_force_outlasts_every_other_item_under_pressure():
    snapshot = Snapshot(
        user_requests=[f"{BUMP} [current; replaces #7] (#77)"]
        + [
            f"we walked 3.5 miles on the River Scene Trail on day {n} with Pepper and Sam (#{80 + n})"
            for n in range(30)
        ],
        constraints_and_preferences=["[replaced by #77] the joint gift budget is $240 total, $120 each (#7)"],
    )
    fitted = fit_snapshot(snapshot, 160, size)
    text = snap.render(fitted)
    assert "$300 total" in text and "[current; replaces #7]" in text, text


def test_actually_as_an_adverb_and_a_mark_saying_replaced_change_nothing():
    assert not has_update_cue("she WILL try to spit it out, so watch her until she actually swallows.")
    assert has_update_cue("oh wait, actually the ceremony is at 6pm")
    snapshot = Snapshot(
        user_requests=[
            "the lockbox is on the side door, code 7315, and she eats at 7am and 6pm (#35)",
            "values: 7315 [replaced by #90], 7am, 6pm (#36)",
            "she gets her pill with the 6pm meal, watch her until she actually swallows, or she yowls at 3am (#37)",
        ]
    )
    assert supersede(snapshot) == snapshot


def test_an_update_that_names_the_old_value_replaces_it_and_a_news_update_replaces_no_rule():
    snapshot = supersede(
        Snapshot(
            constraints_and_preferences=[
                "one thing before we start — from now on use British spelling in anything you draft for me. (#3)",
                "I don't want to pay more than $70 a month before taxes, including the router. (#25)",
            ],
            user_requests=[
                "wait before thursday - Corvid Health update! They want a screening call on Tuesday at 10am. (#41)",
                "so new budget: I'm ok going up to $85 a month before tax, that's the new cap, replacing the $70 one."
                " (#83)",
            ],
        )
    )
    rules = snapshot.constraints_and_preferences
    assert rules[0].startswith("one thing before we start"), rules  # "update!" is news, "before" no topic
    assert rules[1].startswith("[replaced by #83]"), rules
    assert "[current; replaces #25]" in snapshot.user_requests[1]


def test_a_rule_that_states_its_own_value_does_not_take_the_lines_before_it():
    text = (
        "- mentor 2 junior analysts\n\nSkills: SQL, Python, Looker\n\n"
        "also btw my notice period at Fernhill is 8 weeks, which is annoyingly long, so keep that in mind"
    )
    assert standing_rules(text) == [
        "also btw my notice period at Fernhill is 8 weeks, which is annoyingly long, so keep that in mind"
    ]
    assert standing_rules("my locker code is 8812-KESTREL. please remember that one") == [
        "my locker code is 8812-KESTREL. please remember that one"
    ]


def test_what_did_not_happen_or_what_others_always_do_is_no_rule():
    assert standing_rules("never heard of Brightloom tbh.") == []
    assert standing_rules("they had a post about how most customers never open the forecast tab.") == []
    assert not is_constraint("never heard of Brightloom tbh.")


def test_a_cue_in_another_sentence_needs_more_than_one_long_word_in_common():
    snapshot = supersede(
        Snapshot(
            constraints_and_preferences=["I'd rather be hybrid, 2 days in the office max. (#13)"],
            user_requests=[
                "Priya said they're moving me to the hiring manager interview. Monday 24 Feb, 2pm, in person at "
                "their office, 4th floor, 3 Wellington Place. (#63)"
            ],
        )
    )
    assert not snapshot.constraints_and_preferences[0].startswith("[replaced"), snapshot


def test_a_multi_line_request_keeps_its_lines_apart_so_a_cut_keeps_the_one_with_the_number():
    text = (
        "ok flights. options on Google Flights for BOS to Lisbon on Sept 11:\n1. TAP both ways. $912 per person\n"
        "2. Iberia. $845 per person\n3. United nonstop to Lisbon, return via Newark. $1,060 per person, nope\n"
        "Also my TAP Miles&Go number is 40172236 if that matters"
    )
    flat = one_line(text)
    assert "\n" not in flat and "nope · Also my TAP" in flat
    assert "40172236" in condense(flat, 120)


def test_an_allergy_is_a_standing_rule_and_a_limit_in_time_a_preference():
    assert standing_rules("Hi! I'm Anna. Max has a severe peanut allergy.") == ["Max has a severe peanut allergy."]
    assert is_pinned_rule("Max has a severe peanut allergy. (#1)")
    assert standing_rules("No early starts before 8 please, the kids are grumpy. What should we do on day one?") == [
        "No early starts before 8 please, the kids are grumpy."
    ]
    assert standing_rules("Lily is obsessed with horses and Tom is vegetarian.") != []


def test_names_keep_their_small_words_in_other_languages():
    assert {"Haus des Meeres", "Apotheke zum Belvedere", "Museum of Modern Art"} <= set(
        values("Rainy day: Haus des Meeres. The Apotheke zum Belvedere is 200 m away, like the Museum of Modern Art.")
    )


def test_what_the_assistant_says_it_changed_replaces_the_booking_it_names():
    snapshot = supersede(
        Snapshot(
            key_knowledge=[
                "assistant: I reserved a table for 4 on 22 July at 19:00, confirmation number GP-7731. (#8)",
                "assistant: No problem, I have moved the Gasthaus Pöschl reservation GP-7731 to 19:30 on 22 July. (#20)",
                "assistant: Instead of the Prater, try the zoo at 9:00, the lions are fed at 10:00 now. (#22)",
            ]
        )
    )
    knowledge = snapshot.key_knowledge
    assert knowledge[0].startswith("assistant: [replaced by #20]"), knowledge
    assert "[current; replaces #8]" in knowledge[1], knowledge
    assert "[current" not in knowledge[2], knowledge  # "instead" and "now" in an explanation change nothing


def test_an_update_naming_the_old_value_marks_it_in_a_list_of_values_and_only_it():
    snapshot = supersede(
        Snapshot(
            key_knowledge=["values: 7315, 7am, 6pm (#35)", "values: 7315, Saturday (#36)", "values: 1, 7pm (#40)"],
            user_requests=[
                "BUT the code changed. my landlord changed the lockbox code after that break-in. it's not 7315 "
                "anymore, the new code is 9046. same lockbox, side door (#105)"
            ],
        )
    )
    listed = snapshot.key_knowledge
    assert listed[0] == "values: 7315 [replaced by #105], 7am, 6pm (#35)", listed  # the feeding times hold
    assert listed[1] == "values: 7315 [replaced by #105], Saturday (#36)", listed
    assert listed[2] == "values: 1, 7pm (#40)"
    assert "[current; replaces #35, #36]" in snapshot.user_requests[0], snapshot.user_requests


def test_a_value_marked_stale_in_one_list_is_stale_in_every_older_list_but_a_small_number_is_not():
    snapshot = stale_values_marked(
        Snapshot(
            key_knowledge=[
                "values: 7315 [replaced by #105], 1 [replaced by #105], 7am (#35)",
                "values: 7315, 1, Saturday (#36)",
                "values: 7315, the new one (#110)",
            ]
        )
    )
    assert snapshot.key_knowledge[1] == "values: 7315 [replaced by #105], 1, Saturday (#36)", snapshot.key_knowledge
    assert snapshot.key_knowledge[2] == "values: 7315, the new one (#110)"  # said after the update


def test_rows_counted_as_updated_change_nothing():
    assert not has_update_cue('fixed, constraint added, import ran: 0 new, 410 updated, 1 skipped (a row with "n/a")')
    assert has_update_cue("I updated the callback number to (617) 555-0193")


def test_a_rule_without_a_value_holds_to_the_one_before_it_across_a_question():
    said = (
        "Had my physical Friday. BP was 142/90 which, not great. Dr. Haskell wants me to keep sodium under "
        "2,000 mg a day and she'll recheck me in six weeks. Can you keep my portions under that? treat it as a "
        "hard limit for me. the rest of the family doesn't have to go low salt"
    )
    rules = standing_rules(said)
    assert rules == [
        "Dr. Haskell wants me to keep sodium under 2,000 mg a day and she'll recheck me in six weeks. Can you "
        "keep my portions under that? treat it as a hard limit for me."
    ], rules
    assert is_pinned_rule(f"{rules[0]} (#21)")


def test_preferences_held_in_so_many_words_are_pinned_whole():
    refund = (
        "I'd rather have it as a credit on the bill, not a check in the mail. checks get lost in our mailbox. "
        "and that goes for anything else you refund me on this whole thing too."
    )
    assert standing_rules(refund) == [refund]
    for said in (refund, "honestly I'd rather write raw SQL than use an ORM anyway",
                 "best callback number is my cell, (617) 555-0148 — please use that one and not the landline",
                 "the cap is $7/month total. Don't suggest anything over that without asking me first."):  # fmt: skip
        assert all(is_pinned_rule(rule) for rule in standing_rules(said)) and standing_rules(said), said


def test_the_constraints_share_drops_an_update_in_force_last():
    floor = "I'm raising my floor to £62,000 — I don't want to go below that anywhere now. [current; replaces #9] (#95)"
    # denser in values than the update: by salience alone they would stay and it would go
    dense = [f"must stay: £{n},400, 14:{n:02d}, 3 March, QX-{n}221, 12 pages (#{n})" for n in range(1, 10)]
    snapshot = Snapshot(
        constraints_and_preferences=[floor, *dense],
        user_requests=["what should I say to Priya on Thursday about the 19 March deadline? (#96)"],
    )
    fitted = fit_snapshot(snapshot, 300, size)
    assert floor in fitted.constraints_and_preferences, snap.render(fitted)


def test_values_are_whole_codes_dates_addresses_times_sizes_and_amounts_with_what_they_are_per():
    cases = {
        "The order number is ORD-5562-19, serial NPX30-3B8D-44LM, error E-214.": {
            "ORD-5562-19",
            "NPX30-3B8D-44LM",
            "E-214",
        },
        "go-live is Saturday March 29; the call is Tuesday 18 Feb at 10am": {"Saturday March 29", "Tuesday 18 Feb"},
        "pin postgres:16.4 and bind gunicorn to 127.0.0.1:8000": {"postgres:16.4", "127.0.0.1:8000"},
        "the window is 8:00 AM to 12:00 PM, hold 6:00/km": {"8:00 AM", "12:00 PM", "6:00/km"},
        "cap is $7/month, flights $912 per person, trains £2,900 a year": {
            "$7/month",
            "$912 per person",
            "£2,900 a year",
        },
        "get the 6-quart slow cooker and the 15-foot truck": {"6-quart", "15-foot"},
    }
    for text, expected in cases.items():
        assert expected <= set(values(text)), (text, values(text))
    assert not {"AM", "PM", "NPX30", "ORD-5562"} & {v for text in cases for v in values(text)}


def test_an_update_names_the_old_amount_in_fewer_words_than_it_was_stated_in():
    snapshot = supersede(
        Snapshot(
            key_knowledge=["values: $160 per week, 5:45, 45 minutes (#4)"],
            user_requests=["Let's raise the grocery budget to $185 a week, not $160 anymore. (#81)"],
        )
    )
    assert snapshot.key_knowledge == ["values: $160 per week [replaced by #81], 5:45, 45 minutes (#4)"], snapshot
    assert "[current; replaces #4]" in snapshot.user_requests[0]


def test_a_limit_in_force_that_replaced_a_pinned_rule_is_pinned_too():
    update = "She wants me at 1,500 mg of sodium a day now, not 2,000 anymore. [current; replaces #21] (#99)"
    assert is_pinned_rule(update)
    assert not is_pinned_rule("She wants me at 1,500 mg of sodium a day now, not 2,000 anymore. (#99)")
    assert not is_pinned_rule("the ceremony is moved to 6pm now [current; replaces #3] (#109)")  # no rule


def test_what_a_reply_set_up_in_passing_keeps_a_share_of_the_room_one_line_per_message():
    # the coding chat's first setup: a compose file, its image tag, the app's database user
    messages = parse_messages(json.loads((CHATS / "coding.json").read_text())["messages"])[:6]
    summary = RulesSummarizer().summarize(SummaryRequest(messages=messages))
    lines = [k for k in summary.key_knowledge if k.startswith("mentioned: ")]
    assert len(lines) == len({numbers_in(line)[0] for line in lines}), lines
    assert any("postgres:16.4" in line and "inv_app" in line for line in lines), lines
    crowded = replace(
        summary,
        user_requests=[
            f"we talked for ages about the weekend and how tired everyone was after the drive, day {n} (#{n + 10})"
            for n in range(60)
        ],
    )
    fitted = snap.render(fit_snapshot(crowded, 1200, size))
    assert "postgres:16.4" in fitted and "inv_app" in fitted, fitted


def test_a_definition_after_a_blank_line_in_a_reply_is_kept_whole_not_as_an_empty_line():
    reply = (
        'Add the route:\n\n```python\nfrom flask import Flask\n\n\n@app.get("/health")\n'
        "def health() -> dict[str, str]:\n    return {}\n```"
    )
    summary = RulesSummarizer().summarize(
        SummaryRequest(messages=[Message.user("add health"), Message.assistant(reply)])
    )
    code = [k for k in summary.key_knowledge if k.startswith("assistant code: ")]
    assert 'assistant code: @app.get("/health") (#2)' in code, code
    assert all(body(k).removeprefix("assistant code:").strip() for k in code), code


def test_a_few_words_pointing_back_hold_to_the_rule_before_and_keep_in_mind_that_is_a_rule():
    days = (
        "if so: it can only be Thursday or Friday — I'm in the office Monday to Wednesday and nobody's home. "
        "that's non negotiable sorry"
    )
    assert standing_rules(days) == [days]
    assert is_pinned_rule(f"{days} (#15)")
    table = "Can we keep that name? Just keep in mind that the main table is stock_items, not products."
    assert standing_rules(table) == ["Just keep in mind that the main table is stock_items, not products."]
    assert is_pinned_rule(f"{standing_rules(table)[0]} (#15)")


def test_every_time_is_no_time_two_statements_share():
    snapshot = supersede(
        Snapshot(
            constraints_and_preferences=[
                "So our Postgres has to run on port 5433, that's non-negotiable, I am not stopping the work one "
                "every time I switch. (#5)"
            ],
            user_requests=[
                "actually wait, yes remember me, Jess will be on the shop iPad and will hate typing a password "
                "every time (#47)"
            ],
        )
    )
    assert not snapshot.constraints_and_preferences[0].startswith("[replaced"), snapshot


def test_words_shouted_in_capitals_are_not_values_and_acronyms_still_are():
    shouted = 'I GAVE THE BAGEL TO A CHILD. THE LIGHTHOUSE KEEPER WAS HER MOTHER. FINALLY. "CELIAC — SEPARATE PREP"'
    assert values(shouted) == (), values(shouted)
    assert {"AWS S3", "GDPR", "NASA", "HTTPS", "TLS"} <= set(values("AWS S3, GDPR, NASA; HTTPS with TLS"))


def test_what_only_shares_a_day_a_cue_word_or_a_coffee_maker_replaces_nothing():
    snapshot = supersede(
        Snapshot(
            key_knowledge=[
                "Pill dish by the coffee maker, methimazole, 2.5 mg, with the 6pm meal. (#38)",
                "it's going to be so strange when you're not 12 minutes away anymore (#89)",
                "I finished Lantern Keepers on sunday. (#125)",
            ],
            user_requests=[
                "BUT the code changed. I'll be there at 9am with coffee and a label maker. it's not 7315 anymore, "
                "the new code is 9046. (#105)",
                "sunday call got moved to text because I'm at the vet for Pepper's yearly checkup. (#129)",
            ],
        )
    )
    assert not any("[replaced" in item for item in snapshot.key_knowledge), snapshot.key_knowledge


def test_call_me_friday_is_no_name_a_bullet_is_not_doubled_and_a_gap_is_one_mark():
    assert standing_rules("call me friday") == []
    assert standing_rules("Call me Ishmael.") == ["Call me Ishmael."]
    summary = RulesSummarizer().summarize(
        SummaryRequest(messages=[Message.user("ok details:\n- she'll hide under the bed, don't try to pull her out")])
    )
    assert not any(body(c).startswith("- ") for c in summary.constraints_and_preferences), summary
    cut = clauses(
        "I'll be there at 9am with coffee and a label maker. … it's not 7315 anymore, the new code is 9046. same "
        "lockbox, side door, and more words here to make it long enough",
        90,
    )
    assert "… …" not in cut and "9046" in cut, cut


def test_what_you_want_asked_back_is_no_preference_and_a_bounded_want_is():
    """What someone wants to do is a wish, not a rule (issue 44 item 10: "Theo wants to see Guernica." was
    listed as one); a want bounded by what it allows, or asked of someone, holds."""
    for chatter in ("also I owe you, what do you want.", "if you want to come by, great", "I want to know why",
                    "Marco wants to see who changed the count"):  # fmt: skip
        assert standing_rules(chatter) == [], chatter
    for wish in ("she wants everything separate and touching nothing", "Dr. Okafor wants me to rest my knee"):
        assert standing_rules(wish) == [wish], wish


def test_a_rule_beside_a_replaced_value_keeps_standing():
    """From a trial: raising the cap made "Budget cap is $500 total. Never exceed without explicit approval."
    history whole, and the rule never to exceed it without approval was gone."""
    snapshot = supersede(
        Snapshot(
            constraints_and_preferences=["Budget cap is $500 total. Never exceed without explicit approval. (#3)"],
            user_requests=["actually raise the budget cap to $650 (#17)"],
        )
    )
    rules = snapshot.constraints_and_preferences
    assert "[replaced by #17] Budget cap is $500 total. (#3)" in rules, rules
    assert "Never exceed without explicit approval. (#3)" in rules and is_pinned_rule(rules[1]), rules


BOOKED = """**Ticket TK-88213507**

You're booked. Here are the details:

- **Date:** Thursday, March 7
- **Window:** 8:00 AM to 12:00 PM
- **Technician:** Luis Ortega
- **Appointment ID:** APT-30718
"""


def test_a_replys_list_fields_stay_statements_of_their_own():
    from foldchat.engine.summarizers.replies import stated

    kept = stated(BOOKED, 500)
    assert "Window: 8:00 AM to 12:00 PM" in statements(kept)
    assert "Technician: Luis Ortega" in statements(kept)
    assert "Luis Ortega Appointment" not in values(kept)  # two fields no longer run into one name
    assert "Appointment ID: APT-30718" in condense(kept, 60)  # a cut keeps a field whole, not a run-on


def test_a_list_number_and_a_gap_mark_are_not_statements_and_an_amount_starts_one():
    flights = one_line("Return MAD 12:05, lands BOS 16:40. $912 per person\n2. Iberia. BOS 18:30 → MAD 07:50.")
    assert statements(flights) == [
        "Return MAD 12:05, lands BOS 16:40.",
        "$912 per person",
        "Iberia.",
        "BOS 18:30 → MAD 07:50.",
    ]
    cut = "… $845 per person … Also my TAP Miles&Go number is 40172236 if that matters, …"
    assert statements(cut) == ["$845 per person", "Also my TAP Miles&Go number is 40172236 if that matters,"]
    assert "40172236" in condense(f"Return MAD 12:05, … lands BOS 16:40. $912 per person {cut}", 80)


def test_a_renamed_tables_columns_go_with_it():
    items = Snapshot(
        key_knowledge=["values: `qty`, `stock_items.id`, `users`, list_stock_items, stock_itemsx (#44)"],
        user_requests=[
            "[replaced by #85] Just keep in mind that the main table is stock_items, not products. (#15)",
            "So can we rename the stock_items table to inventory_items? [current; replaces #15] (#85)",
        ],
    )
    marked = stale_values_marked(items).key_knowledge[0]
    assert "`stock_items.id` [replaced by #85]" in marked and "`qty`," in marked and "`users`," in marked
    assert "list_stock_items [replaced by #85]" in marked and "stock_itemsx (#44)" in marked


def test_a_value_cut_from_its_statement_keeps_its_key_and_still_goes_stale():
    cut = rewrite("the lockbox is on the side door by the recycling bins, code 7315. Seat 4 is ours (#35)", values_only)
    assert cut.startswith("values: code: 7315") and "Seat: 4" in cut
    later = Snapshot(
        key_knowledge=[cut],
        user_requests=["it's not 7315 anymore, the new code is 9046 (#105)"],
    )
    assert "code: 7315 [replaced by #105]" in supersede(later).key_knowledge[0]


def test_a_value_the_statement_denies_keeps_the_words_that_deny_it():
    """"values: 23 May, 22 May" of "We come back on 23 May, not 22 May" read as two dates (a new user's fold)."""
    assert values_only("We come back on 23 May, not 22 May.") == "values: 23 May, not 22 May"
    assert values_only("Use the code QX-7315 instead of QX-7314.") == "values: code: QX-7315, instead of QX-7314"
    assert values_only("The museum pass costs 42 euros.") == "values: 42 euros"  # nothing denied: as before
    # the denied value read where it stands, not inside the right one ("3 May" is also the tail of "23 May")
    assert values_only("We come back on 23 May, not 3 May.") == "values: 23 May, not 3 May"
    assert values_only("Flight lands at 11pm, not 1pm.") == "values: 11pm, not 1pm"
    assert values_only("Tuesday 14, not 15") == "values: Tuesday"  # a bare small number goes, denied or not


def test_bare_small_numbers_leave_a_values_cut_unless_nothing_else_is_left():
    assert values_only("Bring 2 adapters and 1 spare, Type F plugs at 230 V") == "values: Type F, 230 V"
    assert values_only("we need 2") == "values: 2"


def test_a_value_listed_in_many_lists_is_told_once_in_the_oldest():
    from foldchat.engine.fold.item_cuts import listed_once

    lists = {
        "key_knowledge": [
            "values: Porto, Casa dos Azulejos, €240 (#49)",
            "values: Porto, 11:39 (#47)",
            "values: Porto, Quinta do Corvo, €25 (#51)",
            "values: Porto, €240 (#56)",
            "values: Porto (#60)",
            "values: Porto, $7,500 [replaced by #70] (#61)",
        ],
        "user_requests": ["we fly from Porto on the 17th (#55)"],
    }
    out = listed_once(lists)["key_knowledge"]
    assert "values: Porto, 11:39 (#47)" in out  # said in the oldest list only
    assert "values: Casa dos Azulejos, €240 (#49)" in out and "values: Porto, €240 (#56)" not in out
    assert "values: €240 (#56)" in out  # listed twice: both stay
    assert all("(#60)" not in item for item in out)  # nothing of its own left
    assert "values: $7,500 [replaced by #70] (#61)" in out
    assert listed_once(lists)["user_requests"] == lists["user_requests"]  # statements are not lists


def test_an_item_cut_short_keeps_its_values_when_its_statements_would_lose_them():
    from foldchat.engine.fold.item_cuts import condensed

    wedding = (
        "Wedding is Saturday September 20 in Seville. Ceremony is at 7pm at a place called Hacienda Santa "
        "Clotilde, it's outside the city somewhere, Inés said like 20 min. … (Sept 11, Sept 25) … idk. (30s)"
    )
    cut = condensed(wedding, 120)
    assert len(cut) <= 120
    assert all(v in cut for v in ("Saturday September 20", "7pm", "Hacienda Santa Clotilde", "Sept 25"))
    roomy = condensed(wedding, 190)  # with room for the statements that hold the values, words stay
    assert roomy.startswith("Wedding is Saturday September 20 in Seville.") and "Hacienda Santa Clotilde" in roomy


def test_a_diet_word_in_a_pasted_list_line_is_no_rule_and_said_of_someone_is():
    itinerary = "Packing:\n3. Spanish allergy card\nSun 14:00 lunch (vegetarian place)\nI never know in Europe"
    assert standing_rules(itinerary) == []
    assert not is_constraint("I never know in Europe")
    assert standing_rules("vegetarian for me, and Theo is allergic to shellfish") != []


def test_an_update_about_a_listed_values_key_replaces_it_without_naming_the_old_value():
    wedding = rewrite(
        "Wedding is Saturday September 20 in Seville. Ceremony is at 7pm at a place called Hacienda Santa "
        "Clotilde. (#3)",
        values_only,
    )
    assert "Ceremony: 7pm" in wedding and "Wedding: Saturday September 20" in wedding
    later = Snapshot(
        key_knowledge=[wedding],
        user_requests=["ugh. plot twist. the ceremony is moved to 6pm now instead of the original time (#109)"],
    )
    marked = supersede(later).key_knowledge[0]
    assert "Ceremony: 7pm [replaced by #109]" in marked
    assert "Wedding: Saturday September 20," in marked  # another key, another kind: still current


def test_a_values_list_cut_short_keeps_whole_entries_keyed_first():
    from foldchat.engine.fold.item_cuts import condensed

    listed = "values: Wedding: Saturday September 20, Seville, Hacienda Santa Clotilde, Ceremony: 7pm, Inés, 20 min"
    cut = condensed(listed, 64)
    kept = cut.removeprefix("values: ").split(", ")
    assert len(cut) <= 64 and set(kept) < set(listed.removeprefix("values: ").split(", "))
    assert {"Wedding: Saturday September 20", "Ceremony: 7pm", "20 min"} <= set(kept)


def test_code_naming_a_renamed_table_is_history_wherever_it_is():
    items = Snapshot(
        key_knowledge=["assistant code: ALTER TABLE stock_items ADD CONSTRAINT sku_format (#16)"],
        user_requests=[
            "[replaced by #85] Just keep in mind that the main table is stock_items, not products. (#15)",
            "So can we rename the stock_items table to inventory_items? [current; replaces #15] (#85)",
        ],
    )
    assert stale_values_marked(items).key_knowledge[0].startswith("assistant code: [replaced by #85] ALTER TABLE")


def test_false_updates_from_a_users_trial_replace_nothing():
    from foldchat.engine.updates import core, kind_of, replaces

    assert core("1am") == core("01:00") and core("7pm") == "19:00" and core("22") == "22"
    # a phone number replaces a phone number, not the ticket said beside it
    assert kind_of("(617) 555-0148") == kind_of("(617) 555-0193") != kind_of("TK-88213507")
    assert not replaces(
        "from now on the callback number is (617) 555-0193.", "I opened ticket TK-88213507 for this case."
    )
    # a cue in someone's quoted words changes nothing
    assert not replaces('also the 1am shuttle is happening, he says he\'s "not 22 anymore" lol', "shuttle at 22")
    # "the original time" and "closer to the time" share only the kind of value, not what it is of
    assert not replaces(
        "the ceremony is moved to 6pm now instead of the original time",
        "I'll book the 16:00 at Quinta do Corvo closer to the time.",
    )
    assert not replaces("Update from Granada: Theo made it to the 04:30 shuttle.", "the shuttle leaves at 17:00")
    # a name for a name only when switched: moving someone on names no replacement
    assert not replaces(
        "Priya said they're moving me to the hiring manager interview with Dev Malhotra, Head of Product.",
        "Perfect, your interview with Lena Vasquez at Tessellate is the product manager one.",
    )
    assert replaces(
        "can we switch the Seville hotel to Patio de las Naranjas instead?", "our Seville hotel is Casa Bécquer Arenal."
    )


def test_a_stale_phone_number_is_history_wherever_it_is_said():
    items = Snapshot(
        key_knowledge=["assistant: Luis will call (617) 555-0148 about 30 minutes before he's on his way. (#48)"],
        constraints_and_preferences=[
            "[replaced by #99] best callback number is my cell, (617) 555-0148, please use that one. (#5)"
        ],
        user_requests=["from now on the callback number is (617) 555-0193. [current; replaces #5] (#99)"],
    )
    assert "[replaced by #99] Luis will call" in stale_values_marked(items).key_knowledge[0]


def test_requests_left_out_are_counted_across_folds_though_their_reference_shows_a_few():
    from foldchat.engine.fold.fit import left_out_merged

    earlier = "44 requests left out of this snapshot (recall them by number) (#1, #3, …, #161)"
    merged = left_out_merged([earlier, "hello (#170)"], [171, 172])
    assert merged[0].startswith("46 requests left out") and merged[1] == "hello (#170)"
    assert left_out_merged(["hello (#170)"], [171])[0] == "1 request left out of this snapshot (recall them by number) (#171)"


def test_an_aside_in_brackets_does_not_end_a_statement():
    said = (
        "Theo got a retention bonus (finally!!! after 2 years of short staffing) and we're raising the cap to $8,200."
    )
    assert statements(said) == [said]
    # a bracket never closed (code, a smiley) does not swallow the statements after it
    assert statements("Call f( with 2 args. Next thing. Last.") == ["Call f( with 2 args.", "Next thing.", "Last."]


def test_a_place_named_of_the_something_is_one_value():
    found = values("we saw the Court of the Lions and the Hall of the Ambassadors after lunch")
    assert found == ("Court of the Lions", "Hall of the Ambassadors")


def test_an_update_makes_history_of_what_it_names_as_old_not_of_everything_beside_it():
    items = Snapshot(
        key_knowledge=[
            "values: TAP, KX7R2P [replaced by #101], $1,824 [replaced by #101], $7,500 [replaced by #101] (#20)",
            "values: $1,824, Classic, code: KX7R2P (#19)",
            "values: siesta: 15:00, 18:00, €20 (#28)",
            "booked Casa Alecrim for Sept 12-15, 3 nights, €480 total. (#33)",
        ],
        constraints_and_preferences=["[replaced by #101] our hard cap is $7,500 total for both of us. (#5)"],
        user_requests=[
            "[replaced by #109] Ceremony is at 7pm, the shuttle leaves at 18:00. (#3)",
            "assistant: [replaced by #109] 18:00 departure gets you there for a 19:00 ceremony. (#70)",
            "we're raising the cap from $7,500 to $8,200. [current; replaces #20] (#101)",
            "the ceremony is moved to 6pm now instead of the original time [current; replaces #3] (#109)",
        ],
    )
    marked = stale_values_marked(items)
    assert marked.key_knowledge[1:] == items.key_knowledge[1:]  # the booking code, the siesta's 18:00, €480
    from foldchat.engine.updates import core, said_as_old as _said_as_old

    assert core("7315") in _said_as_old("it's not 7315 anymore, the new code is 9046")
    assert core("stock_items") in _said_as_old("So can we rename the stock_items table to inventory_items?")
    assert core("6pm") not in _said_as_old("the ceremony is moved to 6pm now")


def test_a_rule_said_three_times_is_carried_once_and_the_old_rules_stay():
    rules = [
        "Leo has a peanut allergy, anaphylaxis, we carry an EpiPen. (#1)",
        "Never suggest anything with peanuts. (#3)",
        "Please keep Leo's peanut allergy in mind for every recipe. (#139)",
        "please keep Leo's peanut allergy in mind for every recipe (#141)",
        "Please keep Leo's peanut allergy in mind for every recipe! (#143)",
    ]
    once = [*rules[:2], "Please keep Leo's peanut allergy in mind for every recipe. (#139, #141, #143)"]
    budget = size(Snapshot(constraints_and_preferences=once))
    assert size(Snapshot(constraints_and_preferences=rules)) > budget  # said three times, they would not fit
    assert fit_snapshot(Snapshot(constraints_and_preferences=rules), budget, size).constraints_and_preferences == once


def test_an_update_replaces_the_line_that_held_the_old_value_not_the_lines_beside_it():
    details = (
        "she judges everyone, it's not personal. ok details:\n"
        "- the lockbox is on the side door by the recycling bins, code 7315\n"
        "- she gets half a can of the salmon pâté at 7am and the other half at 6pm"
    )
    reply = "Saving this in my notes:\n- Side door lockbox, code 7315\n- Half a can at 7am, the other half at 6pm"
    messages = parse_messages(
        [
            {"role": "user", "content": details},
            {"role": "assistant", "content": reply},
            {"role": "user", "content": "it's not 7315 anymore, the new code is 9046."},
        ]
    )
    summary = RulesSummarizer().summarize(SummaryRequest(messages=messages))
    said = [*summary.user_requests, *summary.key_knowledge]
    lockbox = [s for item in said for s in statements(body(item)) if "7315" in s and "9046" not in s]
    feeding = [s for item in said for s in statements(body(item)) if "7am" in s]
    assert lockbox and all("[replaced by #3] " in s for s in lockbox)
    assert feeding and not any("replaced" in s for s in feeding)


def test_a_slot_word_naming_another_thing_links_no_update():
    from foldchat.engine.updates import replaces

    bump = "so let's bump the joint budget to $300 total, $150 each."
    assert not replaces(bump, "Sam found a $109 round trip on a budget airline in November.")
    assert replaces(bump, "so the joint gift budget is $240 total, $120 each")
