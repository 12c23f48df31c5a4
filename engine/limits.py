"""Upper bounds of numeric settings: past them a number is a typo, not a wish (and would overflow or
exhaust memory further down)."""

MAX_TOKENS = 100_000_000  # no model's window or reply comes near; beyond it a number is a typo
MAX_COUNT = 1_000_000
DEFAULT_MAX_INPUT_BYTES = 4 * 1024 * 1024  # the `max_input_bytes` setting's default (config.py, input_limit.py)
