"""Helpers of the Slurm tests: start/stop a cluster with slurm/up.sh and slurm/down.sh on free
ports, and run commands against it. (A module of its own, not conftest.py: pytest keeps a single
`conftest` module, and other test folders import theirs by that name.)"""

import os
import socket
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SLURM = ROOT / "slurm"


def free_port_base(count: int, start: int = 27100) -> int:
    """The first of `count` consecutive TCP ports free on loopback (away from up.sh's defaults,
    so the tests can run beside `make slurm-up`)."""
    for base in range(start, 30000, 10):
        try:
            for port in range(base, base + count):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base
    raise RuntimeError("no free ports on 127.0.0.1 in 27100-30000")


class Cluster:
    """A running cluster: its state directory and an environment that talks to it."""

    def __init__(self, state: Path, up_output: str):
        self.state = state
        self.up_output = up_output
        self.jobcomp = state / "log" / "jobcomp.txt"
        self.env = {
            **os.environ,
            "SLURM_CONF": str(state / "slurm.conf"),
            "HPCAAS_SLURM_STATE": str(state),
            "HPCAAS_SLURM_JOBCOMP": str(self.jobcomp),
        }
        self.env.pop("HPCAAS_SLURM_DAEMON", None)

    def run(self, *cmd, check=True, timeout=120, cwd=None, env=None):
        proc = subprocess.run(
            [str(c) for c in cmd],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**self.env, **(env or {})},
            cwd=cwd or self.state,
        )
        if check and proc.returncode != 0:
            pytest.fail(
                f"{' '.join(map(str, cmd))} exited {proc.returncode}\n--- stdout\n{proc.stdout[-3000:]}"
                f"\n--- stderr\n{proc.stderr[-3000:]}"
            )
        return proc

    def sbatch(self, *args) -> int:
        return int(self.run("sbatch", "--parsable", *args).stdout.strip().split(";")[0])


def install_slurm():
    proc = subprocess.run([SLURM / "install.sh", "--mpi"], capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        pytest.fail(
            "slurm/install.sh --mpi failed, so the local Slurm cluster cannot run:\n"
            + proc.stdout[-3000:]
            + proc.stderr[-3000:]
        )


def start_cluster(state: Path, nodes: int) -> Cluster:
    """slurm/up.sh STATE with `nodes` emulated nodes on free ports; fails the test if it fails."""
    base = free_port_base(nodes + 1)
    env = {
        **os.environ,
        "HPCAAS_SLURM_NODES": str(nodes),
        "HPCAAS_SLURM_CTLD_PORT": str(base),
        "HPCAAS_SLURM_SLURMD_PORT": str(base + 1),
    }
    proc = subprocess.run([SLURM / "up.sh", state], capture_output=True, text=True, env=env, timeout=120)
    if proc.returncode != 0:
        pytest.fail(
            f"slurm/up.sh {state} failed (exit {proc.returncode}), so the local Slurm cluster "
            f"cannot run:\n{proc.stdout[-3000:]}{proc.stderr[-4000:]}"
        )
    return Cluster(state, proc.stdout + proc.stderr)


def stop_cluster(state: Path) -> subprocess.CompletedProcess:
    return subprocess.run([SLURM / "down.sh", state], capture_output=True, text=True, timeout=120)
