"""The flags the local server child is started with (server.py reads them) and the fields every request
to it carries: chat template, threads, KV cache, sampling. Chosen from `local.*` settings alone, so they
can be checked and shown without starting anything."""

from __future__ import annotations

import os
from pathlib import Path

from ..config import LocalModelSettings
from ..errors import LocalModelError

SERVED_NAME = "foldchat-local"
"""The alias the server answers to, whichever model it serves."""


AUTO_FORMAT = "auto"


_TEMPLATE_NAMES = (
    "bailing chatglm3 chatglm4 chatml command-r deepseek deepseek2 deepseek3 exaone3 exaone4 falcon-h1 falcon3 "
    "gemma gigachat glmedge gpt-oss granite grok-2 hunyuan-dense hunyuan-moe kimi-k2 llama2 llama2-sys "
    "llama2-sys-bos llama2-sys-strip llama3 llama4 megrez minicpm mistral-v1 mistral-v3 mistral-v3-tekken "
    "mistral-v7 mistral-v7-tekken monarch openchat orion pangu-embedded phi3 phi4 rwkv-world seed_oss smolvlm "
    "vicuna vicuna-orca yandex zephyr"
)
BUILT_IN_TEMPLATES = frozenset(_TEMPLATE_NAMES.split())
"""The chat templates llama.cpp's server knows by name (its `llm_chat_template` table, as built into
xllamacpp; tests/engine/local/test_local_model.py checks a few against the real server)."""


def chat_format(settings: LocalModelSettings) -> str | None:
    """The chat format the server is started with: None for the model's own template (its GGUF's
    `tokenizer.chat_template`, which llama.cpp applies when no template is named)."""
    from ..transcript_prompt import FORMAT_NAME

    if settings.chat_format != AUTO_FORMAT:
        return settings.chat_format
    return FORMAT_NAME if settings.model == "gemma" and settings.model_path is None else None


def chat_template(settings: LocalModelSettings) -> str:
    """What the server's `chat_template` is set to: "" (the model's own), a built-in name, or the Jinja of
    Foldchat's transcript prompt."""
    from ..transcript_prompt import FORMAT_NAME, TEMPLATE

    chosen = chat_format(settings)
    return TEMPLATE if chosen == FORMAT_NAME else (chosen or "")


def request_extras(settings: LocalModelSettings) -> dict[str, object]:
    """Sampling fields every request to the local server carries: the repeat penalty, and for the
    transcript prompt the stops that end its reply (the server's template cannot stop generation)."""
    from ..transcript_prompt import FORMAT_NAME, STOP

    # return_progress: while it reads the prompt the server streams how far it got (`prefix_warm.progress_note`)
    extras: dict[str, object] = {"repeat_penalty": repeat_penalty(settings), "return_progress": True}
    if chat_format(settings) == FORMAT_NAME:
        extras["stop"] = list(STOP)
    return extras


def repeat_penalty(settings: LocalModelSettings) -> float:
    """The configured penalty, else what suits the model: a base model loops without a strong one."""
    if settings.repeat_penalty is not None:
        return settings.repeat_penalty
    return 1.3 if settings.model == "gemma" and settings.model_path is None else 1.1


def check_chat_format(name: str) -> None:
    """`name` must be Foldchat's format or a template llama.cpp knows by name: the server would take any
    other text for a Jinja template of its own and print that text as every prompt."""
    from ..transcript_prompt import FORMAT_NAME

    if name in (FORMAT_NAME, AUTO_FORMAT) or name in BUILT_IN_TEMPLATES:
        return
    raise LocalModelError(
        f"local.chat_format {name!r} is not a chat format llama.cpp knows "
        f"(the default is {AUTO_FORMAT!r}; others: {FORMAT_NAME}, chatml, gemma, llama3, mistral-v7, ...)"
    )


def default_threads() -> int:
    """Half the CPUs, at least one: the app shares the machine with the server, and llama.cpp's threads
    wait for each other at every step, so one preempted thread stalls them all. Measured on 2 busy cores:
    a short reply took 0.9-4 s with one thread, 0.7-20 s with two. It is the thread count of
    the prompt's evaluation too (`model_arguments`)."""
    return max(1, (os.cpu_count() or 2) // 2)


def kv_cache_arguments(settings: LocalModelSettings) -> list[str]:
    """An 8-bit KV cache for Gemma (half of ~18 KB per token of its window); SmolLM2's f16 cache is ~23 KB
    per token, 190 MB at 8k, and reads prompts twice as fast: 201 against 92 tokens/s here on 2 cores
    (flash attention on, 4k tokens; llama.cpp's CPU path dequantizes the cache at every step)."""
    if settings.model == "gemma" and settings.model_path is None:
        return ["--kv_q8"]
    return []


def batch_threads() -> int:
    """Every CPU, for reading prompts (see `model_arguments`)."""
    return max(1, os.cpu_count() or 1)


def model_arguments(settings: LocalModelSettings, model_path: Path) -> list[str]:
    """The server child's flags for the model `settings` describe (server.py reads them)."""
    threads = settings.threads or default_threads()
    template = chat_template(settings)
    return [
        *(["--chat_template", template] if template else []),
        "--model", str(model_path), "--alias", SERVED_NAME, "--n_ctx", str(settings.context_size),
        # generation on half the cores (a preempted thread stalls the others at every token);
        # a prompt on every core: long reads (a resumed or folded context, read ahead while the user types
        # and the UI is idle) are where the seconds go, and they halve with two threads
        "--threads", str(threads), "--threads_batch", str(settings.threads or batch_threads()),
        *kv_cache_arguments(settings),
    ]  # fmt: skip
