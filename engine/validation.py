"""One line for a pydantic validation error: what the config and the fold policy tell a person (a key and
what is wrong with it), never pydantic's multi-line report."""

from __future__ import annotations

from pydantic import ValidationError


def describe_validation_error(error: ValidationError, whole: str = "config") -> str:
    """The first problem as `key: what is wrong`; `whole` names what was checked when the problem is not
    one key's (a rule between two)."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or whole
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] in ("extra_forbidden", "unexpected_keyword_argument"):  # a model's, a dataclass's (FoldPolicy)
        message = "unknown key (see config.example.toml for every key)"
    more = f" (and {error.error_count() - 1} more problems)" if error.error_count() > 1 else ""
    return f"{where}: {message}{more}"
