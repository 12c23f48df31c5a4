"""`foldchat compress` through the CLI's entry point, `main(argv)`, in this process: what it parses, prints
and exits with (its tokenizer and litellm loaded once for all of them, not once a test)."""

import json

import litellm
import pytest
from foldchat.engine import snapshot as snap

from cli.in_process import foldchat_main
from synth import coding_conversation


def run(*args, stdin=""):
    return foldchat_main(*args, stdin=stdin)


@pytest.fixture(scope="module")
def conversation(tmp_path_factory):
    raw, facts = coding_conversation(100_000)
    path = tmp_path_factory.mktemp("c") / "chat.json"
    path.write_text(json.dumps(raw))
    return path, raw, facts


def test_forced_fold_from_a_file(conversation):
    path, raw, facts = conversation
    done = run("compress", str(path), "--model", "gpt-4o", "--context-window", "100000", "--force")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    report = out["report"]
    for key in (
        "compressed",
        "reason",
        "tokens_before",
        "tokens_after",
        "window",
        "folded_messages",
        "kept_messages",
        "summarizer",
        "duration_ms",
    ):
        assert key in report
    assert report["compressed"] and report["summarizer"] == "rules"
    assert report["tokens_after"] == litellm.token_counter(model="gpt-4o", messages=out["messages"])
    assert report["tokens_after"] <= 0.35 * report["tokens_before"]
    kept = zip(out["messages"][-report["kept_messages"] :], raw[-report["kept_messages"] :], strict=True)
    # verbatim, except old tool outputs sent as stubs that name the transcript message holding them
    assert all(a == b or a["content"].startswith("[pruned by Foldchat:") for a, b in kept)
    text = json.dumps(out["messages"], ensure_ascii=False)
    assert text.count(snap.SNAPSHOT_OPEN) == 1
    assert [m.get("name") for m in out["messages"]].count(snap.SNAPSHOT_NAME) == 1
    assert [f for f in facts if f not in text] == []


def test_policy_decides_without_force(conversation):
    path, raw, _ = conversation
    big = run("compress", str(path), "--model", "gpt-4o", "--context-window", "1000000")
    assert json.loads(big.stdout)["report"]["compressed"] is False
    assert json.loads(big.stdout)["messages"] == raw
    small = run("compress", "-", "--model", "gpt-4o", "--context-window", "145000", stdin=path.read_text())
    report = json.loads(small.stdout)["report"]
    assert report["compressed"] and report["trigger"] == "auto"
    assert report["tokens_after"] + report["reserved_output"] <= report["target_tokens"]


def test_empty_list_is_nothing_to_do():
    done = run("compress", "--model", "gpt-4o", stdin="[]")
    assert done.returncode == 0
    assert json.loads(done.stdout)["messages"] == []


def test_ratio_options_change_the_trigger(conversation):
    path, _, _ = conversation
    done = run("compress", str(path), "--model", "gpt-4o", "--trigger-ratio", "0.5", "--target-ratio", "0.3")
    report = json.loads(done.stdout)["report"]
    assert report["trigger_tokens"] == 64_000 and report["target_tokens"] == 38_400


@pytest.mark.parametrize(
    ("stdin", "args", "message"),
    [
        ("not json", [], "not valid JSON"),
        ('{"role": "user"}', [], "JSON array"),
        ('[{"role": "robot", "content": "x"}]', [], "unknown role"),
        ('[{"role": "user"}]', [], "missing 'content'"),
        ('[{"role": "assistant", "content": null, "tool_calls": [{"id": 1}]}]', [], "tool call"),
        ("[]", ["--model", "no-such-model-xyz"], "unknown model"),
        ("[]", ["--trigger-ratio", "2"], "between 0 and 1"),
        ("[]", ["--target-ratio", "0.9"], "target_ratio"),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_2(stdin, args, message):
    model = [] if "--model" in args else ["--model", "gpt-4o"]
    done = run("compress", *model, *args, stdin=stdin)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_current_turn_too_large_exits_1():
    raw = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "yo"},
        {"role": "user", "content": "word " * 3000},
    ]
    done = run("compress", "--model", "gpt-4o", "--context-window", "1000", "--force", stdin=json.dumps(raw))
    assert done.returncode == 1
    assert "current user message" in done.stderr and "alone need" in done.stderr and "Traceback" not in done.stderr


def test_missing_file_is_a_usage_error(tmp_path):
    done = run("compress", str(tmp_path / "nope.json"), "--model", "gpt-4o")
    assert done.returncode == 2 and "cannot read" in done.stderr


