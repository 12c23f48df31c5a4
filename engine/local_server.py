"""Child-process entry point for the local model server (`python -m foldchat.engine.local_server`).

It registers Foldchat's transcript chat format with llama-cpp-python, makes sure it dies with its
parent (a thread watches the parent pid), then runs
llama-cpp-python's own OpenAI-compatible server with the remaining arguments.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any


def _die_with_parent(parent: int) -> None:
    # Polling, not PR_SET_PDEATHSIG: that signal fires when the *thread* that started us ends, and the
    # TUI starts the server from a worker thread.
    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(0)
            time.sleep(0.5)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def _register_format() -> None:
    from foldchat.engine.transcript_prompt import FORMAT_NAME, STOP, transcript_prompt
    from llama_cpp import llama_chat_format

    @llama_chat_format.register_chat_format(FORMAT_NAME)
    def _format(messages: list[dict[str, Any]], **_: Any) -> llama_chat_format.ChatFormatterResponse:
        return llama_chat_format.ChatFormatterResponse(prompt=transcript_prompt(messages), stop=STOP)


def main() -> None:
    parent = int(os.environ.get("FOLDCHAT_PARENT_PID", os.getppid()))
    _die_with_parent(parent)
    _register_format()
    from llama_cpp.server.__main__ import main as serve

    sys.argv = ["llama_cpp.server", *sys.argv[1:]]
    serve()


if __name__ == "__main__":
    main()
