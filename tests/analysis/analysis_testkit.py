"""Shared paths and helpers of the analysis tests (a plain module, not a conftest, so it cannot
clash with the other test folders' conftest modules)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The published numbers, as the project ships them (reference/README.md says where from).
REFERENCE = ROOT / "reference"
DATA = Path(__file__).resolve().parent / "data"
WORKSPACE = DATA / "ws-synthetic"


def ref(name) -> str:
    """Path of a published reference table; a missing one fails the test with where to look."""
    path = REFERENCE / name
    if not path.is_file():
        pytest.fail(f"published reference {path} is missing (reference/ is part of the repository)")
    return str(path)


def cli(*args, stdin=None):
    """Run `python -m analysis ARGS` in the project; return the CompletedProcess."""
    return subprocess.run(
        [sys.executable, "-m", "analysis", *map(str, args)],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def write(tmp_path, name, text) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)
