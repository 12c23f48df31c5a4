"""Settings: `config.toml` + `FOLDCHAT_*` environment variables, loaded by pydantic-settings.

Where the file is: `--config PATH`, else `$FOLDCHAT_CONFIG`, else `config.toml` in the platform's user
config dir. No file is fine: every key has a default, but a file that was named (`--config` or
`$FOLDCHAT_CONFIG`) must exist. Environment variables win over the file; nested
keys use `__` (`FOLDCHAT_FOLD__TRIGGER_RATIO=0.7`). API keys are never stored here: a model alias names
the *environment variable* that holds its key.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
    TomlConfigSettingsSource,
)

from .config_file import ENV_PREFIX, read_config_file, refuse_deep_environment
from .errors import ConfigError
from .limits import DEFAULT_MAX_INPUT_BYTES, MAX_TOKENS
from .policy import FoldPolicy
from .validation import describe_validation_error

MAX_LOCAL_CONTEXT = 131_072  # any GGUF: beyond this the KV cache alone outgrows a laptop's memory
TRAINED_CONTEXT = {"smollm2": 8192, "gemma": 32_768}  # the packaged models' n_ctx_train
MAX_SECONDS = 86_400.0  # a day: waits longer than that are a typo, and timers overflow on huge values
MAX_INPUT_CAP = 256 * 1024 * 1024  # more than this is no chat input; reading it would take minutes


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class ModelAlias(_Section):
    """A short name for a model, with how to reach it."""

    model: str = Field(description="litellm model string, e.g. 'gpt-4o' or 'anthropic/claude-sonnet-4-5'.")
    api_base: str | None = Field(None, description="Base URL for OpenAI-compatible servers and proxies.")
    api_key_env: str | None = Field(None, description="Name of the environment variable holding the API key.")
    context_window: int | None = Field(
        None, gt=0, le=MAX_TOKENS, description="Overrides litellm's window for this model."
    )
    max_output_tokens: int | None = Field(None, gt=0, le=MAX_TOKENS, description="Cap on reply length (tokens).")


class LocalModelSettings(_Section):
    """The embedded local model served by llama.cpp's server on 127.0.0.1 (docs/design.md §10)."""

    model: Literal["smollm2", "gemma"] = Field(
        "smollm2",
        description="smollm2: SmolLM2-135M-Instruct, an instruction-tuned model that chats through its own "
        "template (the default); gemma: Gemma 3 270M, a base model served through a plain transcript prompt.",
    )
    context_size: int = Field(
        8192,
        ge=512,
        le=MAX_LOCAL_CONTEXT,
        description="Window the local server is started with (tokens); at most what the model was trained on "
        "(SmolLM2 8,192, Gemma 32,768).",
    )
    threads: int | None = Field(
        None, ge=1, le=1024, description="CPU threads of the local server; default: half the cores, at least 1."
    )
    chat_format: str = Field(
        "auto",
        description="llama.cpp chat template name for the prompt (chatml, gemma, llama3, ...); auto: the model's own template (SmolLM2's ChatML), "
        "or Foldchat's plain transcript prompt for the base Gemma.",
    )
    max_reply_tokens: int = Field(
        512,
        ge=1,
        le=MAX_LOCAL_CONTEXT,
        description="Reply cap: the model stops on its own (SmolLM2's median reply is ~170 tokens).",
    )
    temperature: float = Field(0.7, ge=0, le=2, description="Sampling temperature.")
    repeat_penalty: float | None = Field(
        None, ge=1, description="Discourages repetition loops; default 1.1 for SmolLM2, 1.3 for the base Gemma."
    )
    startup_timeout: float = Field(120.0, gt=0, le=MAX_SECONDS, description="Seconds to wait for the server to answer.")
    model_path: Path | None = Field(None, description="Serve this GGUF instead of the packaged model.")
    keep_alive: float = Field(
        0.0,
        le=7 * 24 * 3600,
        ge=0,
        description="Seconds an idle local server outlives the process that started it, for the next "
        "`ask` to reuse; 0: it stops with that process.",
    )

    @model_validator(mode="after")
    def _window_the_model_was_trained_on(self) -> LocalModelSettings:
        # a bigger window than the model knows only allocates memory (10^20 asked the kernel for 23 GB)
        trained = TRAINED_CONTEXT.get(self.model)
        if self.model_path is None and trained and self.context_size > trained:
            raise ValueError(
                f"context_size {self.context_size:,} is more than {self.model} was trained on ({trained:,} tokens)"
            )
        return self


