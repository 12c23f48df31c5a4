"""The README and config.example.toml: links stay inside the repository, and both say the same thing."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_readme_links_and_paths_stay_inside_the_repository():
    for target in re.findall(r"\]\(([^)]+)\)", README):
        if not target.startswith(("http://", "https://")):
            assert (ROOT / target).resolve().is_relative_to(ROOT) and (ROOT / target).exists(), target
    assert "../" not in README


def test_summarizer_auto_is_described_the_same_way_in_readme_and_config_example():
    example = (ROOT / "config.example.toml").read_text()
    for text in (" ".join(README.split()), " ".join(example.replace("#", " ").split())):
        assert "on a hosted model, the LLM summarizer with summarizer_model, or else that provider's cheapest" in text
        assert "on the local model, or without the provider's key, the rules summarizer" in text
    assert "for now" not in example


# -- the README's commands and keys are the app's ----------------------------------------------------------
# Two ways: a command or key the README names that the app does not have, and one the app has (on a screen
# or widget the README describes) that the README does not name.


def slash_paragraph() -> str:
    """The README's list of slash commands: from "Slash commands:" to the blank line."""
    return README.split("Slash commands:", 1)[1].split("\n\n", 1)[0]


def test_the_readme_lists_every_slash_command_and_no_other():
    from foldchat.tui.slash import BY_NAME

    listed = set(re.findall(r"`/([a-z]+)", slash_paragraph()))
    assert listed == set(BY_NAME), f"missing: {set(BY_NAME) - listed}, not commands: {listed - set(BY_NAME)}"
    named_anywhere = set(re.findall(r"`/([a-z]+)", README))
    assert named_anywhere <= set(BY_NAME), named_anywhere - set(BY_NAME)


MODIFIED = re.compile(r"\b(?:(?:Ctrl|Shift|Alt)\+)+(?:F\d{1,2}\b|Enter\b|Tab\b|[A-Z]\b)")
PLAIN = re.compile(r"\b(?:F\d{1,2}|Enter|Esc|Tab|Backspace|Home|PageUp|PageDown)\b|↑|↓|`([a-z])`")  # `y`: a letter key
LETTER = re.compile(r"(?<![\w+`/])[a-z](?![\w`])")  # p / c / y in the table's key column
NAMES = {"esc": "escape", "↑": "up", "↓": "down"}
REMARKS = {"ctrl+h"}  # named to say it is not a key of ours: terminals send it as Backspace


def keys_in(text: str) -> set[str]:
    """Textual's names of the keys `text` names ("Ctrl+J" → "ctrl+j", "Esc" → "escape", "↑" → "up")."""
    found = MODIFIED.findall(text) + [m.group(1) or m.group(0) for m in PLAIN.finditer(text)]
    return {NAMES.get(key.lower(), key.lower()) for key in found}


def key_table() -> str:
    """The rows of the README's key table."""
    table = README.split("| key | what it does |", 1)[1].split("\n\n", 1)[0]
    return "\n".join(row for row in table.splitlines() if row.startswith("|") and not row.startswith("|---"))


def table_keys() -> set[str]:
    letters = {letter for row in key_table().splitlines() for letter in LETTER.findall(row.split("|")[1])}
    return keys_in(key_table()) | letters


def passages(phrase: str) -> str:
    """The README's paragraphs, list items and table rows that mention `phrase`."""
    parts = re.split(r"\n\s*\n|\n- |\n(?=\|)", README)
    return "\n".join(part for part in parts if phrase.lower() in part.lower())


def bindings(cls: type, inherited: bool = False) -> set[str]:
    """The keys `cls` binds (its own BINDINGS, or with `inherited` those of its bases too)."""
    classes = cls.__mro__ if inherited else (cls,)
    found = set()
    for klass in classes:
        for binding in vars(klass).get("BINDINGS", []):
            key = binding.key if hasattr(binding, "key") else binding[0]
            found |= set(key.split(","))
    return found


def app_keys() -> set[str]:
    """Every key the app acts on: every binding of every screen and widget, Textual's own that it keeps
    (the composer's text area: Ctrl+Z, F7; the command palette), and the keys the composer reads itself."""
    import importlib
    import inspect
    import pkgutil

    import foldchat.tui
    from foldchat.tui.app import FoldchatApp
    from foldchat.tui.widgets.composer import NEWLINE_KEYS, Composer

    found = {FoldchatApp.COMMAND_PALETTE_BINDING, *bindings(Composer, inherited=True)}
    for module in pkgutil.walk_packages(foldchat.tui.__path__, "foldchat.tui."):
        for _, cls in inspect.getmembers(importlib.import_module(module.name), inspect.isclass):
            found |= bindings(cls)
    read_by_composer = {"enter", "up", "tab", "backspace"}
    source = inspect.getsource(Composer._on_key)
    assert all(f'event.key == "{key}"' in source for key in read_by_composer)
    return found | read_by_composer | set(NEWLINE_KEYS)


def test_every_key_the_readme_names_is_one_the_app_has():
    missing = (keys_in(README) | table_keys()) - REMARKS - app_keys()
    assert not missing, f"the README names keys the app does not have: {sorted(missing)}"


def dialogs() -> dict[type, str]:
    """The dialogs the README describes in a passage of their own: what it says there is all about them."""
    from foldchat.tui.screens.fold_consent import FoldConsent
    from foldchat.tui.screens.fold_preview import FoldPreview

    return {FoldConsent: passages("**Consent.**"), FoldPreview: passages("**Preview.**")}


def test_the_keys_the_readme_gives_a_dialog_are_that_dialogs():
    for dialog, text in dialogs().items():
        assert text and keys_in(text) <= bindings(dialog), (dialog.__name__, keys_in(text) - bindings(dialog))


# Screens that list their own keys where they are (conversations, model picker, confirm, a message's text,
# the attachment tray) are not checked: the README does not describe their keys.
NOT_IN_README = {
    ("ChatScreen", "home"): "the transcript's 'earlier items' line says it (press Home to load more)",
}


def test_every_key_of_a_screen_the_readme_describes_is_in_the_readme():
    from foldchat.tui.app import FoldchatApp
    from foldchat.tui.conversation import Conversation
    from foldchat.tui.screens.chat import ChatScreen
    from foldchat.tui.screens.fold_inspector import FoldInspector
    from foldchat.tui.screens.message_actions import MessageActions
    from foldchat.tui.widgets.composer import Composer
    from foldchat.tui.widgets.fold_marker import FoldMarker
    from foldchat.tui.widgets.message import MessageView

    chat_level = dict.fromkeys(
        [FoldchatApp, ChatScreen, Conversation, Composer, MessageView, MessageActions, FoldMarker], table_keys()
    )
    named = (
        chat_level
        | {FoldInspector: keys_in(passages("fold inspector"))}
        | {dialog: keys_in(text) for dialog, text in dialogs().items()}
    )
    unnamed = [
        f"{cls.__name__}: {key}"
        for cls, keys in named.items()
        for key in sorted(bindings(cls))
        if key not in keys and (cls.__name__, key) not in NOT_IN_README
    ]
    assert not unnamed, f"keys the README does not name where it describes them: {unnamed}"
