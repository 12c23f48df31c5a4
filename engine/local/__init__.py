"""The embedded local model (docs/design.md §10): the GGUF file, the llama.cpp server started on 127.0.0.1, its
stream, one local turn at a time, and how long it will read before it answers.

- `model`: `LocalModelServer`, which model file, with which settings;
- `gguf`: fetching and checking the packaged model file;
- `server`: the server process (`python -m foldchat.engine.local.server`);
- `server_flags`: the flags it starts with and the fields every request to it carries;
- `stream`: its OpenAI-compatible stream, without litellm;
- `turns`: one local turn at a time, across processes;
- `prefix_warm`: what it has already read, and how long the rest takes.
"""

LOCAL_ALIAS = "local"
"""The embedded model's name wherever a model name goes; here, so that naming it loads nothing of the model."""
