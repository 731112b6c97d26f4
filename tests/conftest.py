"""Session fixtures shared by every test folder."""

import subprocess

import pytest
from testkit import ROOT


@pytest.fixture(scope="session")
def project():
    """The project root with `make setup` done (idempotent; fails the test with setup's reason)."""
    proc = subprocess.run(["make", "setup"], cwd=ROOT, capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        pytest.fail(
            "make setup failed, so Spack/Ramble tests cannot run:\n" + proc.stdout[-3000:] + proc.stderr[-3000:]
        )
    return ROOT
