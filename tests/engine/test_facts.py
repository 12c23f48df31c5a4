"""Identifier patterns run in linear time (no backtracking on long hex or base64 runs) and find what they
found before on normal text."""

from __future__ import annotations

import re

from foldchat.engine import facts
from foldchat.engine.messages import parse_messages
from foldchat.engine.summarizers.base import SummaryRequest
from foldchat.engine.summarizers.pasted import split_pasted
from foldchat.engine.summarizers.rules import RulesSummarizer
from hypothesis import given, settings, strategies as st

# The e-mail, path and unit patterns before the fix: quadratic on long runs, kept here as the oracle.
OLD_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
WORDS = [
    "invoice",
    "PAY-4411",
    "2026-03-02",
    "v3.8.1",
    "src/app/main.py",
    "alice@example.com",
    "12 GB",
    "Priya Raman",
    "retry_count",
    "HttpClient",
    "$1,200",
    "/srv/app/conf.yaml",
    "the",
    "and",
    "README.md",
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=30), st.sampled_from([" ", ", ", "\n", " (", "; "]))
def test_normal_text_gives_the_same_emails_and_keeps_every_planted_identifier(words, separator):
    text = separator.join(words)
    found = facts.identifiers(text, limit=1000)
    assert list(dict.fromkeys(m.group(0) for m in OLD_EMAIL.finditer(text))) == [f for f in found if "@" in f]
    for word in set(words) - {"the", "and", "invoice"}:  # plain words are not identifiers
        assert any(word in f for f in found), (word, found)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["0123456789abcdef", "A+/=", ".", "@", "-", "1,", "a-", "a.", "a/", "a_"]))
def test_adversarial_runs_are_processed_at_a_size_that_used_to_hang(unit):
    text = unit * (40_000 // len(unit))  # 40 KB took 11–15 s before; the fold now needs a fraction of that
    facts.identifiers(text)
    facts.shorten(text, 300)


def test_pasted_readme_is_one_line_and_gives_no_constraints():
    readme = (
        "# breaktool\n\nList and manage breakpoints.\n\n## Usage\n\n```\nbreaktool [NAME]\n```\n\n"
        "Without argument, list all breaks.\nWith NAME, never stop at it.\n\n## Options\n\n"
        "    --all     show disabled breaks too\n    --json    machine output\n"
    )
    text = f"Here is the README of the tool:\n\n{readme}\nCan you explain the options? Always answer in French."
    s = RulesSummarizer().summarize(SummaryRequest(parse_messages([{"role": "user", "content": text}])))
    assert s.constraints_and_preferences == ["Always answer in French. (#1)"]
    assert "pasted document “breaktool”" in s.user_requests[0]
    own, pastes = split_pasted(text)
    assert "Without argument" not in own and len(pastes) == 1


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["0123456789abcdef", "QUJD+/==", "!?.,;:-_", ".", "@", "-", "a.-@", "a/b.", "1,"]),
    st.integers(min_value=facts.BLOB_CHARS, max_value=20_000),
    st.lists(st.sampled_from(WORDS[:12]), min_size=1, max_size=6),
)
def test_a_blob_is_skipped_and_the_identifiers_around_it_are_still_found(unit, size, planted):
    blob = (unit * (size // len(unit) + 1))[:size]
    text = f"{' '.join(planted)} {blob}\n{' '.join(reversed(planted))}"
    found = facts.identifiers(text, limit=1000)
    assert blob not in facts.without_blobs(text)
    assert all(len(token) < facts.BLOB_CHARS for token in found)
    for word in set(planted) - {"invoice"}:
        assert any(word in token for token in found), (word, found)
    # a long URL is no blob: it is kept whole
    url = "https://example.com/" + "a" * size
    assert url in facts.identifiers(f"see {url} now")


def _without_blobs_reference(text: str) -> str:
    """The definition: every run (of spaces or of non-spaces) of BLOB_CHARS+ characters, URLs aside, is one space."""
    import re

    from foldchat.engine.facts import BLOB_CHARS

    parts = re.split(r"(\s+)", text)
    return "".join(" " if len(p) >= BLOB_CHARS and not p.startswith(("http://", "https://")) else p for p in parts)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", " ", "\n", "http://", "x" * 199, "y" * 200, " " * 200, "é"]), max_size=12))
def test_without_blobs_is_its_definition(pieces):
    from foldchat.engine.facts import without_blobs

    text = "".join(pieces)
    assert without_blobs(text) == _without_blobs_reference(text)
