"""condense.py: one oversized message digested in the context; the current turn never touched."""

from foldchat.engine import Message
from foldchat.engine.fold.condense import CONDENSED_MARK, condense, condense_oversized, is_condensed


class WordCounter:
    """One token per word: enough to put messages above or below a threshold on purpose."""

    def count_message(self, message: Message) -> int:
        return len(message.text.split())

    def count(self, messages) -> int:
        return sum(map(self.count_message, messages))

    def count_text(self, text: str) -> int:
        return len(text.split())


LOG = "\n".join(f"line {n}: GET /api/orders/ORD-{n:04d} 200" for n in range(400)) + "\nError: disk full on /var/db"


def test_condense_keeps_role_call_id_start_end_error_and_identifiers():
    original = Message.tool("call_7", LOG, name="read_file")
    short = condense(original, original_tokens=2400, token_budget=100)
    assert short.role == "tool" and short.tool_call_id == "call_7"
    assert short.text.startswith(CONDENSED_MARK) and "2,400 tokens" in short.text
    assert "line 0:" in short.text and "disk full" in short.text
    assert "ORD-0000" in short.text
    assert len(short.text) < len(LOG) / 4
    assert is_condensed(short) and not is_condensed(original)


def test_condense_oversized_only_touches_big_replies_and_tool_outputs_before_the_current_turn():
    big = "word " * 500
    messages = [
        Message.user(big),  # a user message is never condensed
        Message.assistant(big),
        Message.assistant("small"),
        Message.user("current turn"),
        Message.assistant(big),  # inside the current turn: kept verbatim
    ]
    result = condense_oversized(messages, before=3, counter=WordCounter(), threshold=100)
    assert result.positions == (1,)
    assert is_condensed(result.messages[1])
    assert result.messages[0] is messages[0] and result.messages[2:] == messages[2:]
    assert messages[1].text == big  # the input list and its messages are unchanged


def test_condense_oversized_with_nothing_over_the_threshold_returns_equal_messages():
    messages = [Message.user("a b"), Message.assistant("c d e")]
    result = condense_oversized(messages, before=2, counter=WordCounter(), threshold=10)
    assert result.messages == messages and result.positions == ()
