"""What a tool call did, in one line, by kind of tool: file reads, shell commands, searches, edits.

Tools are recognised by name and argument keys (agents name them differently: `read_file`, `view`,
`cat`; `bash`, `run_shell_command`; `grep`, `search`; `edit`, `write_file`, `apply_patch`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..facts import clip, exit_code, first_error_line, first_sentence
from ..messages import Message, ToolCall

_READ = re.compile(r"read|view|cat|open|show|get_file|load", re.I)
_SHELL = re.compile(r"bash|shell|exec|run|terminal|command|cmd|python", re.I)
_SEARCH = re.compile(r"search|grep|find|glob|rg|lookup|query", re.I)
_EDIT = re.compile(r"edit|write|patch|replace|create|insert|update|save|modify|delete|remove", re.I)


@dataclass(frozen=True)
class ToolFact:
    """One tool call digested: an artifact line, maybe an error, and whether it finished a task step."""

    kind: str
    action: str
    error: str | None = None
    done: str | None = None


def parse_arguments(raw: str) -> dict[str, Any]:
    try:
        value = json.loads(raw) if raw else {}
    except json.JSONDecodeError:
        return {"_raw": raw}
    return value if isinstance(value, dict) else {"_raw": value}


def _first(args: dict[str, Any], *keys: str) -> str | None:
    for key in keys:
        value = args.get(key)
        if isinstance(value, str | int | float) and str(value):
            return str(value)
    return None


def describe(call: ToolCall, result: Message | None) -> ToolFact:
    args = parse_arguments(call.arguments)
    output = result.text if result is not None else ""
    path = _first(args, "path", "file_path", "filename", "file", "target_file", "uri")
    command = _first(args, "command", "cmd", "script", "code")
    pattern = _first(args, "pattern", "query", "regex", "search", "q", "glob")
    name = call.name
    if command is not None and (_SHELL.search(name) or not path):
        return _shell(command, output)
    if pattern is not None and _SEARCH.search(name):
        return _search(pattern, path, output)
    if path is not None and _EDIT.search(name):
        return ToolFact("edit", f"{name} {path}: {_edit_summary(args)}", _failed(output), f"edited {path}")
    if path is not None and _READ.search(name):
        lines = output.count("\n") + 1 if output else 0
        return ToolFact("read", f"read {path} ({lines} lines)", _failed(output))
    brief = clip(json.dumps(args, ensure_ascii=False), 160) if args else ""
    outcome = first_sentence(output, 160) if output else "no output"
    return ToolFact("tool", f"{name}({brief}) → {outcome}", _failed(output))


def _failed(output: str) -> str | None:
    head = output[:4000]
    if re.match(r"\s*(error|failed|exception)", head, re.I):
        return first_error_line(head) or clip(head, 200)
    return None


def _shell(command: str, output: str) -> ToolFact:
    code = exit_code(output)
    error = first_error_line(output) if output else None
    status = f"exit {code}" if code is not None else ("error" if error else "ok")
    action = f"ran `{clip(command, 160)}` → {status}"
    if code not in (None, 0) and error is None:
        error = clip(output.strip().splitlines()[-1], 240) if output.strip() else "no output"
    failed = (code is not None and code != 0) or (code is None and error is not None)
    return ToolFact(
        "shell",
        action,
        f"`{clip(command, 120)}` failed ({status}): {error}" if failed else None,
        None if failed else f"ran `{clip(command, 80)}` successfully",
    )


def _search(pattern: str, path: str | None, output: str) -> ToolFact:
    lines = [line for line in output.splitlines() if line.strip()]
    files = []
    for line in lines:
        head = line.split(":", 1)[0]
        if ("/" in head or "." in head) and head not in files:
            files.append(head)
    where = f" in {path}" if path else ""
    found = f"{len(lines)} matching lines" + (f" ({', '.join(files[:5])})" if files else "")
    return ToolFact("search", f"searched '{clip(pattern, 80)}'{where} → {found}")


def _edit_summary(args: dict[str, Any]) -> str:
    old = _first(args, "old_str", "old_string", "old", "search")
    new = _first(args, "new_str", "new_string", "new", "replace", "content", "text", "patch", "diff")
    if old is not None and new is not None:
        return f"replaced `{clip(old, 60)}` with `{clip(new, 60)}`"
    if new is not None:
        return f"wrote {new.count(chr(10)) + 1} lines"
    return "changed"