class Settings(BaseSettings):
    """Everything Foldchat reads from config.toml and FOLDCHAT_* variables."""

    model_config = SettingsConfigDict(
        env_prefix="FOLDCHAT_",
        env_nested_delimiter="__",
        extra="forbid",
        validate_default=True,
        allow_inf_nan=False,
    )

    default_model: str | None = Field(
        None, description="Model for new conversations; default: the local model unless a provider key is set."
    )
    models: dict[str, ModelAlias] = Field(default_factory=dict, description="Aliases usable wherever a model goes.")
    summarizer: Literal["auto", "rules", "llm"] = Field("auto", description="Who writes fold snapshots.")
    summarizer_model: str | None = Field(None, description="A cheaper model for LLM folds.")
    database: Path | None = Field(None, description="SQLite file; default: foldchat.db in the user data dir.")
    max_input_bytes: int = Field(
        DEFAULT_MAX_INPUT_BYTES,
        gt=0,
        le=MAX_INPUT_CAP,
        description="Largest file, stdin or prompt read by compress and ask (a forced fold of 4 MiB of chat "
        "takes ~15 s on two cores; bench/largest_input_bench.py).",
    )
    max_attachment_bytes: int = Field(
        1024 * 1024,
        gt=0,
        le=MAX_INPUT_CAP,
        description="Largest file or command output one attachment may be (ask -f, /attach); a message with its "
        "attachments stays within max_input_bytes.",
    )
    max_import_bytes: int = Field(
        64 * 1024 * 1024,
        gt=0,
        le=MAX_INPUT_CAP,
        description="Largest file read by import (a ChatGPT export holds every conversation; none is folded).",
    )
    # -- model calls: how long to wait and how often to try again --
    request_timeout: float = Field(
        120.0, gt=0, le=MAX_SECONDS, description="Seconds one attempt may wait for data (a stall mid-reply ends it)."
    )
    request_deadline: float = Field(
        180.0,
        gt=0,
        le=MAX_SECONDS,
        description="Seconds a reply may take to start, every retry included; then it fails.",
    )
    max_retries: int = Field(3, ge=0, le=100, description="Retries on 429, 5xx, timeouts and dropped connections.")
    theme: str = Field("textual-dark", description="Textual theme; 'textual-ansi' uses the terminal's own colours.")
    fold: FoldPolicy = Field(default_factory=FoldPolicy)
    local: LocalModelSettings = Field(default_factory=LocalModelSettings)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # environment over file; the file is set per load (see `load_settings`)
        return init_settings, env_settings, TomlConfigSettingsSource(settings_cls)


def load_settings(explicit: str | Path | None = None) -> Settings:
    """Settings from the config file (if any) and the environment; one-line `ConfigError` when invalid.

    Each error names where the bad value came from: the `FOLDCHAT_*` variable that set it, else the file.
    """
    refuse_deep_environment()
    path, _ = read_config_file(explicit)  # its own checks first: pydantic-settings reads it again below

    class FileSettings(Settings):
        model_config = SettingsConfigDict(toml_file=path if path.exists() else None)

    try:
        return FileSettings()
    except ValidationError as error:
        first = error.errors()[0]["loc"]
        variable = _variable_for(tuple(str(part) for part in first))
        raise ConfigError(f"{variable or path}: {describe_validation_error(error)}") from None
    except SettingsError as error:  # e.g. FOLDCHAT_FOLD set to something that is not a JSON object
        field = re.search(r'field "(\w+)"', str(error))
        name = f"{ENV_PREFIX}{field.group(1).upper()}" if field else f"a {ENV_PREFIX}* variable"
        if "EnvSettingsSource" in str(error):
            raise ConfigError(
                f"{name} is not valid: a section takes a JSON object, or set one key as {name}__KEY=value"
            ) from None
        raise ConfigError(f"{path}: {error}") from None


def _variable_for(location: tuple[str, ...]) -> str | None:
    """The `FOLDCHAT_*` variable that set the value at `location`, if one did (the closest one wins)."""
    variables = {name.upper(): name for name in os.environ}
    for length in range(len(location), 0, -1):
        name = ENV_PREFIX + "__".join(location[:length]).upper()
        if name in variables:
            return variables[name]
    # a check of a whole section (its validator) blames the section: name the variable set inside it
    inside = [variables[name] for name in variables if name.startswith(ENV_PREFIX + "__".join(location).upper() + "__")]
    return inside[0] if len(inside) == 1 else None
