"""A real Slurm cluster for the tests: slurm/install.sh, slurm/up.sh into a temporary state
directory on free ports, slurm/down.sh at the end. Tests FAIL (never skip) when Slurm cannot be
installed or started, with the reason: a green run must mean a real cluster ran the jobs.

The session cluster has three emulated nodes: n1 and n2 with a core each (the default layout
the MPI tests use), and n3 sharing n1's core for the time-limit job. Slurm enforces time limits
in whole minutes and checks them every 30 s, so that job needs 60-90 s; submitted as the
cluster starts and checked last (test_timeout.py), it overlaps the other tests instead of
adding to them.
"""

import pytest
from slurm_helpers import install_slurm, start_cluster, stop_cluster


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory):
    """The session's cluster (n1, n2 with a core each; n3 for the time-limit job), stopped at
    the end; `timeout_job` is the id of a 1-minute job that sleeps past its limit."""
    install_slurm()
    state = tmp_path_factory.mktemp("slurm")
    cluster = start_cluster(state, nodes=3)
    try:
        cluster.timeout_job = cluster.sbatch(
            "--time=1", "-w", "n3", "-J", "hpcaas-test-timeout", "-o", state / "timeout-%j.out", "--wrap", "sleep 600"
        )
        yield cluster
    finally:
        proc = stop_cluster(state)
    if proc.returncode != 0:
        pytest.fail(f"slurm/down.sh {state} failed:\n{proc.stdout}{proc.stderr}")
