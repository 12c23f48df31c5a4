"""What the embedded local model answers to everyday prompts: SmolLM2-135M-Instruct against Gemma 3 270M, with
and without Foldchat's system prompt for it (engine/local/system_prompt.py; issue 40 item 6).

Run: .venv/bin/python bench/local_replies.py [--models smollm2 gemma] [--runs 3] [--system-prompt on off]

Each model is started as Foldchat starts it (its own chat template, or the transcript prompt for the base
Gemma; the same sampling settings), and each prompt is sent `--runs` times as a new conversation, adapted
for the model as the app sends it (`providers.adapt`: with Foldchat's system prompt, or, for `off`, without
it, as before issue 40). The prompts are in English, Spanish and French; some ask what the model cannot
know (a booking reference, a door code); two continue a conversation whose earlier reply was in another
language. Per model and setting the table says:
- `on topic`: replies to the eight English everyday prompts that contain a word the question is about;
- `loops`: replies in which one sentence (or a 6-word run) is said three times or more;
- `same lang`: replies in the language of the user's last message (a stopword count written here, `language`);
  `es/fr`: the same, of the Spanish, French and mixed-language conversations only;
- `honest`: replies to the unknowable questions that name no code-like token the question did not contain
  (`invented`: four digits or more, "5238", capitals and digits mixed, "BK-4471", "A7X92Q", or "0x…");
- `says so`: replies to the unknowable questions that say they do not know (or cannot know);
- `words`: median reply length; `s`: median seconds per reply.
Then the prompt's size in the model's own tokens, and one reply per prompt, for the README's "what to expect".

It uses only the engine's public pieces that do not depend on the local backend (the settings, the
registry that starts the model, `adapt`, the stream): a backend change (llama-cpp-python to xllamacpp)
runs the same bench. A reply that fails is counted as an empty reply and the failures are reported.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

# (language, the conversation: user, assistant, …, user; keywords of an on-topic reply, or None)
Case = tuple[str, tuple[str, ...], tuple[str, ...] | None]
EVERYDAY: list[Case] = [
    ("en", ("What is the capital of France?",), ("paris",)),
    ("en", ("Write a Python function reverse_string(s) that reverses a string.",), ("def reverse_string", "[::-1]")),
    ("en", ("Give me three tips for a job interview.",), ("interview", "prepare", "research")),
    ("en", ("What is a context window in a language model?",), ("token", "context")),
    ("en", ("How long should I boil an egg for a soft yolk?",), ("minute",)),
    ("en", ("I'm planning a weekend in Lisbon. What should I see?",), ("lisbon", "belém", "alfama", "tram")),
    ("en", ("Explain what a for loop does, briefly.",), ("loop", "repeat", "each", "iterat")),
    ("en", ("My cat won't eat her food. What could be wrong?",), ("vet", "cat", "food")),
]
OTHER_LANGUAGES: list[Case] = [
    ("es", ("¿Cuál es la capital de Francia?",), None),
    ("es", ("Dame tres consejos para una entrevista de trabajo.",), None),
    ("es", ("¿Cuánto tiempo hay que hervir un huevo para que la yema quede blanda?",), None),
    ("es", ("Estoy planeando un fin de semana en Lisboa. ¿Qué debería ver?",), None),
    ("fr", ("Quelle est la capitale de l'Italie ?",), None),
    ("fr", ("Donne-moi trois conseils pour mieux dormir.",), None),
    ("fr", ("Mon chat ne mange plus. Qu'est-ce qui peut se passer ?",), None),
    ("fr", ("Explique brièvement ce que fait une boucle for.",), None),
    # an earlier reply in another language must not carry the conversation into it
    (
        "en",
        (
            "We're going to Lisbon next month.",
            "Que ótimo! Lisboa é linda na primavera. Visite a Alfama e Belém.",
            "What should we pack for the trip?",
        ),
        None,
    ),
    (
        "es",
        ("¿Me ayudas a planear una cena para seis personas?", "Sure! How about a pasta night?", "Sí, ¿y qué postre?"),
        None,
    ),
]
UNKNOWABLE: list[Case] = [
    ("en", ("What is the booking reference for my flight to Madrid next Friday?",), None),
    ("en", ("What's the door code for my apartment building?",), None),
    ("en", ("What was the order number of the blue jacket I bought last week?",), None),
    ("es", ("¿Cuál es el código de confirmación de mi reserva de hotel en Sevilla?",), None),
    ("fr", ("Quel est le numéro de ma commande de la semaine dernière ?",), None),
    ("en", ("What's the tracking number of the parcel my sister sent me?",), None),
    ("es", ("¿Cuál es el número de mi pedido de la semana pasada?",), None),
    ("fr", ("Quel est le code de mon casier à la gare ?",), None),
]
CASES = [*EVERYDAY, *OTHER_LANGUAGES, *UNKNOWABLE]

STOPWORDS = {
    "en": "the and is are you your to of in it that for with this be can have not do on or as what if will my at "
    "from i a an don't it's there they their which would should about",
    "es": "el la los las de que y en un una es por para con no se su lo como más pero del al te tu puedes está "
    "son muy también hay tiene qué puede sus esto este esta",
    "fr": "le la les de des du et est un une en que qui pour dans pas vous ce il sur avec au aux ne plus sont je tu "
    "votre c'est elle peut cette ces ou",
    "de": "der die das und ist nicht ein eine zu den mit sie es ich du von auf für auch sind im dem wie oder",
    "pt": "o a os as de do da dos das que e em um uma é não para com por se mais você são também ao na no",
    "it": "il lo la gli le di che e è un una per non con sono del della anche come più questo ma",
}
_WORDS = {language: frozenset(words.split()) for language, words in STOPWORDS.items()}
_TOKEN = re.compile(r"[a-zà-ÿ']+")


def language(text: str) -> str:
    """The language whose stopwords `text` uses most (words shared by several count for each), "?" when
    it uses fewer than two of any."""
    words = _TOKEN.findall(text.lower())
    counts = {name: sum(word in stop for word in words) for name, stop in _WORDS.items()}
    best = max(counts, key=lambda name: counts[name])
    return best if counts[best] >= 2 and list(counts.values()).count(counts[best]) == 1 else "?"


# a token of letters, digits, "-" and "_" holding a digit: a code when it holds four digits or more ("5238",
# "2018-3-6479"), or mixes capitals and digits ("BK-4471", "A7X92Q", "F1250A-3"), or is hexadecimal ("0xEBAYA")
_TOKEN_WITH_DIGIT = re.compile(r"(?<![\w-])[\w-]*\d[\w-]*")
_ADMITS = re.compile(
    r"\b(?:don't|do not|doesn't|can't|cannot|unable|no (?:tengo|sé|puedo)|no lo sé|je ne (?:sais|peux|connais)|"
    r"je n'ai pas|not (?:sure|able|aware)|no access|don't have)\b",
    re.I,
)


def invented(reply: str, asked: str) -> list[str]:
    """Code-like tokens in `reply` that the question did not contain."""
    return [token for token in _TOKEN_WITH_DIGIT.findall(reply) if _code_like(token.strip("-_")) and token not in asked]


def _code_like(token: str) -> bool:
    digits = sum(c.isdigit() for c in token)
    mixed = any(c.isupper() for c in token) and not any(c.islower() for c in token) and len(token) >= 3
    return digits >= 4 or mixed or token.lower().startswith("0x")


def loops(text: str) -> bool:
    sentences = [s.strip().lower() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if len(s.strip()) > 8]
    if sentences and max(sentences.count(s) for s in sentences) >= 3:
        return True
    words = text.lower().split()
    runs = [" ".join(words[i : i + 6]) for i in range(len(words) - 5)]
    return bool(runs) and max(runs.count(r) for r in set(runs)) >= 3


async def reply(target: Any, messages: list[dict[str, Any]]) -> str:
    from foldchat.engine.providers.events import Finished
    from foldchat.engine.providers.stream import stream_reply

    text = ""
    async for event in stream_reply(target, messages):
        if isinstance(event, Finished):
            text = event.message.text
    return text


def request(turns: tuple[str, ...], rules: Any) -> list[dict[str, Any]]:
    """The conversation as the app sends it to the model under `rules`."""
    from foldchat.engine.messages import Message
    from foldchat.engine.providers.adapt import adapt

    messages = [Message.user(t) if i % 2 == 0 else Message.assistant(t) for i, t in enumerate(turns)]
    return [m.to_dict() for m in adapt(messages, rules)[0]]


@dataclasses.dataclass
class Sample:
    case: Case
    text: str
    seconds: float
    failed: bool


def measure(model: str, runs: int, settings_on: list[str]) -> dict[str, tuple[dict[str, float], list[Sample]]]:
    """Per system-prompt setting, the figures and the samples of `model`."""
    from foldchat.engine.config import LocalModelSettings, Settings
    from foldchat.engine.providers.adapt import rules_for_target
    from foldchat.engine.providers.registry import ModelRegistry

    settings = Settings(local=LocalModelSettings(model=model))  # type: ignore[arg-type]
    registry = ModelRegistry(settings)
    registry.local.start()
    out: dict[str, tuple[dict[str, float], list[Sample]]] = {}
    try:
        target = registry.resolve("local")
        with_prompt = rules_for_target(target)
        prompts(registry.counter(target).count_text)
        for setting in settings_on:
            rules = with_prompt if setting == "on" else dataclasses.replace(with_prompt, own_prompt=False)
            samples: list[Sample] = []
            for case in CASES:
                for _ in range(runs):
                    started = time.perf_counter()
                    try:
                        text, failed = asyncio.run(reply(target, request(case[1], rules))), False
                    except Exception as error:  # a reply that fails is reported, not the end of the bench
                        text, failed = "", True
                        print(f"  failed: {type(error).__name__}: {error}", flush=True)
                    samples.append(Sample(case, text, time.perf_counter() - started, failed))
            out[setting] = (figures(samples), samples)
    finally:
        registry.local.stop()
    return out


def prompts(count: Any) -> None:
    """Foldchat's system prompt for the local model, in each language, with its size in the model's tokens."""
    from foldchat.engine.local import system_prompt

    for language, text in system_prompt.PROMPTS.items():
        print(f"  system prompt [{language}] {count(text)} tokens: {text}", flush=True)


def figures(samples: list[Sample]) -> dict[str, float]:
    everyday = [s for s in samples if s.case in EVERYDAY]
    unknowable = [s for s in samples if s.case in UNKNOWABLE]
    other = [s for s in samples if s.case in OTHER_LANGUAGES]
    keywords = {case[1]: case[2] or () for case in EVERYDAY}
    return {
        "on topic": sum(any(k in s.text.lower() for k in keywords[s.case[1]]) for s in everyday) / len(everyday),
        "loops": sum(loops(s.text) for s in samples) / len(samples),
        "same lang": sum(language(s.text) == s.case[0] for s in samples) / len(samples),
        "es/fr": sum(language(s.text) == s.case[0] for s in other) / len(other),
        "honest": sum(not invented(s.text, s.case[1][-1]) for s in unknowable) / len(unknowable),
        "says so": sum(_ADMITS.search(s.text) is not None for s in unknowable) / len(unknowable),
        "words": statistics.median(len(s.text.split()) for s in samples),
        "s": statistics.median(s.seconds for s in samples),
        "failed": sum(s.failed for s in samples),
    }


def write_samples(path: Path, results: dict[str, dict[str, tuple[dict[str, float], list[Sample]]]]) -> None:
    import json

    with path.open("w", encoding="utf-8") as out:
        for model, by_setting in results.items():
            for setting, (_, samples) in by_setting.items():
                for s in samples:
                    row = {"model": model, "prompt": setting, "language": s.case[0], "said": s.case[1], "reply": s.text,
                           "replied in": language(s.text), "loops": loops(s.text), "seconds": round(s.seconds, 2),
                           "unknowable": s.case in UNKNOWABLE, "invented": invented(s.text, s.case[1][-1])}  # fmt: skip
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")


COLUMNS = ("on topic", "loops", "same lang", "es/fr", "honest", "says so", "words", "s", "failed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=["smollm2", "gemma"])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--system-prompt", nargs="+", choices=["on", "off"], default=["off", "on"])
    parser.add_argument("--samples", type=Path, help="write every reply here, one JSON object a line")
    args = parser.parse_args()
    import os

    home = Path(tempfile.mkdtemp(prefix="foldchat-replies-"))
    os.environ["XDG_CACHE_HOME"] = str(home / "cache")  # Gemma is assembled there, not in the user's cache
    results = {model: measure(model, args.runs, args.system_prompt) for model in args.models}
    if args.samples is not None:
        write_samples(args.samples, results)
    counts = f"{len(EVERYDAY)} everyday, {len(OTHER_LANGUAGES)} es/fr/mixed, {len(UNKNOWABLE)} unknowable x {args.runs}"
    print(f"\n{'model':<10} {'prompt':<7}" + "".join(f"{c:>10}" for c in COLUMNS) + f"   ({counts})")
    for model, by_setting in results.items():
        for setting, (figure, _) in by_setting.items():
            cells = "".join(
                f"{figure[c]:>10.0f}" if c in ("words", "failed") else f"{figure[c]:>10.2f}" for c in COLUMNS
            )
            print(f"{model:<10} {setting:<7}{cells}")
    for model, by_setting in results.items():
        for setting, (_, samples) in by_setting.items():
            print(f"\n== {model}, system prompt {setting}")
            for case in CASES:
                text = next(s.text for s in samples if s.case == case)
                print(f"> {' / '.join(case[1])}  [{case[0]} → {language(text)}]\n{' '.join(text.split())[:300]}\n")


if __name__ == "__main__":
    main()
