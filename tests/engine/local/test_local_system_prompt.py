"""Issue 40 item 6: the embedded model drifted into Portuguese and Spanish and invented booking codes. Every
request to it starts with Foldchat's short system prompt, in the language of the user's messages (answer in
that language, say "I don't know" rather than guess); the user's own system prompt is kept word for word
after it, so it wins where they disagree; hosted models get none; nothing of it is stored."""

from __future__ import annotations

from dataclasses import replace

import pytest
from foldchat.engine import OpenOptions, Session
from foldchat.engine.config import ModelAlias, Settings
from foldchat.engine.local.system_prompt import PROMPTS, language_of
from foldchat.engine.messages import Message
from foldchat.engine.providers.backend import EMBEDDED, PROVIDER
from foldchat.engine.providers.target import ModelTarget
from hypothesis import given, settings, strategies as st

from servers.fake_openai import FakeOpenAI

USER_PROMPT = "You are a terse travel agent. Always answer in French."


@pytest.fixture
def fake():
    server = FakeOpenAI().start()
    yield server
    server.stop()


def local_target(fake) -> ModelTarget:
    """The local model as the session reaches it, here served by the loopback fake."""
    return ModelTarget(
        name="local", litellm_model="openai/foldchat-local", window=8192, api_base=fake.base_url,
        max_output_tokens=512, backend=EMBEDDED, temperature=0.7, api_key="session-key",
    )  # fmt: skip


def open_session(fake, tmp_path, monkeypatch) -> Session:
    monkeypatch.setenv("FAKE_KEY", "sk-test")
    alias = ModelAlias(model="openai/fake-model", api_base=fake.base_url, api_key_env="FAKE_KEY", context_window=8192)
    settings = Settings(default_model="fake", request_timeout=5, max_retries=0, models={"fake": alias})
    session = Session.open(OpenOptions(settings=settings, database=tmp_path / "app.db"))
    session.connect()
    return session


async def sent_to(session: Session, target: ModelTarget, fake) -> list[dict]:
    """The messages of the request a reply to `target` sent."""
    async for _ in session.replies.reply(target):
        pass
    return fake.requests[-1]["messages"]


async def test_the_local_model_gets_foldchats_system_prompt_and_nothing_of_it_is_stored(fake, tmp_path, monkeypatch):
    with open_session(fake, tmp_path, monkeypatch) as session:
        session.replies.add_user_message("¿Cuál es el código de mi reserva?")
        messages = await sent_to(session, local_target(fake), fake)
        assert messages[0] == {"role": "system", "content": PROMPTS["es"]}
        assert [m["role"] for m in messages] == ["system", "user"]
        assert messages[1]["content"] == "¿Cuál es el código de mi reserva?"
        assert not any(s.message.role == "system" for s in session.context.transcript())


async def test_a_users_system_prompt_is_kept_word_for_word_after_foldchats(fake, tmp_path, monkeypatch):
    with open_session(fake, tmp_path, monkeypatch) as session:
        session.set_system_prompt(USER_PROMPT)
        session.replies.add_user_message("What should I see in Lisbon?")
        messages = await sent_to(session, local_target(fake), fake)
        systems = [m["content"] for m in messages if m["role"] == "system"]
        assert systems == [f"{PROMPTS['en']}\n\n{USER_PROMPT}"]  # one system message: the user's last, whole
        assert [s.message.text for s in session.context.transcript() if s.message.role == "system"] == [USER_PROMPT]


async def test_a_hosted_model_gets_only_the_users_system_prompt(fake, tmp_path, monkeypatch):
    with open_session(fake, tmp_path, monkeypatch) as session:
        session.set_system_prompt(USER_PROMPT)
        session.replies.add_user_message("What should I see in Lisbon?")
        messages = await sent_to(session, session.target, fake)
        assert [m["content"] for m in messages if m["role"] == "system"] == [USER_PROMPT]


async def test_the_read_ahead_reads_the_same_start_the_reply_sends(fake, tmp_path, monkeypatch):
    """The local server reuses what it read ahead only if the request starts with the same bytes."""
    with open_session(fake, tmp_path, monkeypatch) as session:
        session.set_system_prompt(USER_PROMPT)
        session.replies.add_user_message("What should I see in Lisbon?")
        target = local_target(fake)
        ahead = [m.to_dict() for m in session.context.adapted_context(target)]
        messages = await sent_to(session, target, fake)
        assert messages[: len(ahead)] == ahead


def test_the_gauge_and_the_window_check_count_the_prompt_the_local_model_is_sent(fake, tmp_path, monkeypatch):
    """What the gauge shows is what is sent: Foldchat's prompt too (24-46 tokens), not only the stored messages."""
    with open_session(fake, tmp_path, monkeypatch) as session:
        # counted with a tokenizer of the test's: the embedded model's own counter is its server's
        target = replace(local_target(fake), backend=replace(EMBEDDED, counts_itself=False))
        assert session.context.usage(target).tokens == 0  # nothing said, nothing sent: nothing counted
        session.replies.add_user_message("¿Cuál es el código de mi reserva?")
        counter = session.registry.counter(target)
        sent = [Message.system(PROMPTS["es"]), Message.user("¿Cuál es el código de mi reserva?")]
        assert session.context.usage(target).tokens == counter.count(sent)
        hosted = replace(target, backend=PROVIDER)
        assert session.context.usage(hosted).tokens == counter.count(sent[1:])
        too_big = session.context.too_big_to_send(target, "¿Cuál es? " * 8000)
        assert too_big is not None and f"system prompt ({counter.count(sent[:1]):,})" in too_big


def test_each_prompt_is_short_and_english_says_both_things():
    assert all(len(prompt.split()) <= 25 for prompt in PROMPTS.values()), PROMPTS  # read on every send
    assert "English" in PROMPTS["en"] and "don't know" in PROMPTS["en"]


def test_the_language_is_the_newest_user_message_that_shows_one():
    drift = [
        Message.user("We're going to Lisbon next month."),
        Message.assistant("Que ótimo! Lisboa é linda na primavera. Visite a Alfama e Belém."),
        Message.user("What should we pack for the trip?"),
    ]
    assert language_of(drift) == "en"  # the reply before it, in Portuguese, does not carry the conversation
    assert language_of([Message.user("Bonjour ! Je cherche un hôtel pour le week-end."), Message.user("merci")]) == "fr"
    assert language_of([Message.user("ok")]) == "en"


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(["es", "fr", "de", "pt", "it"]), st.sampled_from(["ok", "👍", "merci!", "12:30", "thanks"]))
def test_a_message_too_short_to_tell_keeps_the_prompt_and_so_the_read_ahead(language, short):
    said = {
        "es": "¿Me puedes ayudar con el menú de la cena para el sábado?",
        "fr": "Est-ce que tu peux m'aider avec le menu du dîner pour samedi ?",
        "de": "Kannst du mir mit dem Menü für das Abendessen am Samstag helfen?",
        "pt": "Você pode me ajudar com o menu do jantar de sábado?",
        "it": "Mi puoi aiutare con il menù della cena di sabato?",
    }[language]
    before = [Message.user(said), Message.assistant("…")]
    assert language_of(before) == language == language_of([*before, Message.user(short)])
