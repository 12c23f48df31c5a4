"""Lazy, offline import of litellm.

`import litellm` costs seconds, so nothing imports it at module level. The first caller pays, with
litellm told to use its bundled model map (no network) and tiktoken pointed at litellm's bundled
encodings (this machine cannot download them).
"""

from __future__ import annotations

import os
from functools import cache
from types import ModuleType


@cache
def load_litellm() -> ModuleType:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOG", "ERROR")
    import litellm

    litellm.suppress_debug_info = True
    litellm.telemetry = False
    return litellm