def test_help_explains_every_option():
    done = run("compress", "--help")
    for option in (
        "--model",
        "--context-window",
        "--summarizer",
        "--force",
        "--trigger-ratio",
        "--target-ratio",
        "FILE|-",
    ):
        assert option in done.stdout


def test_standing_rules_past_the_snapshots_room_are_named_not_sent_over_the_window(tmp_path):
    """400 standing rules folded to 23k tokens on an 8k window (exit 0) and every later request failed."""
    messages = []
    for n in range(400):
        messages.append({"role": "user", "content": f"Rule {n}: always mention the code word ALPHA{n:03d} "
                         f"when you talk about project {n} and never use the number {n} in examples."})  # fmt: skip
        messages.append({"role": "assistant", "content": "Understood."})
    messages.append({"role": "user", "content": "Now summarise the project plan."})
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(messages))
    done = run("compress", str(path), "--model", "gpt-4o", "--context-window", "8192", "--force")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["report"]
    assert report["compressed"] and report["tokens_after"] + report["reserved_output"] <= 8192
    lost = report["rules_not_carried"]
    assert lost and lost[0].startswith("Rule 0: always") and len(lost) < 400
    snapshot = json.loads(done.stdout)["messages"][0]["content"]
    newest_folded = 399 - (report["kept_messages"] - 1) // 2  # the tail keeps the last rules verbatim
    assert "- Rule 0: always" not in snapshot and f"- Rule {newest_folded}: always" in snapshot  # the newest are carried
    assert f"{len(lost)} standing rules no longer fit the snapshot" in done.stderr


def test_a_config_alias_names_the_model_and_its_window(conversation, tmp_path):
    """The unknown-model error says to set context_window in config.toml: an alias that does is folded to,
    counted with its model's tokenizer (tiktoken's fallback for an OpenAI-compatible server), without a call."""
    path, _, _ = conversation
    config = tmp_path / "config.toml"
    config.write_text(
        '[models.tiny]\nmodel = "openai/my-own-server-model"\napi_base = "http://127.0.0.1:9/v1"\n'
        "context_window = 32000\nmax_output_tokens = 1000\n"
    )
    done = run("compress", str(path), "--model", "tiny", "--config", str(config), "--force")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["report"]
    assert report["compressed"] and report["window"] == 32000 and report["tokens_after"] <= 32000
    narrower = run("compress", str(path), "--model", "tiny", "--config", str(config), "--context-window", "9000")
    assert json.loads(narrower.stdout)["report"]["window"] == 9000  # the option still wins, as for any model
    unknown = run("compress", str(path), "--model", "other", "--config", str(config))
    assert unknown.returncode == 2 and "unknown model 'other'" in unknown.stderr


def test_the_window_given_serves_an_alias_whose_model_litellm_does_not_know(conversation, tmp_path):
    """The alias sets no context_window: the refusal said to pass --context-window, and refused it when passed."""
    path, _, _ = conversation
    config = tmp_path / "config.toml"
    config.write_text('[models.tiny]\nmodel = "openai/my-own-server-model"\napi_base = "http://127.0.0.1:9/v1"\n')
    refused = run("compress", str(path), "--model", "tiny", "--config", str(config))
    assert refused.returncode == 2 and "pass --context-window N" in refused.stderr
    given = run("compress", str(path), "--model", "tiny", "--config", str(config), "--context-window", "9000")
    assert given.returncode == 0, given.stderr
    assert json.loads(given.stdout)["report"]["window"] == 9000


def test_a_forced_fold_of_a_short_chat_never_drops_a_standing_rule_to_come_out_smaller(tmp_path):
    """20 short messages: the snapshot had to shrink below the turns it replaced, and the last cut went to
    "Always reply in bullet points" to save two tokens. A rule is worth more than that: the fold is refused."""
    said = ["Hi! We're going to a cabin trip next month.", "The cabin code is CR-7781.", "We arrive on 3 October.",
            "Always reply in bullet points.", "Miguel is allergic to nuts.", "Never suggest driving at night.",
            "What should we pack?", "How about food for 6 people?", "Any board games?", "What time is check-out?"]  # fmt: skip
    reply = "Sure, noted. Here are some ideas for that."
    raw = [m for text in said for m in ({"role": "user", "content": text}, {"role": "assistant", "content": reply})]
    raw[1]["content"] = "Sure, noted. " * 14
    done = run("compress", "-", "--model", "gpt-4o", "--context-window", "8192", "--force", stdin=json.dumps(raw))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["report"]["rules_not_carried"] == [] and "no longer fit" not in done.stderr
    if out["report"]["compressed"]:  # a fold that does come out smaller carries every rule
        assert "Always reply in bullet points." in out["messages"][0]["content"]
