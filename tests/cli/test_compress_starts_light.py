"""`foldchat compress` with the rules summarizer loads the tokenizer and the fold policy, but not the settings'
models (pydantic-settings), the model registry or litellm: those are the LLM summarizer's. It checks its
input's size against `max_input_bytes` without them when nothing but the database is configured. Nor does it
load pydantic: the snapshot and the policy are dataclasses, validated by pydantic only where they come in from
outside (a stored snapshot, the config, options given), and pydantic's import is ~0.1 s of a ~0.6 s fold."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cli.test_reading_starts_light import environment

UNUSED = ("pydantic", "pydantic_core", "pydantic_settings", "foldchat.engine.config", "foldchat.engine.providers.registry", "litellm", "textual")

PROBE = """
import json, sys
from foldchat.cli.main import main

assert main({argv!r}) == 0
print(json.dumps(sorted(sys.modules)))
"""


def loaded_by_compress(tmp_path: Path) -> list[str]:
    history = tmp_path / "history.json"
    history.write_text(json.dumps([{"role": "user", "content": "the ferry"}, {"role": "assistant", "content": "9"}]))
    probe = PROBE.format(argv=["compress", "--model", "gpt-4o", "--force", str(history)])
    env = environment(tmp_path)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_compress_with_the_rules_loads_neither_the_settings_nor_the_model_library(tmp_path):
    modules = loaded_by_compress(tmp_path)
    assert "tiktoken" in modules  # the probe ran a compress: it counted
    assert [m for m in modules if m in UNUSED or m.startswith(tuple(f"{u}." for u in UNUSED))] == []
