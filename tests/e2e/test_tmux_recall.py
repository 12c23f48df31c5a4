"""End to end in a real terminal: a long chat is folded, and a question about a folded detail gets that
detail back: the transcript says what was recalled under the question, and the request holds the words
(the loopback fake OpenAI server answers; what matters is what it was sent)."""

from __future__ import annotations

import json
import os
import re
import sys

import pytest
from test_recall_at_send import bed, chat

from e2e.test_tmux import Tmux
from servers.fake_openai import FakeOpenAI


@pytest.fixture
def fake_server():
    server = FakeOpenAI().start()
    yield server
    server.stop()


def garden_in_a_terminal(tmp_path, fake: FakeOpenAI, settings: str, database: str) -> Tmux:
    """A real terminal with Foldchat open on an imported 30-turn garden chat, its model the loopback fake
    (`settings`: more top-level config lines); the model is up when this returns."""
    config = tmp_path / "config.toml"
    config.write_text(
        f'default_model = "fake"\n{settings}\n\n[models.fake]\nmodel = "openai/fake-model"\n'
        f'api_base = "{fake.base_url}"\napi_key_env = "FAKE_KEY"\ncontext_window = 8000\n'
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(FOLDCHAT_DATABASE=str(tmp_path / database), FOLDCHAT_CONFIG=str(config), FAKE_KEY="sk-fake",
               TERM="xterm-256color")  # fmt: skip
    (tmp_path / "garden.json").write_text(json.dumps(chat()))
    terminal = Tmux(env)
    try:
        python = sys.executable
        terminal.run(f"cd {tmp_path} && {python} -m foldchat import garden.json && {python} -m foldchat -c 1")
        terminal.wait_for(lambda s: "token window" in s)
    except BaseException:
        terminal.close()
        raise
    return terminal


def test_a_question_about_a_folded_detail_gets_its_words_back(tmp_path, fake_server):
    terminal = garden_in_a_terminal(tmp_path, fake_server, 'summarizer = "rules"', "recall.db")
    try:
        terminal.type("/resummarize")
        terminal.wait_for(lambda s: re.search(r"Folded \d+ messages", s) is not None)  # the toast
        detail = bed(5, 4)  # a row of an early reply: folded, and too small a detail for the snapshot
        row = detail.split(":")[0]
        asked = len(fake_server.requests)
        terminal.type(f"what did we sow in {row.lower()}?")
        screen = terminal.wait_for(lambda s: "recalled #" in s and len(fake_server.requests) > asked)
        assert " tokens" in screen.split("recalled #", 1)[1].splitlines()[0]
        sent = json.dumps(fake_server.requests[-1]["messages"], ensure_ascii=False)
        assert detail in sent and "<recalled_messages>" in sent
    finally:
        terminal.close()
