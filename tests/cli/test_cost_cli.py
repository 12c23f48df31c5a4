"""What a conversation cost, told by `show` and `list` from the usage stored with each reply: cached
reads, cache writes, the cost without the cache, and the total with what caching saved."""

from __future__ import annotations

from foldchat.engine.messages import Message
from foldchat.engine.providers.events import UsageReport
from foldchat.engine.store import Store
from foldchat.engine.store.usage_rows import set_usage, totals

from cli.test_import_cli import environment, run


def conversation_with_usage(tmp_path) -> None:
    store = Store(tmp_path / "db.sqlite")
    try:
        conversation = store.create_conversation("caching", model="claude")
        store.append(conversation, Message.user("plan day 1"))
        first = store.append(conversation, Message.assistant("Ribeira."), model="claude", cost=0.0375)
        set_usage(store, first, UsageReport(10_000, 100, 0.0375, 0, 9_000, 0, 0.0315))
        store.append(conversation, Message.user("and day 2?"))
        second = store.append(conversation, Message.assistant("Foz."), model="claude", cost=0.0069)
        set_usage(store, second, UsageReport(10_200, 120, 0.0069, 9_000, 0, 40, 0.0324))
        spent = totals(store, conversation)
        assert spent.cached_tokens == 9_000 and round(spent.cost, 4) == 0.0444
    finally:
        store.close()


def test_show_gives_each_replys_usage_and_the_total_with_what_caching_saved(tmp_path):
    env = environment(tmp_path)
    conversation_with_usage(tmp_path)
    done = run("show", "1", env=env)
    assert done.returncode == 0, done.stderr
    assert "(input 10,000, 9,000 written to the cache · output 100 · $0.0375 ($0.0315 without the cache))" in done.stdout
    assert "(input 10,200, 9,000 cached · output 120 (40 reasoning) · $0.0069 ($0.0324 without the cache))" in done.stdout
    assert "cost: $0.0444 · 45% of input cached · caching saved $0.0195" in done.stdout


def test_list_totals_every_conversation(tmp_path):
    env = environment(tmp_path)
    conversation_with_usage(tmp_path)
    done = run("list", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "total cost: $0.0444 · 45% of input cached · caching saved $0.0195"
