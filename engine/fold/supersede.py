"""Updates replace (docs/design.md §7): a later message that changes a value makes the earlier one history.

When a statement in a snapshot changes what an earlier item stated ("actually, raise the budget cap to
$650" after "Budget cap is $500 total"), the earlier item is marked `[replaced by #N]` (it stays, with
its message reference, so `recall` can bring back what was said, but it is no longer presented as
current and loses the protection of a standing rule) and the newer one says what it replaced. Applied
within one fold and across folds (an item carried from an earlier snapshot is compared like any other),
so a snapshot never presents both values as current.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

from ..facts import CURRENT_MARK, REPLACED_MARK, is_standing_rule
from ..references import body, numbers_in, rewrite, tag
from ..rule_pointers import NOTE, note, pointed, pointer_note, pointer_word, without_notes
from ..salience import SCAN_CHARS, joined, statements, values
from ..snapshot import Snapshot, with_sections
from ..updates import compared_values, core, has_update_cue, key_of, kind_of, replaces, said_as_old, topic
from .item_cuts import CURRENT_END, REPLACED_STATEMENT, VALUES

SECTIONS = ("constraints_and_preferences", "key_knowledge", "decisions", "user_requests")
MAX_UPDATES = 120
MAX_REPLACED = 5
"""Most messages one update may mark replaced. More is a guess (one `replaces` list named 124): when
unsure, both statements stay, with their message numbers, and no mark (docs/design.md §14)."""
UNIQUE_DIGITS = 6  # a value with this many digits (a phone, an account) names one thing wherever it is
MAX_ITEMS = 2000  # beyond this a snapshot is an agent log, not a chat: comparing every pair costs too much


NEWER_SECTIONS = ("user_requests", "constraints_and_preferences", "decisions")
"""Where updates come from: what the user (or the other speaker) said and decided; an assistant's long
explanation says "instead" and "now" too often to be read as changing a value. What the assistant says it
changed ("I have moved the reservation GP-7731 to 19:30") is one (`_DONE_CHANGE`)."""
_DONE_CHANGE = re.compile(
    r"\b(?:i(?:'ve| have)? (?:now )?(?:moved|changed|rebooked|rescheduled|updated|switched)|(?:is|has been) (?:now )?"
    r"(?:moved|changed|rebooked|rescheduled))\b[^.?!]{0,80}?\bto\b",
    re.I,
)


def supersede(snapshot: Snapshot) -> Snapshot:
    """`snapshot` with every statement a later item replaced marked as such (see the module docstring)."""
    items = [(name, i, item) for name in SECTIONS for i, item in enumerate(getattr(snapshot, name))]
    if len(items) > MAX_ITEMS:
        return snapshot
    updates = [(name, i, item) for name, i, item in items if _is_update_candidate(name, item)]
    # each is compared with every item: the newest updates, which earlier folds have not seen, are enough
    updates = sorted(updates, key=lambda update: max(numbers_in(update[2]), default=0))[-MAX_UPDATES:]
    if not updates:
        return snapshot
    lists = {name: list(getattr(snapshot, name)) for name in SECTIONS}
    said_by: dict[int, list[str]] = {}  # what each update message said changed: where a rule's "that" goes
    for name, i, newer in updates:
        at = max(numbers_in(newer), default=0)
        # the message says it changes something; its statements that carry a value are what changed
        # ("[replaced by #9]" says "replaced", a rule's note says "changed": a mark is not a cue)
        text = without_notes(_ANY_MARK.sub("", body(newer)))
        # "can we rename stock_items to inventory_items?" asks for the change: a question with a cue of its own
        said = [s for s in statements(text) if "?" not in s or _asks_to_change(s)] if has_update_cue(text) else []
        if name not in NEWER_SECTIONS:  # the assistant: only what it says it changed
            said = [s for s in said if _DONE_CHANGE.search(s)]
        said_by.setdefault(at, []).extend(said)
        replaced: set[int] = set()
        before = {k: list(v) for k, v in lists.items()}
        # a replaced statement shares a content word or a value with what replaces it (`replaces`): the others are
        # skipped before any pair is compared (a 1 MB chat made 1.2 million comparisons)
        said_topic = frozenset().union(*(topic(s) for s in said))
        said_values = frozenset().union(*(compared_values(s) for s in said))  # "replacing the $70 one"
        for other_name, j, older in items:
            older_at = max(numbers_in(older), default=0)
            if not said or (other_name, j) == (name, i) or not at or not older_at or older_at >= at:
                continue
            if body(older).startswith(VALUES):  # no words left: a value the update names as old, or by its key
                listed = tuple(body(older)[len(VALUES) :].split(", "))
                named_old = _named_as_old(said, listed) | _keyed_as_old(said, listed)
                marked = _values_marked(lists[other_name][j], named_old, at)
            elif not (topic(body(older)) & said_topic or compared_values(body(older)) & said_values):
                continue
            else:
                marked = _mark_replaced(lists[other_name][j], said, at)
            if marked != lists[other_name][j]:
                lists[other_name][j] = marked
                replaced.add(older_at)
        if len(replaced) > MAX_REPLACED:  # an update of dozens of messages is a guess: no mark at all
            lists, replaced = before, set()
        if replaced:  # a bare echo of a replaced value ("Noted: 4411-OWL.") goes with it
            stale = _stale_values(lists, at)
            for other_name, j, older in items:
                older_at = max(numbers_in(older), default=0)
                if older_at and older_at < at and (other_name, j) != (name, i):
                    lists[other_name][j] = _mark_echo(lists[other_name][j], stale, at)
        if replaced:
            shown = ", ".join(f"#{n}" for n in sorted(replaced))
            lists[name][i] = rewrite(lists[name][i], partial(_marked_current, shown=shown))
    lists["constraints_and_preferences"] = _rules_left_standing(lists["constraints_and_preferences"])
    lists["constraints_and_preferences"] = _rules_repointed(lists, said_by)
    return stale_values_marked(with_sections(snapshot, lists))


def _rules_left_standing(items: list[str]) -> list[str]:
    """A rule item part of which an update replaced, split in two: "[replaced by #17] Budget cap is $500
    total." is history, "Never exceed without explicit approval." still holds (whole, the item was history
    and the rule in it was lost with the old cap)."""
    out: list[str] = []
    for item in items:
        if not body(item).startswith(REPLACED_MARK):  # a rule item the mark does not open still stands whole
            out.append(item)
            continue
        parts = statements(body(item))
        old = [p for p in parts if p.startswith(REPLACED_MARK)]
        rest = joined([p for p in parts if not p.startswith(REPLACED_MARK)])
        if old and rest and is_standing_rule(rest):
            # "Please don't suggest anything over that." notes the value it pointed at, which the update changed
            rest = pointed(rest, [_ANY_MARK.sub("", p) for p in old])
            out += [tag(joined(old), numbers_in(item)), tag(rest, numbers_in(item))]
        else:
            out.append(item)
    return out


def _rules_repointed(lists: dict[str, list[str]], said_by: dict[int, list[str]]) -> list[str]:
    """The rules with a note on what their "that" stands for (`rule_pointers`): still standing (a mark the
    note's value put on the rule, which states none of its own, is taken off), the note following the value
    a later message made history: the value in force when that message names one of its kind, else a look."""
    rules = lists["constraints_and_preferences"]
    if not any(pointer_note(body(rule)) for rule in rules):
        return rules
    replaced = _replaced_values(lists)
    out = []
    for rule in rules:
        found = NOTE.search(body(rule))
        written = found.group(0).strip() if found else ""
        since = max([int(found.group("at") or 0), *numbers_in(rule)]) if found else 0
        changed = [at for at, stale, _ in replaced if found and at > since and core(found.group("value")) in stale]
        if found is not None and changed:
            at, word, was = max(changed), found.group("word"), found.group("value")
            new = _new_value(said_by.get(at, []), was)
            written = note(word, new, at) if new else note(word, None, at, was=was)
        out.append(rewrite(rule, partial(_repointed, found=found, written=written)))
    return out


def _repointed(text: str, found: re.Match[str] | None, written: str) -> str:
    """A rule's `text` with its note `found` written anew and the mark of a replaced value taken off, when
    its own words state no value (a rule that does is left as it is)."""
    if found is not None:
        text = f"{text[: found.start()]} {written}{text[found.end() :]}"
    unmarked = REPLACED_STATEMENT.sub("", text)
    return unmarked if pointer_word(without_notes(unmarked)) else text


def _new_value(said: list[str], old: str) -> str | None:
    """The one value `said` states of the kind of `old` that is neither `old` nor named as the old one ("raise
    the cap to $650, not $500"); None when there is none, or more than one."""
    kind = kind_of(core(old))
    new = {
        core(v): v
        for statement in said
        for v in values(statement)
        if kind_of(core(v)) == kind and core(v) != core(old) and core(v) not in said_as_old(statement)
    }
    return next(iter(new.values())) if len(new) == 1 else None


def stale_values_marked(snapshot: Snapshot) -> Snapshot:
    """`snapshot` with every older mention of a value a later message replaced marked as history.

    An item cut to its values ("values: TAP, $1,824, $7,500 (#20)") or an echo of the old value in another
    statement ("Remaining under the $7,500 cap") would present it as current beside the new one: in a
    values list the stale value is marked inline, a statement about the same thing is marked whole. Applied
    on every fold from what the marks say, so carried items and items cut later are covered too."""
    lists = {name: list(getattr(snapshot, name)) for name in SECTIONS}
    if sum(map(len, lists.values())) > MAX_ITEMS:  # an agent log, not a chat: `supersede` skipped it too
        return snapshot
    changed = False
    for at, stale, about in _replaced_values(lists):
        for name in SECTIONS:
            for j, item in enumerate(lists[name]):
                if max(numbers_in(item), default=at) >= at:
                    continue
                marked = (
                    _values_marked(item, stale, at)
                    if body(item).startswith(VALUES)
                    else _mark_statements(item, partial(_echoes, stale=stale, about=about), at)
                )
                if marked != item:
                    lists[name][j], changed = marked, True
    return with_sections(snapshot, lists) if changed else snapshot


def _echoes(statement: str, stale: frozenset[str], about: frozenset[str]) -> bool:
    """A statement naming a stale value about what the replaced statement was about, or naming anywhere a
    value that means one thing only: a renamed identifier ("ALTER TABLE stock_items" after the table became
    inventory_items), a phone or account number ("Luis will call (617) 555-0148")."""
    named = stale & compared_values(statement)
    return bool(named) and (bool(topic(statement) & about) or any(_unique(v) for v in named))


def _unique(value: str) -> bool:
    return "_" in value or sum(c.isdigit() for c in value) >= UNIQUE_DIGITS


def _replaced_values(lists: dict[str, list[str]]) -> list[tuple[int, frozenset[str], frozenset[str]]]:
    """For each message that replaced values: its number, the values it made history (of the kinds it
    changed, "from $500 to $650" makes "$500" stale), and the content words of what it replaced."""
    replaced: dict[int, list[str]] = {}
    current: dict[int, str] = {}
    listed: dict[int, set[str]] = {}  # values already marked stale in a values list: stale in every other one
    for items in lists.values():
        for item in items:
            for value, at in _MARKED_VALUE.findall(body(item)) if body(item).startswith(VALUES) else ():
                if _distinctive(value):
                    listed.setdefault(int(at), set()).add(value)
            if CURRENT_END.search(body(item)):  # one message may have made several items current
                at = max(numbers_in(item), default=0)
                current[at] = f"{current.get(at, '')} {CURRENT_END.sub('', body(item))}"
            for statement in statements(body(item)):
                found = REPLACED_STATEMENT.match(statement)
                if found:
                    replaced.setdefault(int(found.group(1)), []).append(statement[found.end() :])
    out = [(at, frozenset(stale), frozenset[str]()) for at, stale in listed.items() if at not in replaced]
    for at, olds in replaced.items():
        if at not in current:
            continue
        old_values = {v for old in olds for v in compared_values(old)}
        new = compared_values(current[at]) - old_values
        kinds = {kind_of(v) for v in new}
        renamed = _renames([v for v in values(current[at]) if core(v) not in old_values], olds)
        # "raising the cap from $7,500 to $8,200" names what it made history: $7,500, not the €480 of a
        # tally that also named the cap
        said_old = said_as_old(current[at])
        named_old = {v for v in old_values & said_old if kind_of(v) in kinds}
        of_kind = {v for v in old_values if kind_of(v) in kinds and kind_of(v) != "name"}
        # what the update states is current, though an older statement said it too (the new 6pm is the
        # old shuttle's 18:00); values listed stale only because their whole statement was (the booking
        # code beside the old cap) do not spread
        now = compared_values(current[at]) - said_old
        stale = frozenset(((named_old or of_kind) | (renamed & old_values)) - now)
        if stale:
            out.append((at, stale, frozenset().union(*(topic(old) for old in olds))))
    return out


def _distinctive(value: str) -> bool:
    """A value that means one thing wherever it is listed (7315, $160, `stock_items`), not a "1" or a name."""
    return len(value.strip("`")) >= 3 and any(c.isdigit() or c in "_$€£" for c in value)


_MARKED_VALUE = re.compile(rf"(?:^{VALUES}|, )([^,]+?) {re.escape(REPLACED_MARK)} #(\d+)\]")


def _renames(new: list[str], olds: list[str]) -> set[str]:
    """Identifiers of the replaced statements when the new ones are identifiers too (a table renamed)."""
    if not any("_" in v or "`" in v for v in new):
        return set()
    return {core(v) for old in olds for v in values(old) if "_" in v or "`" in v}


def _named_as_old(said: list[str], listed: tuple[str, ...]) -> frozenset[str]:
    """The listed values an update names beside a new value of their kind: "it's not 7315 anymore, the new
    code is 9046" makes 7315 of "values: 7315, 7am, 6pm" stale, and leaves the feeding times current."""
    stale: set[str] = set()
    for statement in said:
        named = compared_values(statement)
        changed_kinds = {kind_of(v) for v in named - {core(v) for v in listed}} - {"name"}
        old = said_as_old(statement)
        stale.update(v for v in listed if core(v) in old and kind_of(core(v)) in changed_kinds)
    return frozenset(stale)


def _keyed_as_old(said: list[str], listed: tuple[str, ...]) -> frozenset[str]:
    """The listed values whose key the update is about, beside a new value of their kind: "the ceremony
    is moved to 6pm now instead of the original time" makes "Ceremony: 7pm" stale, not "Wedding: Saturday"."""
    stale: set[str] = set()
    for statement in said:
        about, named = topic(statement), compared_values(statement)
        kinds = {kind_of(v) for v in named}
        for value in listed:
            key = key_of(value)
            same_kind = kind_of(core(value)) in kinds - {"name"} and core(value) not in named
            if key and topic(key) and topic(key) <= about and same_kind:
                stale.add(value)
    return frozenset(stale)


def _values_marked(item: str, stale: frozenset[str], at: int) -> str:
    """A values list with each stale value followed by `[replaced by #at]` (once)."""

    bare = {core(v) for v in stale}
    # `stock_items.id` and `list_stock_items` went with the table `stock_items` (a rename is a replace-all)
    names = "|".join(re.escape(b) for b in sorted(bare) if "_" in b)
    renamed = re.compile(rf"(?<![A-Za-z0-9])(?:{names})(?![A-Za-z0-9])") if names else None

    def is_stale(value: str) -> bool:
        return core(value) in bare or (renamed is not None and renamed.search(core(value)) is not None)

    def mark(text: str) -> str:
        listed = text[len(VALUES) :].split(", ")
        return VALUES + ", ".join(f"{v} {REPLACED_MARK} #{at}]" if is_stale(v) else v for v in listed)

    return rewrite(item, mark)


_CHANGE_REQUEST = re.compile(
    r"\b(?:can|could) (?:we|you)\b.{0,80}?\b(?:renam\w*|chang\w*|switch\w*|mov\w*|rais\w*|lower\w*|bump\w*|"
    r"push\w*|replac\w*)\b.{0,120}?\bto\b",
    re.I,
)


def _asks_to_change(statement: str) -> bool:
    """ "So can we rename the stock_items table to inventory_items?" asks for the change it names."""
    return _CHANGE_REQUEST.search(statement[:400]) is not None


_SPEAKER = re.compile(r"^(assistant(?: code)?: )")


def _mark_statements(item: str, stale: Callable[[str], bool], at: int) -> str:
    """`item` with each of its statements for which `stale` holds marked `[replaced by #at]`; the item
    itself when none is (a speaker prefix and the message reference stay where they are)."""

    def mark(text: str) -> str:
        speaker = _SPEAKER.match(text)
        prefix = speaker.group(1) if speaker else ""
        out = []
        for statement in statements(text[len(prefix) :]):
            replaced = not statement.startswith(REPLACED_MARK) and stale(statement)
            out.append(f"{REPLACED_MARK} #{at}] {statement}" if replaced else statement)
        return prefix + joined(out)

    marked = rewrite(item, mark)
    return marked if marked.count(REPLACED_MARK) > item.count(REPLACED_MARK) else item


def _mark_replaced(item: str, said: list[str], at: int) -> str:
    """`item` with each of its statements that one of `said` replaces marked."""
    return _mark_statements(item, lambda old: any(replaces(new, old, cue=True) for new in said), at)


def _stale_values(lists: dict[str, list[str]], at: int) -> set[str]:
    """Values of the statements just marked replaced by message `at` (read from the current lists)."""
    mark = f"{REPLACED_MARK} #{at}] "
    found: set[str] = set()
    for items in lists.values():
        for item in items:
            for statement in statements(body(item)):
                if mark in statement:
                    found.update(compared_values(statement.split(mark, 1)[1]))
    return found


def _mark_echo(item: str, stale: set[str], at: int) -> str:
    """`item` with each bare echo of a replaced value ("Noted: 4411-OWL.") marked with it."""

    def echo(statement: str) -> bool:
        said = compared_values(statement)
        return bool(said) and said <= stale and not topic(statement)

    return _mark_statements(item, echo, at) if stale else item


_ANY_MARK = re.compile(rf"{CURRENT_END.pattern}|{re.escape(REPLACED_MARK)} #\d+\] ?")


def _marked_current(text: str, shown: str) -> str:
    """`text` ending with one `[current; replaces …]` mark naming what it replaced, this time and before."""
    found = CURRENT_END.search(text)
    said = f"{found.group(1)} {shown}" if found is not None else shown
    numbers = sorted({int(n) for n in re.findall(r"#(\d+)", said)})
    earlier = sum(int(n) for n in re.findall(r"(\d+) earlier", said)) + max(0, len(numbers) - MAX_REPLACED)
    # across folds the list grows: it names the newest few, and counts the rest (recall finds them by number)
    named = ", ".join(f"#{n}" for n in numbers[-MAX_REPLACED:]) + (f" and {earlier} earlier" if earlier else "")
    return f"{text if found is None else text[: found.start()]} {CURRENT_MARK} {named}]"


def _is_update_candidate(name: str, item: str) -> bool:
    """A statement that may change a value: the user's, or one the assistant says it changed; not one
    replaced already, not a list of values (which states nothing, and whose own marks say "replaced")."""
    text = body(item)
    if text.startswith((REPLACED_MARK, VALUES)):
        return False
    if name in NEWER_SECTIONS and not text.startswith("assistant"):
        return True
    return text.startswith("assistant: ") and _DONE_CHANGE.search(text[:SCAN_CHARS]) is not None
