"""A job that outlives its time limit ends TIMEOUT and wait-jobs reports it as a failure. Kept in
the last file: the job was submitted as the session cluster started (conftest.py) and needs
60-90 s, which the other tests' time mostly covers."""

import csv
import io

from slurm_helpers import SLURM, Cluster


def test_job_over_its_time_limit_ends_timeout(slurm_cluster: Cluster):
    c = slurm_cluster
    wait = c.run(SLURM / "wait-jobs.py", c.timeout_job, "--timeout", "150", check=False, timeout=200)
    assert wait.returncode == 1, wait.stdout + wait.stderr
    assert wait.stdout.split()[:2] == [str(c.timeout_job), "TIMEOUT"]
    out = c.run("python3", SLURM / "jobstats.py", c.jobcomp, "--name-prefix", "hpcaas-test-timeout").stdout
    (row,) = csv.DictReader(io.StringIO(out))
    assert row["state"] == "TIMEOUT"
    assert 60 <= int(row["run_s"]) <= 100  # 1-minute limit, checked every 30 s by slurmctld
