"""The local server child loads its model in a thread while it imports its web stack, so it answers sooner.

llama.cpp loads a GGUF in C through ctypes, which releases the GIL: the load (~0.8 s on this machine,
most of it building Gemma's 262k-token vocabulary) and the imports of fastapi, uvicorn and
llama-cpp-python's app (~0.5 s) then run side by side instead of one after the other.

llama-cpp-python's `create_app` loads its model itself, through `LlamaProxy.load_llama_from_model_settings`.
`serving_preloaded` hands it the preloaded model when it asks for exactly the settings that model was
loaded with; any other settings load the usual way, so the served model is always the one asked for.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from llama_cpp import Llama
    from llama_cpp.server.settings import ModelSettings


class PreloadedModel:
    """A model loading in a background thread from `settings` (a private copy: callers may change theirs)."""

    def __init__(self, settings: ModelSettings) -> None:
        self.settings = settings.model_copy(deep=True)
        self.taken = False  # handed to the server (tests read this)
        self._llama: Llama | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._load, daemon=True, name="model-preload")
        self._thread.start()

    def _load(self) -> None:
        from llama_cpp.server.model import LlamaProxy

        try:
            self._llama = LlamaProxy.load_llama_from_model_settings(self.settings)
        except BaseException as error:  # raised where the server would have loaded it (`take`)
            self._error = error

    def take(self, settings: ModelSettings) -> Llama | None:
        """The preloaded model if `settings` are the ones it was loaded with, once; else None.

        A failed load raises its error here, as the server's own load would have.
        """
        self._thread.join()
        llama, self._llama = self._llama, None
        if self.taken or settings != self.settings:
            if llama is not None:
                llama.close()  # not what the server wants: its memory goes before the usual load
            return None
        if self._error is not None:
            raise self._error
        self.taken = True
        return llama


@contextmanager
def serving_preloaded(preload: PreloadedModel) -> Iterator[None]:
    """While inside, llama-cpp-python's server gets `preload`'s model when it asks for its settings."""
    from llama_cpp.server.model import LlamaProxy

    load = LlamaProxy.load_llama_from_model_settings

    def take_or_load(settings: ModelSettings) -> Llama:
        llama = preload.take(settings)
        return llama if llama is not None else load(settings)

    LlamaProxy.load_llama_from_model_settings = staticmethod(take_or_load)  # type: ignore[method-assign]
    try:
        yield
    finally:
        LlamaProxy.load_llama_from_model_settings = staticmethod(load)  # type: ignore[method-assign]
