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
