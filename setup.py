"""Which packages the wheel holds, found rather than listed: a listed package that was forgotten
(`foldchat.tui.slash`) installed fine and ended every non-editable start in ModuleNotFoundError.

The repository keeps engine/ and tui/ at the top (see README, "Development"); they install as
foldchat.engine and foldchat.tui, so nothing bare lands in site-packages. Everything else is in
pyproject.toml."""

from setuptools import find_packages, setup

ROOTS = {"foldchat": "foldchat", "foldchat.engine": "engine", "foldchat.tui": "tui"}


def packages() -> list[str]:
    """Every package under each root: the root itself and each folder with an __init__.py below it."""
    return [f"{name}.{sub}" if sub else name for name, folder in ROOTS.items() for sub in ["", *find_packages(folder)]]


setup(package_dir=ROOTS, packages=packages())
