"""`foldchat compress`: the fold engine from the shell, JSON in and JSON out."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


class PolicyDefault:
    """A default of the engine's fold policy, which --help shows and `run` tells from an option given:
    only the options given are validated (the defaults are valid, and checking them would load pydantic)."""

    def __init__(self, field: str) -> None:
        self.field = field

    def __str__(self) -> str:
        from foldchat.engine import FoldPolicy

        return str(getattr(FoldPolicy, self.field))  # a dataclass field's default, on its class


DESCRIPTION = """\
Read a JSON array of OpenAI chat messages (from FILE, or stdin with '-') and print one JSON object
{"messages": [...], "report": {...}}. Without --force the history is folded only when the fold policy
triggers (context + reserved output >= trigger ratio x window); otherwise it comes back unchanged,
apart from the repairs every provider needs (tool results after their calls, alternating roles).
After a fold the output holds one <state_snapshot> message, an acknowledgement and the recent turns
verbatim, and its token count (for --model) is at or below the target."""
EPILOG = """\
exit status: 0 ok; 1 the current turn alone does not fit the window; 2 bad input or options.
example: foldchat compress chat.json --model gpt-4o --force | jq .report"""


def add_parser(p: argparse.ArgumentParser) -> None:
    """`compress`'s arguments (its help line is in commands.py)."""
    p.description, p.epilog, p.formatter_class = DESCRIPTION, EPILOG, argparse.RawDescriptionHelpFormatter
    p.add_argument(
        "file",
        nargs="?",
        default="-",
        metavar="FILE|-",
        help="JSON file with the messages; '-' or nothing reads stdin",
    )
    p.add_argument(
        "--model", required=True,
        help="model whose tokenizer and window are used: a litellm name (e.g. gpt-4o), a config alias or 'local'",
    )
    p.add_argument(
        "--context-window",
        type=_positive_int,
        metavar="N",
        help="window in tokens; required for models litellm does not know, overrides it otherwise",
    )
    p.add_argument(
        "--summarizer",
        choices=["rules", "llm"],
        default="rules",
        help="who writes the snapshot: 'rules' is deterministic and offline (default); 'llm' asks a model "
        "(--summarizer-model) and falls back to rules, saying so in the report, if its answer is unusable",
    )
    p.add_argument(
        "--summarizer-model",
        metavar="M",
        help="model for --summarizer llm: config alias, litellm model or 'local' (default: --model)",
    )
    p.add_argument("--config", metavar="PATH", help="config file, for model aliases and [local] (default: the usual lookup)")
    p.add_argument(
        "--force",
        action="store_true",
        help="fold whatever can be folded, whatever the policy says (what /resummarize does)",
    )
    p.add_argument(
        "--trigger-ratio",
        type=_ratio,
        default=PolicyDefault("trigger_ratio"),
        metavar="R",
        help="fold when usage reaches R x window (default %(default)s)",
    )
    p.add_argument(
        "--target-ratio",
        type=_ratio,
        default=PolicyDefault("target_ratio"),
        metavar="R",
        help="after a fold, usage is at or below R x window (default %(default)s)",
    )
    p.add_argument(
        "--keep-ratio",
        type=_ratio,
        default=PolicyDefault("keep_ratio"),
        metavar="R",
        help="budget of the verbatim recent turns, R x window (default %(default)s)",
    )
    p.add_argument(
        "--reserve-output",
        type=_non_negative_int,
        metavar="N",
        default=PolicyDefault("reserved_output"),
        help="tokens reserved for the reply, counted in usage (default %(default)s); like in the app, never "
        "more than the model's output cap nor a quarter of the window",
    )
    p.add_argument("--focus", metavar="TEXT", help="what the snapshot should pay most attention to")
    p.add_argument(
        "--pin",
        action="append",
        default=[],
        metavar="TEXT",
        help="text quoted verbatim in the snapshot's pinned section (repeatable)",
    )
    p.add_argument("--indent", type=_non_negative_int, metavar="N", help="pretty-print the JSON output")
    p.set_defaults(run=run)


def _ratio(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1: {text}")
    return value


def _positive_int(text: str) -> int:
    value = _non_negative_int(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return value


def read_json(path: str, limit: int, setting: str = "max_input_bytes") -> Any:
    """Parsed JSON from FILE or stdin, at most `limit` bytes (the setting named `setting`)."""
    from foldchat.cli.inputs import parse_json, read_text

    return parse_json(read_text(path, limit, setting), "stdin" if path == "-" else path)


def run(args: argparse.Namespace) -> int:
    from foldchat.engine import CompressOptions, FoldPolicy, compress_messages, dump_messages, max_input_bytes

    given = {
        "trigger_ratio": args.trigger_ratio,
        "target_ratio": args.target_ratio,
        "keep_ratio": args.keep_ratio,
        "reserved_output": args.reserve_output,
    }
    # what was not given is the policy's own default
    policy = FoldPolicy.checked(
        **{name: value for name, value in given.items() if not isinstance(value, PolicyDefault)}
    )
    options = CompressOptions(
        model=args.model,
        context_window=args.context_window,
        policy=policy,
        force=args.force,
        summarizer=args.summarizer,
        summarizer_model=args.summarizer_model,
        config=args.config,
        focus=args.focus,
        pinned=tuple(args.pin),
    )
    data = read_json(args.file, max_input_bytes(args.config))  # bounded before parsing
    result = compress_messages(data, options)
    output = {"messages": dump_messages(result.messages), "report": result.report.to_dict()}
    from foldchat.engine import json_safe

    sys.stdout.write(json_safe(json.dumps(output, indent=args.indent, ensure_ascii=False)))
    sys.stdout.write("\n")
    notice = result.report.rules_notice()
    if notice:  # stdout is the JSON; the person running it is told on stderr
        from foldchat.engine import visible

        print(f"foldchat: {visible(notice)}", file=sys.stderr)
    return 0
