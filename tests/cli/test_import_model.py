"""An imported conversation says which model it continues with: `list` showed "-" for it."""

import json

from cli.test_import_cli import environment, run


def test_list_names_the_model_an_imported_conversation_continues_with(tmp_path):
    env = {**environment(tmp_path), "FOLDCHAT_DEFAULT_MODEL": "gpt-4o-mini"}
    raw = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}]
    assert run("import", "-", stdin=json.dumps(raw), env=env).returncode == 0
    assert run("import", "-", "--model", "claude-sonnet-4-5", stdin=json.dumps(raw), env=env).returncode == 0
    rows = run("list", env=env).stdout.splitlines()
    assert "gpt-4o-mini" in rows[-1] and "claude-sonnet-4-5" in rows[0], rows  # newest first
    assert " - " not in " ".join(rows)
