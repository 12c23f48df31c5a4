"""Foldchat's own system prompt for the embedded local model (docs/design.md §10; issue 40 item 6).

SmolLM2-135M drifted: it answered in Portuguese and Spanish for whole conversations, and it made up booking
codes it could not know. A short prompt goes first in every request to it, in the language of the user's
messages: "answer in Spanish", said in Spanish, is what keeps the model in Spanish. `bench/local_replies.py`
(3 runs, twice): in Spanish, French and language-switching conversations it answered in the user's language
0.59 of the time with the template's own English system line, 0.77 with this prompt; one English prompt
saying "answer in the user's language" did no better than none (trial variants, 15 replies each). A second
line says to answer "I don't know" rather than guess: it says so a little more often (0.02 -> 0.08) but
still makes up a code in about half its answers to what it cannot know; no wording tried changed that.
Short, because a model this small follows little and reads the prompt on every send: 24 to 46 tokens of
SmolLM2's vocabulary (English 24, German 46), in place of the template's own 16-token line.

The language is that of the newest user message that says clearly which (`language_of`: the small words
of six languages, counted); a message too short to tell ("ok!", "merci") keeps the one before, so the start
of the context (what the local server has read ahead, §10) changes only when the user changes language.
English when nothing tells.

`adapt` (providers/adapt.py) puts the prompt before the conversation's own system prompt, in the same system
message (one system turn is what a small model's template expects), the user's text after it, unchanged: the
later instruction is the one a model follows, so the user's wins where they disagree. Like every adaptation
it exists only in the request: the transcript keeps the user's system prompt as written, and the read-ahead
reads the same bytes the reply sends (it adapts the same way). Hosted models get none
(`Backend.own_system_prompt`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..messages import Message

PROMPTS = {
    "en": "You are a helpful assistant. Always answer in English. If you don't know something, say you don't know.",
    "es": "Eres un asistente útil. Responde siempre en español. Si no sabes algo, di que no lo sabes.",
    "fr": "Tu es un assistant utile. Réponds toujours en français. Si tu ne sais pas quelque chose, dis que tu ne "
    "sais pas.",
    "de": "Du bist ein hilfreicher Assistent. Antworte immer auf Deutsch. Wenn du etwas nicht weißt, sag, dass du "
    "es nicht weißt.",
    "pt": "Você é um assistente útil. Responda sempre em português. Se não souber algo, diga que não sabe.",
    "it": "Sei un assistente utile. Rispondi sempre in italiano. Se non sai qualcosa, di' che non lo sai.",
}
DEFAULT_LANGUAGE = "en"

# the small words each language uses most, a few shared (they count for each)
_SMALL_WORDS = {
    "en": "the and is are you what how my i it to of for with this that can do should please was have your a an be "
    "in on at me if not or from give would",
    "es": "el los las que qué es por para con una cómo cuál mi tengo puedo está hola gracias quiero y un del pero "
    "sí muy hay puedes cuánto dónde estoy hacer ayudas",
    "fr": "le les est une et je vous tu pour dans avec quel quelle mon ma mes pas ne bonjour merci c'est des du "
    "qu'est un moi ce au sur plus peux fait",
    "de": "der die das und ist ich nicht du sie ein eine mit für wie was mein bitte danke auf zu es kann",
    "pt": "o os que é não você um uma com para como meu minha obrigado olá do da em está eu pode ajudar",
    "it": "il che è non sono una per con come mio mia grazie ciao della sei gli perché un di puoi posso questo "
    "anche ho hai cosa",
}
_WORDS = {language: frozenset(words.split()) for language, words in _SMALL_WORDS.items()}
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
SURE_WORDS = 2  # a message shows its language with at least this many of its small words, more than any other
SCAN_CHARS = 600


def language_of(messages: Sequence[Message]) -> str:
    """The language of the newest user message that shows one clearly (`DEFAULT_LANGUAGE` when none does);
    Foldchat's snapshot message is not the user's."""
    for message in reversed(messages):
        if message.role == "user" and not message.is_snapshot:
            found = _language(message.text[:SCAN_CHARS])
            if found is not None:
                return found
    return DEFAULT_LANGUAGE


def _language(text: str) -> str | None:
    words = _WORD.findall(text.lower())
    counts = sorted(((sum(w in small for w in words), name) for name, small in _WORDS.items()), reverse=True)
    (best, name), (second, _) = counts[0], counts[1]
    return name if best >= SURE_WORDS and best > second else None


def local_system_prompt(messages: Sequence[Message]) -> str:
    """The prompt for a request holding `messages`: in the language of the user's messages."""
    return PROMPTS[language_of(messages)]


def with_system_prompt(messages: Sequence[Message], prompt: str) -> list[Message]:
    """`messages` starting with `prompt`: before the text of their first system message (kept whole after a
    blank line), or as a system message of its own when they have none."""
    if not prompt:
        return list(messages)
    if not messages or messages[0].role != "system":
        return [Message.system(prompt), *messages]
    first = messages[0]
    return [first.evolve(content=f"{prompt}\n\n{first.text}".rstrip()), *messages[1:]]
