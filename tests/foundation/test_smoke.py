"""The main job for real: HPCC built by Spack, run by Ramble, exported as tidy CSV."""

import json
import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml
from testkit import ROOT, place, run

from hpcaas import environments

EXPERIMENTS = {f"hpcc-{mpi}-{n}ranks": (mpi, n) for mpi in ("openmpi", "mpich") for n in (1, 2)}
ALWAYS = {
    "HPL_Tflops": "Tflops",
    "StarDGEMM_Gflops": "Gflops",
    "StarSTREAM_Triad": "GB/s",
    "MPIRandomAccess_GUPs": "GUP/s",
    "MPIFFT_Gflops": "Gflops",
    "SingleDGEMM_Gflops": "Gflops",
    "PTRANS_GBs": "GB/s",
}
# HPCC measures ping-pong only between two ranks or more.
TWO_RANKS = {"MaxPingPongLatency_usec": "usec", "MinPingPongBandwidth_GBytes": "GB/s"}


SMOKE = place("smoke")


@pytest.fixture(scope="module")
def smoke(project):
    proc = subprocess.run(["make", "smoke"], cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return proc.stdout, pd.read_csv(SMOKE.latest / "results.csv", dtype={"project_commit": str})


def short(name):
    return name.split(".")[-1]


def test_four_experiments_all_successful(smoke):
    _, df = smoke
    df["short"] = df["experiment"].map(short)
    assert set(df["short"]) == set(EXPERIMENTS)
    assert set(df["status"]) == {"SUCCESS"}
    for name, (mpi, ranks) in EXPERIMENTS.items():
        rows = df[df["short"] == name]
        assert set(rows["mpi"]) == {mpi} and set(rows["ranks"]) == {ranks}
        assert set(rows["application"]) == {"hpcc"} and set(rows["workload"]) == {"sized"}
        assert set(rows["system"]) == {"local"} and set(rows["compiler"]) == {"gcc"}
        assert set(rows["nodes"]) == {1} and set(rows["threads"]) == {1}
        assert len(rows) >= 7
        expected = dict(ALWAYS, **(TWO_RANKS if ranks == 2 else {}))
        got = dict(zip(rows["metric"], rows["unit"]))
        for metric, unit in expected.items():
            assert got.get(metric) == unit, (name, metric)
        # The rates are positive; HPCC's error counts and residuals may be 0.
        rates = rows[rows["metric"].isin(expected)]
        assert (rates["value"] > 0).all(), rates[rates["value"] <= 0]


def test_provenance_on_every_row(smoke):
    _, df = smoke
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    target = yaml.safe_load((ROOT / "configs/local/system.yaml").read_text())["processor"]["target"]["value"]
    assert set(df["project_commit"]) == {head}
    assert set(df["target"]) == {target}
    assert df["spack_lock_hash"].str.fullmatch(r"[0-9a-f]{64}").all()
    assert df["timestamp"].notna().all()


def test_values_are_exactly_those_hpcc_printed(smoke):
    # Ramble's regexes against HPCC's own summary section, value for value.
    _, df = smoke
    for name in EXPERIMENTS:
        log = (SMOKE.workspace / f"experiments/hpcc/sized/{name}/hpccoutf.txt").read_text()
        summary = log.split("Begin of Summary section.")[1]
        printed = {k: float(v) for k, v in re.findall(r"^(\w+)=([-0-9.eE+]+)$", summary, re.M)}
        rows = df[df["experiment"].map(short) == name]
        for metric, value in zip(rows["metric"], rows["value"]):
            assert value == pytest.approx(printed[metric], rel=1e-12), (name, metric)


def test_launch_lines_use_each_systems_mpi(smoke):
    variables = yaml.safe_load((ROOT / "configs/local/ramble/variables.yaml").read_text())["variables"]
    for name, (mpi, ranks) in EXPERIMENTS.items():
        script = (SMOKE.workspace / f"experiments/hpcc/sized/{name}/execute_experiment").read_text()
        assert f"{variables[mpi + '_mpirun']} -n {ranks} hpcc" in script
        assert f"software/hpcc-{mpi}" in script
        inp = (SMOKE.workspace / f"experiments/hpcc/sized/{name}/hpccinf.txt").read_text().splitlines()
        assert inp[5].split()[0] == "1000" and inp[10].split()[0] == "1" and inp[11].split()[0] == str(ranks)


def test_the_console_ends_with_the_verdict_and_where_the_results_are(smoke):
    out, _ = smoke
    tail = out.strip().splitlines()[-3:]
    assert tail[0] == "[hpcaas] smoke on local: 4 experiments, all SUCCESS", tail
    assert tail[1] == f"[hpcaas] results: {SMOKE.latest.resolve() / 'results.csv'}", tail
    summary = (SMOKE.latest / "summary.md").read_text()
    assert "HPL_Tflops" in summary and "hpcc-mpich-2ranks" in summary


def test_the_run_used_the_lock_solved_for_this_system_and_says_so(smoke):
    """No committed lock for `local` (its config is this machine's): the run solved one, kept by
    its inputs, and built exactly it; each row's spack_lock_hash is that lock's sha256."""
    import hashlib
    import json

    _, df = smoke
    prov = json.loads((SMOKE.latest / "provenance.json").read_text())
    assert prov["committed_environment"] is False
    lock = Path(prov["environment"]) / "spack.lock"
    assert set(df["spack_lock_hash"]) == {hashlib.sha256(lock.read_bytes()).hexdigest()}
    roots = {r["hash"] for r in json.loads(lock.read_text())["roots"]}
    locks = SMOKE.workspace.glob("software/*/spack.lock")
    seeded = {r["hash"] for f in locks for r in json.loads(f.read_text())["roots"]}
    assert roots and seeded == roots


def test_its_environments_read_as_installed_as_spack_finds_them(smoke, tmp_path):
    """environments.installed(), the fast path by which a run skips `spack install`, reads Spack's
    database as Spack does: after the smoke run every spec of its environments' locks is one
    `spack find` lists, and each reads as installed; one spec more that Spack lacks, or a recorded
    prefix removed by hand, and it is not."""
    store = environments.store({"HPCAAS_CACHE": run("echo $HPCAAS_CACHE").stdout.strip()})
    found = {spec["hash"] for spec in json.loads(run("spack find --json").stdout or "[]")}
    envs = sorted(SMOKE.workspace.glob("software/*/spack.lock"))
    assert envs, f"no Spack environment in {SMOKE.workspace}/software"
    hashes = set()
    for lock in envs:
        assert environments.installed(lock.parent, store), lock
        hashes |= set(json.loads(lock.read_text())["concrete_specs"])
    assert hashes <= found, sorted(hashes - found)

    def lock_of(name, specs):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "spack.lock").write_text(json.dumps({"concrete_specs": {h: {} for h in specs}}))
        return folder

    assert not environments.installed(lock_of("one-more", [*hashes, "a" * 32]), store)
    first, *rest = sorted(hashes)
    db = json.loads((store / ".spack-db/index.json").read_text())
    db["database"]["installs"][first]["path"] = str(tmp_path / "removed")
    copy = tmp_path / "store"
    (copy / ".spack-db").mkdir(parents=True)
    (copy / ".spack-db/index.json").write_text(json.dumps(db))
    assert environments.installed(lock_of("rest", rest), copy)
    assert not environments.installed(lock_of("with-removed", [first, *rest]), copy)
