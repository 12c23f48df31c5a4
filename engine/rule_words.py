"""Words that sound like a rule and may state none (docs/design.md §7, standing rules; issue 44 item 10).

A snapshot lists as standing rules what the user set for how the assistant should act or what must hold,
not a wish, an opinion or a description: "Theo wants to see Guernica." is a wish, "it's literally gluten
free cereal." describes a thing, "so I don't lose track" says what something is for. `facts.states_rule`
reads its rule words through these.
"""

from __future__ import annotations

import re

# What someone wants that holds as a rule: a want refused ("I don't want to pay more than…"), one asked of
# someone ("Dr. Haskell wants me to keep…", "she wants us home by 10"), or one bounded by what it allows
# ("wants everything separate and touching nothing", "wants nothing over $40"). Not what "you want" asks or
# allows ("what do you want", "if you want to"), nor a wish to do or have something ("wants to see Guernica").
WANT = (
    r"(?:don't|dont|do not|doesn't|does not|won't|will not|never) (?:really |just |even )?want\b|"
    r"(?<!\byou )(?<!\bwhat )(?<!\bif )\b(?:really |just |only )?wants? (?:(?:me|us)\b|(?!to know\b)"
    r"(?=[^.!?;\n]{0,80}?\b(?:no|not|nothing|never|only|every\w*|all|always|any(?:thing)?|without|instead|"
    r"avoid\w*|at (?:least|most)|under|over|below|above|less than|more than|max\w*|min\w*)\b))"
)

# "I'm bringing snacks so you don't have to worry", "I'll note it so I don't lose track": a purpose, no constraint
PURPOSE = re.compile(r"\bso (?:that )?(?:i|we|you|he|she|they|it) $", re.I)


# "3. Spanish allergy card", "Sun 14:00 lunch (vegetarian place)": a diet word in a pasted list line
# names a thing; "he's allergic to shellfish", "it needs to be gluten free" say what someone holds to
DIET = re.compile(r"allerg\w*|vegetarian|vegan|gluten|lactose|halal|kosher", re.I)
_SAID_OF_SOMEONE = re.compile(
    r"\b(?:i|i'm|me|us|please|we|we're|you|he|she|they|\w+'s|is|are|am|has|have|had|eats?|needs?|can't|cannot|"
    r"no|avoid|only|free)\b",
    re.I,
)


# "it's literally gluten free cereal", "a gluten-free loaf", "this is vegan cheese": a diet word describing a
# thing (its subject, or the noun right after it) says what the thing is, not what someone holds to
_DIET_WORD = r"(?:allerg\w*|vegetarian|vegan|gluten|lactose|halal|kosher)"
_DIET_NEEDED = re.compile(
    r"\b(?:needs?|has to|have to|must|should|only|no|never|avoid\w*|please|make sure|can't|cannot|strict\w*|keep)\b",
    re.I,
)
_DIET_OF_A_THING = re.compile(
    r"\b(?:it|this|that|these|those|the (?!kids?\b|boys?\b|girls?\b|family\b|guests?\b|children\b)\w+)"
    rf"(?:'s| is| was| are| were)(?: \w+)?(?: \w+)? {_DIET_WORD}\b",
    re.I,
)
_DIET_OF_SOMEONE = re.compile(
    r"\b(?:i'm|am|is|are|he's|she's|we're|they're|went|go|goes|going|gone|became|become|turned|stays?|staying)"
    rf"(?: \w+)?(?: \w+)? {_DIET_WORD}\b",
    re.I,
)
_DIET_BEFORE_A_NOUN = re.compile(
    rf"\b{_DIET_WORD}(?:[- ](?:free|friendly|full))? (?!(?:and|or|but|for|to|too|now|so|then|with|at|in|on|since|"
    r"because|forever|please|only|though|anymore|again|either|as|from|until|starting|is|was|are|were|if|unless|"
    r"when|while|except|the|a|an|my|our|his|her|their|me|us|him|them|you|all|too|by)\b)[^\W\d_]{2,}",
    re.I,
)


def holds_to_diet(text: str) -> bool:
    """Whether a diet word in `text` says what someone holds to ("Tom is vegetarian", "he's allergic to
    shellfish", "it has to be gluten free"), not what a thing is ("it's gluten free cereal")."""
    if _DIET_NEEDED.search(text):
        return True
    if _DIET_OF_A_THING.search(text):
        return False
    if _DIET_OF_SOMEONE.search(text):
        return True
    return not _DIET_BEFORE_A_NOUN.search(text) and _SAID_OF_SOMEONE.search(text) is not None
