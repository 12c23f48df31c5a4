"""`foldchat compress --model local`: the model a person with no API key has folds a file too, to its window
(the `[local]` context size) and counted by its own tokenizer, which the local server answers."""

from __future__ import annotations

import json

import pytest
from foldchat.engine.config import Settings
from foldchat.engine.messages import parse_messages
from foldchat.engine.providers.registry import ModelRegistry
from foldchat.engine.tokens import counter_for

from cli.in_process import foldchat_main
from synth import coding_conversation

pytestmark = pytest.mark.slow  # the real local model's server: started by the command, and by the test to compare


def test_the_local_model_folds_a_file_to_its_window_by_its_own_count(tmp_path):
    raw, _ = coding_conversation(12_000, seed=3)
    config = tmp_path / "config.toml"
    config.write_text("[local]\ncontext_size = 6000\n")
    done = foldchat_main("compress", "-", "--model", "local", "--config", str(config), stdin=json.dumps(raw))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["report"]
    assert report["compressed"] and report["window"] == 6000 and report["tokens_after"] <= 6000
    registry = ModelRegistry(Settings())
    try:
        own = registry.counter(registry.resolve("local")).count(parse_messages(raw))
    finally:
        registry.close()
    assert report["tokens_before"] == own != counter_for("gpt-4o").count(parse_messages(raw))
