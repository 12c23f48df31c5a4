"""End to end in a real terminal, daily use: a 60-message conversation, /new, /history full-text
search, resume, edit and resend, quit — against the loopback fake OpenAI server (fast, no local model)."""

from __future__ import annotations

import json
import os
import re
import sys
import time

import pytest

from e2e.test_tmux import Tmux
from servers.fake_openai import FakeOpenAI


@pytest.fixture
def fake_server():
    server = FakeOpenAI().start()
    yield server
    server.stop()


@pytest.fixture
def daily_terminal(tmp_path, fake_server):
    config = tmp_path / "config.toml"
    config.write_text(
        'default_model = "fake"\n\n[models.fake]\nmodel = "openai/fake-model"\n'
        f'api_base = "{fake_server.base_url}"\napi_key_env = "FAKE_KEY"\ncontext_window = 64000\n'
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        FOLDCHAT_DATABASE=str(tmp_path / "daily.db"), FOLDCHAT_CONFIG=str(config), FAKE_KEY="sk-fake",
        TERM="xterm-256color", XDG_DATA_HOME=str(tmp_path / "data"),
    )  # fmt: skip
    tmux = Tmux(env)
    yield tmux
    tmux.close()


def test_sixty_messages_new_search_resume_edit_and_quit(daily_terminal, tmp_path, fake_server):
    terminal = daily_terminal
    messages = []
    for n in range(29):
        messages += [{"role": "user", "content": f"question {n} about invoices"},
                     {"role": "assistant", "content": f"answer {n}"}]  # fmt: skip
    messages[20]["content"] = "the ferry to Cacilhas leaves at nine"  # found by text, not by title
    (tmp_path / "old.json").write_text(json.dumps(messages))
    python = sys.executable
    terminal.run(
        f'cd {tmp_path} && {python} -m foldchat import old.json && {python} -m foldchat -c 1; echo "exit status: $?"'
    )
    terminal.wait_for(lambda s: "token window" in s and "answer 28" in s)
    terminal.type("question 29, the last one")  # 58 + 2 = 60 messages
    terminal.wait_for(lambda s: s.count("fake server") >= 1 and "streaming" not in s)

    terminal.type("/new")
    terminal.wait_for(lambda s: "(new)" in s and "answer 28" not in s)
    terminal.type("a fresh topic")
    terminal.wait_for(lambda s: "a fresh topic ·" in s and "streaming" not in s)

    terminal.type("/history")
    terminal.wait_for(lambda s: "Conversations · Enter resume" in s)
    terminal.type("cacilh")  # the search box has the focus; its Enter resumes the best match
    # opened at the message that matched, selected, not at the end
    terminal.wait_for(lambda s: "the ferry to Cacilhas leaves at nine" in s and "a fresh topic ·" not in s)

    terminal.keys("Escape")  # from the selected match back to the composer
    time.sleep(1)  # apart: Escape and Up read together are one Alt+Up
    terminal.keys("Up")  # an empty composer: edit the last prompt
    terminal.wait_for(lambda s: "Editing an earlier prompt" in s)
    terminal.keys("End")
    asked = len(fake_server.requests)
    terminal.type(" (edited)")
    terminal.wait_for(lambda s: "edited: replaced by a newer prompt" in s and "question 29, the last one (edited)" in s)
    terminal.wait_for(lambda s: len(fake_server.requests) > asked and "streaming" not in s)
    sent = fake_server.requests[-1]["messages"]
    assert sent[-1]["content"] == "question 29, the last one (edited)" and len(sent) == 59

    terminal.keys("C-q")
    screen = terminal.wait_for(lambda s: re.search(r"exit status: \d", s), timeout=30)
    assert "exit status: 0" in screen and "Traceback" not in screen
