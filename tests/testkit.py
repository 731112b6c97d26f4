"""Shared test helpers, imported as `from testkit import ROOT, run` (not from conftest: pytest
loads every conftest.py as the one module `conftest`). Tests that need Spack or Ramble FAIL
(never skip) when the tools are not set up, with the reason: a green run must mean the real
stack ran."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(cmd, check=True, env=None, timeout=1800, cwd=ROOT):
    """Run a shell command in the project with setup-env.sh sourced; return CompletedProcess."""
    full = f". ./setup-env.sh && {cmd}"
    proc = subprocess.run(["bash", "-c", full], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=timeout)
    if check and proc.returncode != 0:
        pytest.fail(f"`{cmd}` exited {proc.returncode}\n--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-4000:]}")
    return proc
