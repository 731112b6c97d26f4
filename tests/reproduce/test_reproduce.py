"""make reproduce on this machine: scaled-down studies run for real on `local`, a study the
system cannot run stops before running and says why, and bad study descriptions are named."""

import csv
import os
import subprocess

import pytest
import yaml

from testkit import ROOT, run

PYTHON = str(ROOT / ".venv/bin/python")


def reproduce(study, system, scale=None):
    """Run make reproduce once per (study, system) of the session; return (proc, rows)."""
    proc = subprocess.run(["make", "reproduce", f"STUDY={study}", f"SYSTEM={system}"]
                          + ([f"SCALE={scale}"] if scale else []), cwd=ROOT,
                          capture_output=True, text=True, timeout=1200)
    path = ROOT / "results" / study / "results.csv"
    rows = list(csv.DictReader(path.open())) if path.exists() else []
    return proc, rows


@pytest.fixture(scope="module")
def osu(project):
    proc, rows = reproduce("osu-latency-bandwidth-small", "local")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return rows


@pytest.fixture(scope="module")
def stream(project):
    proc, rows = reproduce("stream-node", "local", "small")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return rows


def test_latency_study_runs_every_repeat_of_each_mpi(osu):
    experiments = {r["experiment"] for r in osu}
    assert experiments == {f"hpcc.sized.pingpong-local-{mpi}-shm-2ranks.{i}" for mpi in ("openmpi", "mpich") for i in range(1, 6)}
    assert {r["status"] for r in osu} == {"SUCCESS"}
    latency = [r for r in osu if r["metric"] == "MaxPingPongLatency_usec"]
    assert len(latency) == 10 and all(r["unit"] == "usec" and float(r["value"]) > 0 for r in latency)
    assert {(r["ranks"], r["nodes"], r["fabric"], r["system"]) for r in latency} == {("2", "1", "shm", "local")}
    assert sorted(int(r["repeat"]) for r in latency) == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]


def test_latency_study_launches_each_mpi_with_its_own_mpirun(osu):
    variables = yaml.safe_load((ROOT / "configs/local/ramble/variables.yaml").read_text())["variables"]
    for mpi in ("openmpi", "mpich"):
        script = (ROOT / f"ramble-workspaces/osu-latency-bandwidth-small/experiments/hpcc/sized/"
                  f"pingpong-local-{mpi}-shm-2ranks.3/execute_experiment").read_text()
        assert f"{variables[f'{mpi}_mpirun']} -n 2 hpcc >>" in script


def test_latency_report_has_the_study_tables(osu):
    report = (ROOT / "results/osu-latency-bandwidth-small/report.md").read_text()
    assert "## hpcaas-analyze table --metric MaxPingPongLatency_usec --rows system fabric --cols mpi" in report
    assert "| system | fabric | unit | openmpi | mpich |" in report
    assert "| local | shm | usec |" in report
    assert "failed (exit" not in report


def test_stream_study_measures_the_whole_node(stream):
    """stream-node's small preset: STREAM itself, one process with a thread per core of the node,
    arrays of 140,000,000 doubles."""
    facts = yaml.safe_load((ROOT / "configs/local/system.yaml").read_text())
    cores = facts["sockets"]["value"] * facts["cores_per_socket"]["value"]
    triad = [r for r in stream if r["metric"] == "Triad top rate"]
    assert len(triad) == 1 and triad[0]["status"] == "SUCCESS" and triad[0]["application"] == "stream"
    assert triad[0]["unit"] == "MB/s" and float(triad[0]["value"]) > 0
    assert triad[0]["threads"] == str(cores)
    size = [r for r in stream if r["metric"] == "Array size"]
    assert [float(r["value"]) for r in size] == [140000000]
    report = (ROOT / "results/stream-node/report.md").read_text()
    assert f"| system | unit | {cores} |" in report
    assert "failed (exit" not in report


def test_a_study_the_system_cannot_run_stops_before_running(project):
    out = ROOT / "results/binding-distribution-small/results.csv"
    before = out.read_bytes() if out.exists() else None
    proc = subprocess.run(["make", "reproduce", "STUDY=binding-distribution-small", "SYSTEM=local"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert ("binding-distribution-small cannot run on local; it needs the Ramble variable 'cpu_bind'"
            in proc.stderr)
    assert "ramble" not in proc.stdout  # nothing was set up or run
    assert (out.read_bytes() if out.exists() else None) == before


def test_paper_scale_needs_are_checked_against_the_system(tmp_path):
    """nodes, cores, GPUs and licensed sources, on a copy of a study with paper-scale needs."""
    study = ROOT / "ramble-workspaces" / "_test-needs"
    study.mkdir(exist_ok=True)
    try:
        (study / "study.yaml").write_text(yaml.safe_dump({
            "question": "q", "paper": "p",
            "needs": {"nodes": 8, "ranks": 224, "gpus": 1, "licensed": ["NAMD_3.0_Source.tar.gz"]}}))
        proc = subprocess.run([PYTHON, "-m", "analysis.study", "check", "_test-needs", "local-slurm"],
                              cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 2
        assert proc.stderr.strip() == (
            "_test-needs cannot run on local-slurm; it needs 8 nodes (configs/local-slurm has 2); "
            "224 cores, one per rank (2 on local-slurm); 1 GPUs per node (0 on local-slurm); "
            "the licensed source NAMD_3.0_Source.tar.gz: download it from its vendor and put it in "
            "mirror/ (Spack then finds it by checksum)")
    finally:
        (study / "study.yaml").unlink()
        study.rmdir()


@pytest.mark.parametrize("doc, key", [
    ({"paper": "p", "needs": {}}, "question"),
    ({"question": "q", "paper": "p", "needs": {"nodes": -1}}, "needs.nodes"),
    ({"question": "q", "paper": "p", "needs": {"cores": 2}}, "needs"),
    ({"question": "q", "paper": "p", "needs": {}, "analyses": ["table"]}, "analyses.0"),
    ({"question": "q", "paper": "p", "needs": {}, "reference": "reference/none.csv"}, "reference"),
    ({"question": "q", "paper": "p", "needs": {}, "papr_system": "x"}, "papr_system"),
])
def test_a_bad_study_description_is_named_by_file_and_key(doc, key):
    study = ROOT / "ramble-workspaces" / "_test-bad"
    study.mkdir(exist_ok=True)
    try:
        (study / "study.yaml").write_text(yaml.safe_dump(doc))
        proc = subprocess.run([PYTHON, "-m", "analysis.study", "check", "_test-bad", "local"],
                              cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert proc.stderr.startswith(f"analysis.study: {study / 'study.yaml'}: {key}: "), proc.stderr
    finally:
        (study / "study.yaml").unlink()
        study.rmdir()
