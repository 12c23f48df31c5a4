"""What a shell command did to files, read from the command line alone.

Agents that only have a shell (mini-swe-agent, OpenHands' `execute_bash`, Claude Code's `Bash`) read
with `cat`/`nl`/`sed -n`, create with `cat <<EOF > f`, edit with `sed -i`, delete with `rm`. This module
splits a command into its simple commands (`&&`, `;`, `|`) and names each path with what happened to it.
It reads at most the command's first lines (a heredoc body is data, not commands) and runs in linear time.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

COMMAND_SCAN_CHARS = 2000

# Commands that only look: a successful run of one of these is the least informative trail line.
_READ_ONLY_WORDS = (
    "cat nl head tail less more ls ll tree find grep rg ag wc pwd echo printf which whereis file stat du df "
    "env printenv sort uniq cut awk diff cmp type realpath readlink basename dirname id whoami date"
)
READ_ONLY_VERBS = frozenset(_READ_ONLY_WORDS.split())
_READING_WORDS = "cat nl head tail less more wc grep rg ag sort uniq cut awk diff cmp stat file"
_READING_VERBS = frozenset(_READING_WORDS.split())
_PATTERN_FIRST = frozenset(["sed", "awk", "grep", "egrep", "fgrep", "rg", "ag"])
_SEPARATOR = re.compile(r"&&|\|\||[;|&\n]")
_PATH_CHARS = re.compile(r"[\w.~/@+-]+")
_EXTENSION = re.compile(r"\.[A-Za-z]\w{0,7}$")
_NUMBERISH = re.compile(r"[\d.]+")
_REDIRECT = re.compile(r"(>>?)\s*([^\s;&|<>]+)")
_HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)")


@dataclass(frozen=True)
class FileEffect:
    """One path and what a command or tool did to it: read, created, edited or deleted."""

    path: str
    op: str
    detail: str = ""


def _words(segment: str) -> list[str]:
    """Shell words: quoted text stays one word (`'s/a b/c/'` is not two paths)."""
    try:
        return shlex.split(segment, comments=False)
    except ValueError:  # an unbalanced quote (a cut command): plain words
        return [w.strip("'\"") for w in segment.split()]


def _operands(verb: str, args: list[str]) -> list[str]:
    """The arguments that can name files: a sed/awk/grep script or pattern comes first and is not one."""
    operands = [a for a in args if not a.startswith("-")]
    scripted = any(a in ("-e", "-f") or a.startswith(("--expression", "--file", "--regexp")) for a in args)
    if verb in _PATTERN_FIRST and not scripted:
        return operands[1:]
    return operands


def _is_path(word: str) -> bool:
    if not word or word.startswith("-") or "://" in word or _NUMBERISH.fullmatch(word):
        return False
    # a path-looking word: path characters only, and a slash or a file extension
    if _PATH_CHARS.fullmatch(word) is None:
        return False
    return "/" in word.strip("/") or _EXTENSION.search(word) is not None


def command_head(command: str) -> str:
    """The command as a person would name it: its first line, without a heredoc body."""
    first = command.strip().split("\n", 1)[0]
    return " ".join(first.split())


def shell_effects(command: str) -> list[FileEffect]:
    """The files `command` reads, creates, edits or deletes, in order (a path may appear twice)."""
    text = command[:COMMAND_SCAN_CHARS]
    heredoc = _HEREDOC.search(text)
    if heredoc is not None:  # the body up to the terminator is file content, not commands
        text = text[: heredoc.end()] + text[heredoc.end() :].split("\n", 1)[0]
    effects: list[FileEffect] = []
    for target in _REDIRECT.finditer(text):
        path = target.group(2).strip("'\"")
        if _is_path(path) and not path.startswith("/dev/"):
            effects.append(FileEffect(path, "edited" if target.group(1) == ">>" else "created", "written by the shell"))
    redirected = {e.path for e in effects}
    for segment in _SEPARATOR.split(_REDIRECT.sub(" ", text)):
        words = _words(segment)
        if not words:
            continue
        verb, args = words[0], words[1:]
        if verb in ("sudo", "time", "command") and args:
            verb, args = args[0], args[1:]
        paths = [w for w in _operands(verb, args) if _is_path(w) and w not in redirected]
        if verb == "sed" and any(a.startswith("-i") for a in args):
            effects += [FileEffect(p, "edited", "sed -i") for p in paths]
        elif verb == "rm":
            effects += [FileEffect(p, "deleted") for p in paths]
        elif verb == "touch":
            effects += [FileEffect(p, "created") for p in paths]
        elif verb in ("mv", "cp") and len(paths) >= 2:
            if verb == "mv":
                effects += [FileEffect(p, "deleted", f"moved to {paths[-1]}") for p in paths[:-1]]
            effects.append(FileEffect(paths[-1], "created", f"{verb} from {paths[0]}"))
        elif verb in _READING_VERBS or verb == "sed":
            effects += [FileEffect(p, "read") for p in paths]
        elif verb.startswith("python") and args and _is_path(args[0]):  # a script, not `python -m tool`
            effects.append(FileEffect(args[0], "ran"))
    return effects


def is_read_only(command: str) -> bool:
    """True when every simple command in `command` only looks (ls, cat, grep, sed -n, git status, ...)."""
    head = command_head(command)
    if _REDIRECT.search(head):
        return False
    for segment in _SEPARATOR.split(head):
        words = _words(segment)
        if not words or words[0] == "cd":
            continue
        verb = words[0]
        if verb == "sed" and not any(w.startswith("-i") for w in words[1:]):
            continue
        if verb == "git" and len(words) > 1 and words[1] in ("status", "diff", "log", "show", "branch", "grep"):
            continue
        if verb not in READ_ONLY_VERBS:
            return False
    return True
