import dataclasses
import re
from pathlib import Path

import pytest
from foldchat.engine.config import LocalModelSettings, ModelAlias, Settings, load_settings
from foldchat.engine.errors import ConfigError
from foldchat.engine.policy import FoldPolicy

EXAMPLE = Path(__file__).resolve().parents[2] / "config.example.toml"


def documented_keys() -> set[str]:
    keys = set()
    section = ""
    for line in EXAMPLE.read_text().splitlines():
        if m := re.match(r"#?\s*\[([\w.]+)\]", line):
            section = "models" if m.group(1).startswith("models.") else m.group(1)
        elif m := re.match(r"#?\s*(\w+) = ", line):
            keys.add(f"{section}.{m.group(1)}" if section else m.group(1))
    return keys


def test_every_setting_is_documented_in_the_example():
    fields = {name for name in Settings.model_fields if name not in ("fold", "local", "models")}
    fields |= {f"fold.{f.name}" for f in dataclasses.fields(FoldPolicy)}
    fields |= {f"local.{n}" for n in LocalModelSettings.model_fields}
    fields |= {f"models.{n}" for n in ModelAlias.model_fields}
    assert fields == documented_keys()


def test_the_example_file_loads_to_the_defaults():
    assert load_settings(EXAMPLE).model_dump() == Settings().model_dump()


def test_every_key_round_trips(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text(
        """
default_model = "work"
summarizer = "rules"
summarizer_model = "gpt-4o-mini"
database = "/tmp/x.db"
request_timeout = 5
max_retries = 1
[fold]
trigger_ratio = 0.9
trigger_tokens = 5000
target_ratio = 0.4
reset_ratio = 0.6
cooldown_messages = 2
min_messages = 3
keep_ratio = 0.2
snapshot_ratio = 0.1
message_ratio = 0.4
reserved_output = 100
[local]
context_size = 4096
threads = 1
chat_format = "foldchat-transcript"
max_reply_tokens = 64
temperature = 0.5
repeat_penalty = 1.2
startup_timeout = 30
model_path = "/tmp/m.gguf"
[models.work]
model = "anthropic/claude-sonnet-4-5"
api_base = "http://127.0.0.1:1/v1"
api_key_env = "WORK_KEY"
context_window = 1000
max_output_tokens = 10
"""
    )
    s = load_settings(path)
    assert s.default_model == "work" and s.summarizer == "rules" and s.database == Path("/tmp/x.db")
    assert s.fold.trigger_tokens == 5000 and s.fold.keep_ratio == 0.2
    assert s.local.threads == 1 and s.local.model_path == Path("/tmp/m.gguf")
    assert s.models["work"] == ModelAlias(
        model="anthropic/claude-sonnet-4-5", api_base="http://127.0.0.1:1/v1", api_key_env="WORK_KEY",
        context_window=1000, max_output_tokens=10,
    )  # fmt: skip


def test_environment_overrides_the_file(tmp_path, monkeypatch):
    path = tmp_path / "c.toml"
    path.write_text("[fold]\ntrigger_ratio = 0.9\n")
    monkeypatch.setenv("FOLDCHAT_FOLD__TRIGGER_RATIO", "0.75")
    monkeypatch.setenv("FOLDCHAT_DEFAULT_MODEL", "gpt-4o")
    s = load_settings(path)
    assert s.fold.trigger_ratio == 0.75 and s.default_model == "gpt-4o"


def test_foldchat_config_variable_names_the_file(tmp_path, monkeypatch):
    path = tmp_path / "elsewhere.toml"
    path.write_text('default_model = "gpt-4o"\n')
    monkeypatch.setenv("FOLDCHAT_CONFIG", str(path))
    assert load_settings().default_model == "gpt-4o"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[fold]\ntrigger_ratio = 1.5\n", "fold.trigger_ratio: Input should be less than or equal to 1"),
        ("[fold]\ntarget_ratio = 0.9\n", "target_ratio (0.9) must be below trigger_ratio"),
        ("colour = 'red'\n", "colour: unknown key"),
        ("[local]\ncontext_size = 'big'\n", "local.context_size: Input should be a valid integer"),
        ("summarizer = 'magic'\n", "summarizer: Input should be 'auto', 'rules' or 'llm'"),
        ("[models.x]\napi_base = 'http://h'\n", "models.x.model: Field required"),
        ("this is = not toml [\n", "not valid TOML"),
    ],
)
def test_bad_files_give_one_line_naming_the_key(tmp_path, text, message):
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_settings(path)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_missing_explicit_file_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(tmp_path / "nope.toml")


def test_cli_reports_config_errors_in_one_line(tmp_path, monkeypatch):
    from runtime.conftest import foldchat

    path = tmp_path / "c.toml"
    path.write_text("[fold]\ntrigger_ratio = 2\n")
    done = foldchat("list", "--config", str(path))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "fold.trigger_ratio" in done.stderr
