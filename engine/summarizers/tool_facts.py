"""What a tool call did, by kind of tool: file reads, shell commands, searches, edits.

Tools are recognised by argument shape as much as by name, because agents name them differently:
- shell: `bash`, `execute_bash`, `shell`, `run_command`, Claude Code's `Bash`, or any call whose
  arguments hold a `command`/`cmd` string that is not an editor sub-command;
- editors: SWE-agent's and OpenHands' `str_replace_editor` (`command: view|create|str_replace|insert|
  undo_edit`), Claude Code's `Read`/`Edit`/`MultiEdit`/`Write`, `read_file`, `edit_file`, `write_file`;
- patches: `apply_patch` with a unified diff or a `*** Update File:` envelope;
- searches: `grep`, `Grep`, `Glob`, `search`, `find`;
- code runners: `python` / `execute_ipython_cell` with code (the ChatGPT code interpreter shape).
Each call becomes a `ToolFact`: a one-line action, the files it touched, the command it ran and the
outcome (exit code, test counts, first error line, edited lines).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .. import untrusted_json
from ..facts import clip, first_sentence
from ..messages import Message, ToolCall
from .outcome import Outcome, edited_lines, shell_outcome, tool_failed
from .shell_effects import FileEffect, command_head, shell_effects

_READ = re.compile(r"read|view|cat|open|show|get_file|load", re.I)
_SHELL = re.compile(r"bash|shell|exec|run|terminal|command|cmd", re.I)
_CODE = re.compile(r"python|ipython|code_interpreter|jupyter|notebook", re.I)
_SEARCH = re.compile(r"search|grep|find|glob|rg|lookup|query", re.I)
_EDIT = re.compile(r"edit|write|patch|replace|create|insert|update|save|modify|delete|remove", re.I)
EDITOR_COMMANDS = {
    "view": "read",
    "create": "created",
    "str_replace": "edited",
    "insert": "edited",
    "undo_edit": "edited",
    "write": "created",
}
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (\S+)|^\+\+\+ (?:b/)?(\S+)|^--- (?:a/)?(\S+)", re.M)
_CODE_WRITE = re.compile(
    r"""(?:to_csv|to_excel|to_json|to_parquet|savefig|save|open)\(\s*['"]([^'"\n]{1,200})['"](?:\s*,\s*['"]([wax])b?\+?['"])?"""
)
_CODE_PATH = re.compile(r"""['"]((?:/|\./)?[\w.~-]+(?:/[\w.~-]+)*\.[A-Za-z]\w{0,7})['"]""")


@dataclass(frozen=True)
class ToolFact:
    """One tool call digested: an action line, its files, command and outcome, maybe an error."""

    kind: str
    action: str
    error: str | None = None
    done: str | None = None
    effects: tuple[FileEffect, ...] = field(default=())
    command: str | None = None
    outcome: str = ""
    failed: bool = False


def parse_arguments(raw: str) -> dict[str, Any]:
    """A call's arguments; text that is not a JSON object we can read safely stays text (`_raw`)."""
    value = untrusted_json.loads(raw) if raw else {}
    if value is None:
        return {"_raw": raw[:2000]}
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
    return describe_parts(call.name, args, output)


def describe_parts(name: str, args: dict[str, Any], output: str) -> ToolFact:
    path = _first(args, "path", "file_path", "filename", "file", "target_file", "notebook_path", "uri")
    command = _first(args, "command", "cmd", "script")
    code = _first(args, "code", "_raw") if _CODE.search(name) or "code" in args else None
    pattern = _first(args, "pattern", "query", "regex", "search", "q", "glob")
    if command in EDITOR_COMMANDS and path is not None:
        return _editor(name, EDITOR_COMMANDS[command], path, args, output)
    if command is not None and (_SHELL.search(name) or not path):
        return _shell(command, output)
    if code is not None:
        return _code(code, output)
    if "patch" in name.lower() or (_first(args, "patch", "diff", "input") and "patch" in str(args).lower()[:200]):
        patch = _first(args, "patch", "diff", "input", "_raw")
        if patch is not None:
            return _patch(patch, output)
    if pattern is not None and _SEARCH.search(name):
        return _search(pattern, path, output)
    if path is not None and _EDIT.search(name):
        op = "created" if re.search(r"write|create|save", name, re.I) and "old" not in str(args)[:400] else "edited"
        if re.search(r"delete|remove", name, re.I):
            op = "deleted"
        return _editor(name, op, path, args, output)
    if path is not None and (_READ.search(name) or name.lower() in ("ls", "list_dir", "list_directory")):
        return _editor(name, "read", path, args, output)
    brief = clip(json.dumps(args, ensure_ascii=False), 160) if args else ""
    outcome = first_sentence(output, 160) if output else "no output"
    error = tool_failed(output)
    return ToolFact("tool", f"{name}({brief}) → {outcome}", error, failed=error is not None)


def _editor(name: str, op: str, path: str, args: dict[str, Any], output: str) -> ToolFact:
    error = tool_failed(output)
    if op == "read":
        lines = output.count("\n") + 1 if output else 0
        read = FileEffect(path, "read", f"{lines} lines")
        return ToolFact("read", f"read {path} ({lines} lines)", error, effects=(read,))
    detail = _edit_summary(args)
    where = edited_lines(output)
    if where and op == "edited":
        detail = f"{where}, {detail}"
    if "undo" in str(args.get("command", "")):
        detail = "undid the last edit"
    effect = FileEffect(path, op, detail)
    return ToolFact(
        "edit",
        f"{name} {path}: {detail}",
        error,
        None if error else f"{op} {path}",
        effects=(effect,),
        failed=error is not None,
    )


def _shell(command: str, output: str) -> ToolFact:
    verdict = shell_outcome(output)
    return _command_fact("shell", command, verdict, tuple(shell_effects(command)))


def _command_fact(kind: str, command: str, verdict: Outcome, effects: tuple[FileEffect, ...]) -> ToolFact:
    head = command_head(command)
    error = f"`{clip(head, 120)}` failed ({verdict.summary}): {verdict.error}" if verdict.failed else None
    return ToolFact(
        kind,
        f"ran `{clip(head, 160)}` → {verdict.summary}",
        error,
        None if verdict.failed else f"ran `{clip(head, 80)}` successfully",
        effects=effects,
        command=head,
        outcome=verdict.summary + (f": {clip(verdict.error, 120)}" if verdict.failed and verdict.error else ""),
        failed=verdict.failed,
    )


def _code(code: str, output: str) -> ToolFact:
    written = {m.group(1) for m in _CODE_WRITE.finditer(code[:20_000]) if m.group(2) or "open" not in m.group(0)}
    effects = [FileEffect(p, "created", "written by code") for p in sorted(written)]
    effects += [FileEffect(p, "read") for p in dict.fromkeys(_CODE_PATH.findall(code[:20_000])) if p not in written]
    lines = [line for line in code.strip().splitlines() if line.strip() and not line.lstrip().startswith("#")]
    head = f"python: {lines[0].strip()}" if lines else "python"
    if len(lines) > 1:
        head += f" (+{len(lines) - 1} lines)"
    return _command_fact("code", head, shell_outcome(output), tuple(effects))


def _patch(patch: str, output: str) -> ToolFact:
    effects: dict[str, FileEffect] = {}
    source = ""  # the `--- a/x` side of the file pair being read
    for match in _PATCH_FILE.finditer(patch[:200_000]):
        action, envelope_path, plus, minus = match.groups()
        if envelope_path:
            op = {"Add": "created", "Update": "edited", "Delete": "deleted"}[action]
            effects[envelope_path] = FileEffect(envelope_path, op, "apply_patch")
        elif minus:
            source = minus
        elif plus == "/dev/null":
            effects[source] = FileEffect(source, "deleted", "apply_patch")
        elif plus:
            effects[plus] = FileEffect(plus, "created" if source == "/dev/null" else "edited", "apply_patch")
    error = tool_failed(output)
    paths = ", ".join(effects) or "no files"
    return ToolFact(
        "edit",
        f"apply_patch {paths}",
        error,
        None if error else f"patched {paths}",
        effects=tuple(effects.values()),
        failed=error is not None,
    )


def _search(pattern: str, path: str | None, output: str) -> ToolFact:
    lines = [line for line in output[:50_000].splitlines() if line.strip()]
    files: list[str] = []
    for line in lines:
        head = line.split(":", 1)[0]
        if ("/" in head or "." in head) and head not in files:
            files.append(head)
    where = f" in {path}" if path else ""
    found = f"{len(lines)} matching lines" + (f" ({', '.join(files[:5])})" if files else "")
    return ToolFact("search", f"searched '{clip(pattern, 80)}'{where} → {found}")


def _edit_summary(args: dict[str, Any]) -> str:
    edits = args.get("edits")
    if isinstance(edits, list) and edits:
        return f"{len(edits)} replacements"
    old = _first(args, "old_str", "old_string", "old", "search")
    new = _first(args, "new_str", "new_string", "new", "replace", "content", "file_text", "text", "patch", "diff")
    if old is not None and new is not None:
        return f"replaced `{clip(old, 60)}` with `{clip(new, 60)}`"
    if new is not None:
        return f"wrote {new.count(chr(10)) + 1} lines"
    return "changed"
