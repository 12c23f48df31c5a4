"""`with` for what holds a database or a server: leaving the block closes it (an error inside too)."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class ClosedOnExit:
    """`with thing:` closes `thing` on the way out; subclasses say what closing means (`close`)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        raise NotImplementedError
