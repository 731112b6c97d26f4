"""collect: a Ramble results.latest.json (synthetic, shaped as Ramble e2d88e88 writes it:
repeats, contexts, a modifier FOM, failed experiments, a NaN FOM) as tidy rows."""

import datetime
import hashlib
import json
import shutil

import pytest
import yaml
from analysis_testkit import WORKSPACE, cli

from analysis import collect, files
from analysis.schema import EXTRA_COLUMNS, RESULT_COLUMNS
from hpcaas.paths import ROOT


@pytest.fixture(scope="module")
def rows():
    return collect.collect(WORKSPACE, configs_dir=WORKSPACE / "no-configs", commit="f" * 40)


def by_name(rows, name):
    return rows[rows["experiment"] == name]


def test_columns_are_the_schema_then_context_and_reason(rows):
    assert list(rows.columns) == RESULT_COLUMNS + EXTRA_COLUMNS
    assert len(rows) == 22


def test_repeats_are_rows_of_their_own_and_the_base_summary_is_left_out(rows):
    bare = rows[rows["workload"] == "water_bare"]
    assert set(bare["repeat"]) == {1, 2}
    assert not bare["experiment"].isin(["gromacs.water_bare.gromacs-1nodes"]).any()
    one = by_name(rows, "gromacs.water_bare.gromacs-1nodes.2")
    assert dict(zip(one["metric"], one["value"])) == {"Performance": 10.4, "Wall time": 96.0}
    assert dict(zip(one["metric"], one["unit"])) == {"Performance": "ns/day", "Wall time": "s"}
    assert (one["nodes"].tolist(), one["ranks"].tolist(), one["threads"].tolist()) == ([1, 1], [64, 64], [1, 1])
    assert set(one["system"]) == {"aws-hpc7a-efa"} and set(one["mpi"]) == {"openmpi"}
    assert set(one["fabric"]) == {"efa"} and set(one["target"]) == {"zen4"} and set(one["compiler"]) == {"gcc"}


def test_failed_experiments_keep_one_row_per_expected_fom_and_no_number(rows):
    failed = rows[rows["status"] == "FAILED"]
    assert failed["value"].isna().all()
    assert len(failed) == 7
    repeat = by_name(rows, "gromacs.water_bare.gromacs-4nodes.2")
    assert sorted(repeat["metric"]) == ["Performance", "Wall time"] and set(repeat["status"]) == {"FAILED"}
    assert repeat["status_reason"].str.startswith("Ramble status FAILED").all()
    # No FOM at all in Ramble's results: the sibling experiment's FOMs are expected.
    rf = by_name(rows, "gromacs.water_rf.gromacs-rf-2nodes")
    assert sorted(zip(rf["metric"], rf["unit"])) == [("Performance", "ns/day"), ("Wall time", "s")]


def test_a_nan_fom_fails_its_whole_experiment_with_a_reason(rows):
    mpich = by_name(rows, "osu-micro-benchmarks.osu_latency.osu-mpich-2nodes")
    assert set(mpich["status"]) == {"FAILED"} and mpich["value"].isna().all()
    assert set(mpich["status_reason"]) == {"figure of merit 'Latency' is not a finite number ('nan')"}


def test_contexts_and_modifier_foms(rows):
    ompi = by_name(rows, "osu-micro-benchmarks.osu_latency.osu-openmpi-2nodes")
    got = {(c, m): v for c, m, v in zip(ompi["context"], ompi["metric"], ompi["value"])}
    assert got == {("", "modifier::exit-code::Exit code"): 0.0, ("8", "Latency"): 1.52, ("1024", "Latency"): 3.10}


def test_provenance(rows, tmp_path):
    locks = sorted(WORKSPACE.glob("software/*/spack.lock"))
    assert len(locks) == 2
    assert set(rows["spack_lock_hash"]) == {hashlib.sha256(b"".join(p.read_bytes() for p in locks)).hexdigest()}
    assert set(rows["project_commit"]) == {"f" * 40}
    assert set(rows["spack_inputs_hash"]) == {""}  # no configs/<system> folder to hash
    mtime = (WORKSPACE / "results.latest.json").stat().st_mtime
    stamp = datetime.datetime.fromtimestamp(mtime, tz=datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert set(rows["timestamp"]) == {stamp}
    # A system's Spack inputs: the one hash of hpcaas.spack_inputs, which changes with its compilers.
    from hpcaas.spack_inputs import inputs_hash

    shutil.copytree(ROOT / "configs/aws-hpc7a-efa", tmp_path / "aws-hpc7a-efa")
    before = collect.spack_inputs_hash(tmp_path, "aws-hpc7a-efa")
    assert before == inputs_hash("aws-hpc7a-efa") and len(before) == 64
    compilers = tmp_path / "aws-hpc7a-efa/spack/compilers.yaml"
    doc = yaml.safe_load(compilers.read_text())
    doc["compilers"][0]["compiler"]["spec"] += ".1"  # another version of the same compiler
    compilers.write_text(yaml.safe_dump(doc))
    assert collect.spack_inputs_hash(tmp_path, "aws-hpc7a-efa") != before
    given = collect.collect(WORKSPACE, configs_dir=tmp_path, spack_lock="s", commit="c", inputs_hash="h")
    assert (set(given["spack_lock_hash"]), set(given["project_commit"]), set(given["spack_inputs_hash"])) == (
        {"s"},
        {"c"},
        {"h"},
    )


def test_a_base_without_its_repeats_gives_the_summary_mean(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    doc = json.loads((WORKSPACE / "results.latest.json").read_text())
    doc["experiments"] = [e for e in doc["experiments"] if e["name"] == "gromacs.water_bare.gromacs-2nodes"]
    (ws / "results.latest.json").write_text(json.dumps(doc))
    out = collect.collect(ws, commit="")
    assert dict(zip(out["metric"], out["value"])) == pytest.approx({"Performance": 19.2, "Wall time": 51.5})
    assert out["status_reason"].str.startswith("mean of 2 repeats").all()
    assert out["spack_lock_hash"].eq("").all()


def test_cli_writes_a_csv_that_reads_back(tmp_path):
    out = tmp_path / "results.csv"
    proc = cli("collect", WORKSPACE, "-o", out, "--project-commit", "abc")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    back = files.read_results(out)
    assert list(back.columns) == RESULT_COLUMNS + EXTRA_COLUMNS
    assert len(back) == 22 and back["nodes"].dtype.name == "Int64"
    failed = back[back["status"] == "FAILED"]
    assert failed["value"].isna().all()
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())  # the temporary file was renamed


def test_summary_of_a_workspace():
    proc = cli("summary", WORKSPACE)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("10 experiments: 7 SUCCESS, 3 FAILED")
    assert "figure of merit 'Latency' is not a finite number" in proc.stdout
    assert "gromacs-rf-1nodes" in proc.stdout
