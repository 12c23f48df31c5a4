"""A snapshot section is written once, on the schema (engine/snapshot_sections.py), and every part that
treats sections alike covers exactly the schema's sections: the LLM summarizer's prompt and JSON schema,
the rules summarizer, the check and the fit's cut order. A section added in one place only fails here."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import fields
from functools import partial
from pathlib import Path

import pytest
from foldchat.engine import quoted_snapshots, snapshot as snap
from foldchat.engine.fold import fit, supersede
from foldchat.engine.fold.check import CHECKED_SECTIONS, check_snapshot
from foldchat.engine.messages import Message, parse_messages
from foldchat.engine.snapshot import LIST_SECTIONS, SECTION_ROLES, SECTIONS, Snapshot
from foldchat.engine.summarizers import RulesSummarizer, llm
from foldchat.engine.summarizers.base import SummaryRequest

ENGINE = Path(__file__).resolve().parents[2] / "engine"
ATTRIBUTES = ("depth", "covers", "tokens_before")  # rendered on the <state_snapshot> tag, not as sections


def test_every_field_of_the_schema_is_a_section_or_an_attribute():
    assert tuple(each.name for each in fields(Snapshot) if each.name not in ATTRIBUTES) == SECTIONS
    assert all(each.metadata["description"] for each in fields(Snapshot) if each.name in SECTIONS)  # said once
    assert set(LIST_SECTIONS) | {"overall_goal"} == set(SECTIONS)


def test_every_section_is_rendered_and_read_back():
    full = snap.stored_snapshot(
        {name: [f"{name} item (#1)"] if name in LIST_SECTIONS else name for name in SECTIONS}
    )
    text = snap.render(full)
    assert [name for name in SECTIONS if f"<{name}>" in text] == list(SECTIONS)
    assert snap.parse(text) == full


# -- the LLM summarizer: its prompt's keys, its JSON schema, its reading of the answer ---------------------


def test_the_prompt_asks_for_every_section_in_order_and_no_other():
    keys = llm.SYSTEM.split("oldest first):\n", 1)[1].split("\nRules:", 1)[0]
    asked = [key.strip() for key in " ".join(keys.split()).rstrip(".").split(",")]
    assert asked == [name if name in LIST_SECTIONS else f"{name} (string)" for name in SECTIONS]
    # the instructions for one section name one the schema has
    explained = re.findall(r"^- (\w+):", llm.SYSTEM, re.M)
    assert explained and set(explained) <= set(SECTIONS)


def test_the_json_schema_is_the_sections():
    properties = llm.SNAPSHOT_SCHEMA["properties"]
    assert list(properties) == list(SECTIONS)
    assert all((properties[name]["type"] == "array") == (name in LIST_SECTIONS) for name in SECTIONS)
    assert llm.SNAPSHOT_SCHEMA["required"] == [name for name in SECTIONS if SECTION_ROLES[name].required]


def test_an_answer_with_every_section_fills_every_section():
    answer = {name: [f"{name} item"] if name in LIST_SECTIONS else f"{name} text" for name in SECTIONS}
    parsed = llm.parse_snapshot(json.dumps(answer))
    assert [name for name in SECTIONS if not getattr(parsed, name)] == []


# -- the rules summarizer fills every section --------------------------------------------------------------


def _call(cid: str, name: str, arguments: dict[str, str]) -> dict[str, object]:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


EDIT = {"command": "str_replace", "path": "src/export.py", "old_str": "row['total']", "new_str": "row['total_cents']"}
AGENT_SESSION = [
    {"role": "user", "content": "I'm trying to ship the invoice exporter by Friday. Always use UTC timestamps. "
                                "Let's go with CSV output."},
    {"role": "assistant", "content": None, "tool_calls": [_call("c1", "bash", {"command": "pytest tests/test_export.py"})]},
    {"role": "tool", "tool_call_id": "c1", "content": "E   KeyError: 'total_cents'\n1 failed"},
    {"role": "assistant", "content": None, "tool_calls": [_call("c2", "str_replace_editor", EDIT)]},
    {"role": "tool", "tool_call_id": "c2", "content": "The file src/export.py has been edited."},
    {"role": "assistant", "content": "The exporter reads total_cents now, and the test passes with 12 rows."},
    {"role": "user", "content": "Which columns should the header have?"},
]  # fmt: skip


def test_the_rules_summarizer_fills_every_section():
    request = SummaryRequest(parse_messages(AGENT_SESSION), pinned=("Deploy key is in vault path secret/export.",))
    written = RulesSummarizer().summarize(request)
    empty = [f"{name} ({SECTION_ROLES[name].rules})" for name in SECTIONS if not getattr(written, name)]
    assert not empty, f"the rules summarizer fills no item of: {empty}"


# -- the check restores into exactly the sections the schema marks checked --------------------------------


@pytest.mark.parametrize("name", LIST_SECTIONS)
def test_the_check_restores_a_lost_value_only_into_a_checked_section(name):
    said = [Message(role="user", content="The locker code is 7315-QX.")]
    reference = snap.with_sections(Snapshot(), {name: ["The locker code is 7315-QX. (#1)"]})
    checked = check_snapshot(Snapshot(), said, reference=reference)
    assert bool(getattr(checked.snapshot, name)) == SECTION_ROLES[name].checked
    assert (checked.restored > 0) == SECTION_ROLES[name].checked


def test_the_checked_sections_are_lists_of_the_schema():
    assert set(CHECKED_SECTIONS) <= set(LIST_SECTIONS)
    assert tuple(name for name in SECTIONS if SECTION_ROLES[name].checked) == CHECKED_SECTIONS


# -- the fit cuts every section (but what the schema says is kept whole), halving in the schema's order ----


def _size(snapshot: Snapshot) -> int:
    return len(snap.render(snapshot))


def _crowded(name: str) -> Snapshot:
    """A snapshot holding only `name`, far past a small budget."""
    items = [
        f"The blue crate {n} holds {n * 3} kg of flour for the Porto bakery on pier {n}. (#{n})" for n in range(1, 41)
    ]
    return snap.stored_snapshot({name: items if name in LIST_SECTIONS else " ".join(items)})


@pytest.mark.parametrize("name", SECTIONS)
def test_the_fit_cuts_every_section_the_schema_does_not_keep_whole(name):
    crowded = _crowded(name)
    budget = _size(Snapshot()) + 400
    fitted = fit.fit_snapshot(crowded, budget, _size)
    if SECTION_ROLES[name].kept_whole:
        assert getattr(fitted, name) == getattr(crowded, name)
    else:
        assert _size(fitted) < _size(crowded), f"the fit never cuts {name}"


def test_the_fit_halves_each_ranked_section_once_in_rank_order():
    halved = [step.keywords for step in fit.cut_order() if isinstance(step, partial) and step.func is fit._halving]
    ranked = sorted((roles.halving_rank, name) for name, roles in SECTION_ROLES.items() if roles.halving_rank)
    assert [h["name"] for h in halved] == [name for _, name in ranked]
    assert all(h["keep_newest"] != SECTION_ROLES[h["name"]].keep_oldest for h in halved)


def test_the_fit_sections_are_the_schema_s():
    for names, role in (
        (fit.STATEMENT_SECTIONS, "statements"),
        (fit.PLEASANTRY_SECTIONS, "pleasantries"),
        (fit.NEAR_DUPLICATE_SECTIONS, "near_duplicates"),
    ):
        assert names == tuple(name for name in SECTIONS if getattr(SECTION_ROLES[name], role))
        assert set(names) <= set(LIST_SECTIONS)


# -- no part names a section the schema lacks ---------------------------------------------------------------


def _update_keys(path: Path) -> list[tuple[int, str]]:
    """The literal keys of every `with_sections(snapshot, sections)` in `path`: a dict given there, or built
    in the same function under the name given. (`with_sections` refuses an unknown one, but only when that
    line runs: a rare branch could carry a misspelt section for long. `replace` is checked by the type checker.)"""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[tuple[int, str]] = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        for call in ast.walk(function):
            if not (isinstance(call, ast.Call) and len(call.args) == 2):
                continue
            name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
            if name == "with_sections":
                keys = _dict_keys(function, call.args[1])
                found += [(call.lineno, k.value) for k in keys if isinstance(k, ast.Constant)]
    return found


def _dict_keys(function: ast.AST, value: ast.expr) -> list[ast.expr]:
    if isinstance(value, ast.Dict):
        return [k for k in value.keys if k is not None]
    if not isinstance(value, ast.Name):
        return []
    keys: list[ast.expr] = []
    for node in ast.walk(function):
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        for target in targets:
            if isinstance(target, ast.Name) and target.id == value.id and isinstance(node.value, ast.Dict):
                keys += [k for k in node.value.keys if k is not None]
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == value.id:
                keys.append(target.slice)
    return keys


def test_no_update_of_a_snapshot_names_a_field_it_lacks():
    unknown = []
    for path in sorted(ENGINE.rglob("*.py")):
        unknown += [f"{path.relative_to(ENGINE)}:{line} {key}" for line, key in _update_keys(path) if key not in LIST_SECTIONS]
    assert not unknown, f"updates naming no field of the schema: {unknown}"


def test_the_scan_sees_a_section_named_in_an_update(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def f(s):\n    lists = {'people': []}\n    lists['places'] = []\n    return with_sections(s, lists)\n\n"
        "def g(s):\n    return snap.with_sections(s, {'pinned': []})\n"
    )
    assert sorted(key for _, key in _update_keys(sample)) == ["people", "pinned", "places"]


def test_the_other_lists_of_sections_name_sections_of_the_schema():
    assert set(supersede.SECTIONS) | set(supersede.NEWER_SECTIONS) <= set(LIST_SECTIONS)
    assert set(quoted_snapshots.FOREIGN_SECTIONS.values()) <= set(LIST_SECTIONS)


def test_a_section_update_names_list_sections_only():
    with pytest.raises(ValueError, match="no such list section: people"):
        snap.with_sections(Snapshot(), {"people": ["Ana"]})
    with pytest.raises(ValueError, match="overall_goal"):
        snap.with_sections(Snapshot(), {"overall_goal": ["a goal is one text"]})
    assert snap.with_sections(Snapshot(), {"pinned": ["x"]}).pinned == ["x"]
