"""Talking to models (docs/design.md §8): what a model is, the one streaming call path, its errors, adapting a
conversation to a provider, and resolving names.

- `target`: `ModelTarget`, a model resolved from a name;
- `events`: what a reply yields (`TextDelta`, `Retrying`, `Finished`, `Failed`, ...);
- `stream`: `stream_reply`, hosted models through litellm and the local one through `local.stream`;
- `errors`: what failed, whether to retry, and the one line to show;
- `adapt`: a conversation in the shape a provider accepts;
- `registry`: `ModelRegistry`, names and aliases to targets, the local server's owner.
"""
