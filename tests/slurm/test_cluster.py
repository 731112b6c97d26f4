"""slurm/up.sh's cluster: private ports and paths, nodes with their own cores, batch jobs and
their statistics from the job completion log."""

import csv
import io
import re
import subprocess
import time

from slurm_helpers import SLURM, Cluster


def test_install_is_idempotent():
    # The first call installs what is missing (this test may run before any cluster started);
    # the second must find everything in place: nothing to do, nothing said.
    first = subprocess.run([SLURM / "install.sh", "--mpi"], capture_output=True, text=True, timeout=1800)
    assert first.returncode == 0, first.stderr
    again = subprocess.run([SLURM / "install.sh", "--mpi"], capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert again.stdout == "" and again.stderr == ""


def test_nodes_idle_on_private_ports_and_paths(slurm_cluster: Cluster):
    c = slurm_cluster
    assert re.search(r"3 node\(s\) idle [0-9.]+ s after start", c.up_output), c.up_output
    nodes = c.run("sinfo", "-h", "-N", "-o", "%N %t").stdout.split("\n")
    assert sorted(n for n in nodes if n) == ["n1 idle", "n2 idle", "n3 idle"]
    config = dict(re.findall(r"^(\S+)\s+= (.*)$", c.run("scontrol", "show", "config").stdout, re.M))
    assert int(config["SlurmctldPort"]) >= 27100  # not Slurm's 6817, not make slurm-up's 26817
    assert config["MpiDefault"] == "none"
    assert "batch_sched_delay=0" in config["SchedulerParameters"]
    assert config["JobCompType"] == "jobcomp/filetxt"
    # slurm/mpi.conf: PMIx fences over Slurm's RPC (direct connections crashed Open MPI's init).
    assert config["PMIxDirectConn"] == "no"
    for key in (
        "StateSaveLocation",
        "SlurmdSpoolDir",
        "SlurmctldPidFile",
        "SlurmdPidFile",
        "SlurmctldLogFile",
        "SlurmdLogFile",
        "JobCompLoc",
        "TmpFS",
    ):
        assert config[key].startswith(str(c.state)), (key, config[key])
    assert f"socket={c.state}/munge/munge.socket.2" in config["AuthInfo"]
    ports = {int(p) for p in re.findall(r"Port=(\d+)", c.run("scontrol", "show", "node").stdout)}
    assert len(ports) == 3 and min(ports) == int(config["SlurmctldPort"]) + 1


def test_emulated_nodes_get_their_own_core(slurm_cluster: Cluster):
    out = slurm_cluster.run(
        "srun",
        "-N",
        "2",
        "-n",
        "2",
        "-w",
        "n1,n2",
        "bash",
        "-c",
        'echo "$SLURMD_NODENAME $(sed -n "s/^Cpus_allowed_list:\\s*//p" /proc/self/status)"',
    ).stdout
    cpus = dict(line.split() for line in out.splitlines())
    assert set(cpus) == {"n1", "n2"}
    assert cpus["n1"] != cpus["n2"], out  # CpuSpecList leaves each node a different core


def _stats(c: Cluster, job_id: int) -> dict:
    out = c.run("python3", SLURM / "jobstats.py", c.jobcomp, "--ids", str(job_id)).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 1, out
    return rows[0]


def test_batch_job_completes_and_jobstats_has_its_times(slurm_cluster: Cluster):
    c = slurm_cluster
    job = c.sbatch("-J", "hpcaas-test-ok", "-N", "1", "-o", c.state / "ok-%j.out", "--wrap", "echo hello; sleep 1")
    t0 = time.monotonic()
    wait = c.run(SLURM / "wait-jobs.py", job, "--timeout", "60")
    assert time.monotonic() - t0 < 30
    assert wait.stdout.split() == [str(job), "COMPLETED", "0:0", "hpcaas-test-ok"]
    assert (c.state / f"ok-{job}.out").read_text() == "hello\n"
    row = _stats(c, job)
    assert row["name"] == "hpcaas-test-ok" and row["state"] == "COMPLETED" and row["exit_code"] == "0"
    assert row["nodes"] == "1" and row["ncpus"] == "1" and row["user"]
    assert row["submit"] and row["start"] and row["end"]
    assert row["submit"] <= row["start"] <= row["end"]
    assert int(row["wait_s"]) >= 0 and 1 <= int(row["run_s"]) <= 5


def test_failed_job_is_reported(slurm_cluster: Cluster):
    c = slurm_cluster
    job = c.sbatch("-J", "hpcaas-test-fail", "-o", "/dev/null", "--wrap", "exit 3")
    wait = c.run(SLURM / "wait-jobs.py", job, "--timeout", "60", check=False)
    assert wait.returncode == 1, wait.stdout + wait.stderr
    assert wait.stdout.split() == [str(job), "FAILED", "3:0", "hpcaas-test-fail"]
    assert "1 of 1 job(s) did not complete" in wait.stderr
    assert _stats(c, job)["exit_code"] == "3"


def test_wait_jobs_selects_by_name_and_since(slurm_cluster: Cluster):
    c = slurm_cluster
    since = int(time.time())
    jobs = [c.sbatch("-J", f"hpcaas-sel.{i}", "-o", "/dev/null", "--wrap", "true") for i in range(2)]
    wait = c.run(SLURM / "wait-jobs.py", "--name-prefix", "hpcaas-sel.", "--since", str(since), "--timeout", "60")
    assert [int(line.split()[0]) for line in wait.stdout.splitlines()] == jobs
    none = c.run(SLURM / "wait-jobs.py", "--name-prefix", "no-such-job", check=False)
    assert none.returncode == 3 and "no job matched" in none.stderr


def test_up_again_is_a_no_op_and_foreign_dirs_are_refused(slurm_cluster: Cluster, tmp_path):
    again = slurm_cluster.run(SLURM / "up.sh", slurm_cluster.state)
    assert "already running" in again.stderr
    (tmp_path / "precious").write_text("keep me")
    refused = slurm_cluster.run(SLURM / "up.sh", tmp_path, check=False)
    assert refused.returncode == 1 and "not made by slurm/up.sh" in refused.stderr
    assert (tmp_path / "precious").read_text() == "keep me"
