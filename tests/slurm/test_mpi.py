"""srun with each MPI: the right PMI plugin forms one MPI_COMM_WORLD across n1 and n2; a wrong
one is caught by slurm/mpi-check.sh, including MPICH's silent N-singletons case."""

import pytest
from slurm_helpers import SLURM, Cluster


@pytest.mark.parametrize("mpi,flag", [("openmpi", "--mpi=pmix"), ("mpich", "--mpi=pmi2")])
def test_mpi_flag(slurm_cluster: Cluster, mpi, flag):
    assert slurm_cluster.run(SLURM / "mpi-flag.sh", mpi).stdout.strip() == flag
    assert slurm_cluster.run(SLURM / "mpi-flag.sh", "--plugin", mpi).stdout.strip() == flag.split("=")[1]


def test_mpi_flag_rejects_unknown_mpi(slurm_cluster: Cluster):
    assert slurm_cluster.run(SLURM / "mpi-flag.sh", "lam", check=False).returncode == 2


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_right_pmi_gives_one_communicator_across_two_nodes(slurm_cluster: Cluster, mpi):
    out = slurm_cluster.run(SLURM / "mpi-check.sh", mpi, "-N", "2", "-n", "2", "-w", "n1,n2").stdout
    assert "OK: one MPI_COMM_WORLD of 2 ranks" in out, out
    lines = sorted(line.split()[1:] for line in out.splitlines() if line.strip().startswith("mpi_hello"))
    assert [(r, s, n) for r, s, _, _, n in lines] == [
        ("rank=0", "size=2", "node=n1"),
        ("rank=1", "size=2", "node=n2"),
    ], out


def test_mpich_with_pmix_runs_singletons_and_is_flagged(slurm_cluster: Cluster):
    proc = slurm_cluster.run(SLURM / "mpi-check.sh", "mpich", "pmix", "-N", "2", "-n", "2", "-w", "n1,n2", check=False)
    # srun itself succeeds: each rank is a 1-rank MPI job. Only the sizes give it away.
    assert "exit 0, 2 rank line(s)" in proc.stdout, proc.stdout
    assert proc.stdout.count("rank=0 size=1 sum=1") == 2
    assert proc.returncode == 1
    assert "2 separate 1-rank MPI jobs" in proc.stdout and "use --mpi=pmi2" in proc.stdout


def test_openmpi_with_pmi2_fails(slurm_cluster: Cluster):
    proc = slurm_cluster.run(
        SLURM / "mpi-check.sh", "openmpi", "pmi2", "-N", "2", "-n", "2", "-w", "n1,n2", check=False
    )
    assert proc.returncode == 1
    assert "FAIL: the MPI job did not run" in proc.stdout, proc.stdout
