"""slurm/down.sh stops a cluster with a job still running and leaves no process behind."""

import os
import subprocess
import time
from pathlib import Path

from slurm_helpers import SLURM, start_cluster, stop_cluster


def _environ(pid: str) -> bytes:
    try:
        return Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return b""


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def processes_of(state: Path, tag: str) -> list:
    """Processes of that cluster: a daemon (marked in its environment), anything whose command
    line names the state directory (job scripts run from its spool) or the job's tag."""
    mark = f"HPCAAS_SLURM_DAEMON={state}".encode()
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) == os.getpid():
            continue
        cmd = _cmdline(pid)
        if mark in _environ(pid).split(b"\0") or str(state) in cmd or tag in cmd:
            found.append(f"{pid}: {cmd}")
    return found


def test_down_stops_everything_it_started(slurm_cluster, tmp_path_factory):
    # A cluster of its own (the session one keeps running), with a job step still running.
    state = tmp_path_factory.mktemp("slurm-down")
    cluster = start_cluster(state, nodes=1)
    pids = [int(p.read_text()) for p in (state / "run").glob("*.pid")]
    assert len(pids) == 3  # munged, slurmctld, slurmd-n1
    tag = "4321.5"  # sleep's argument names the job's process
    cluster.sbatch("-o", "/dev/null", "--wrap", f"srun sleep {tag}")
    for _ in range(100):
        if any(f"sleep {tag}" in line for line in processes_of(state, tag)):
            break
        time.sleep(0.1)
    else:
        raise AssertionError(f"the job did not start: {processes_of(state, tag)}")

    t0 = time.monotonic()
    proc = stop_cluster(state)
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - t0 < 20
    assert processes_of(state, tag) == []
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists(), pid
    assert not list((state / "run").glob("*.pid"))
    # Logs and the job completion log stay for inspection; the cancelled job is in it.
    assert "JobState=CANCELLED" in (state / "log" / "jobcomp.txt").read_text()
    # Stopping twice is harmless.
    assert subprocess.run([SLURM / "down.sh", state], capture_output=True).returncode == 0
