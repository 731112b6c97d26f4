"""make reproduce on this machine: scaled-down studies run for real on `local`, a study the
system cannot run stops before running and says why, and bad study descriptions are named.
The OSU study's small preset needs two nodes: tests/slurm/test_reproduce_osu.py runs it."""

import csv
import os
import shutil
import subprocess

import pytest
import yaml
from testkit import ROOT, place

HPCAAS = str(ROOT / ".venv/bin/hpcaas")
RAMBLE = {"applications": {"hpcc": {"workloads": {}}}}  # a study's Ramble block, as small as it goes


def own_tree(tmp_path, study, doc):
    """A project tree of its own (HPCAAS_ROOT) with one more study beside this checkout's systems
    and references, so that tests running in parallel never see the study: (its folder, env)."""
    root = tmp_path / "tree"
    (root / "ramble-workspaces" / study).mkdir(parents=True)
    (root / "ramble-workspaces" / study / "study.yaml").write_text(yaml.safe_dump(doc))
    for shared in (
        "configs",
        "reference",
        "mirror",
        "pins.env",
        ".tools",
        ".venv",
        "setup-env.sh",
        "ramble-repo",
        "spack-repo",
        "spack-config",
    ):
        (root / shared).symlink_to(ROOT / shared)
    return root / "ramble-workspaces" / study, {**os.environ, "HPCAAS_ROOT": str(root)}


def reproduce(study, system, scale=None):
    """Run make reproduce once per (study, system) of the session; return (proc, rows)."""
    proc = subprocess.run(
        ["make", "reproduce", f"STUDY={study}", f"SYSTEM={system}"] + ([f"SCALE={scale}"] if scale else []),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    path = place(study, system, scale or "paper").latest / "results.csv"
    rows = list(csv.DictReader(path.open())) if path.exists() else []
    return proc, rows


SOURCES = ("ramble-workspaces", "configs", "environments")


def sources_state() -> str:
    """What git sees under the sources, ignored files included: a run must add nothing there."""
    return subprocess.run(
        ["git", "status", "--porcelain", "--ignored", *SOURCES], cwd=ROOT, capture_output=True, text=True
    ).stdout


@pytest.fixture(scope="module")
def stream(project):
    before = sources_state()
    proc, rows = reproduce("stream-node", "local", "small")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    dry = subprocess.run(["make", "dry-run", "STUDY=stream-node", "SYSTEM=local"], cwd=ROOT, capture_output=True)
    assert dry.returncode == 0, dry.stderr[-2000:]
    return rows, before, sources_state()


def test_a_run_and_a_dry_run_write_nothing_under_the_sources(stream):
    _, before, after = stream
    assert after == before, f"new under {', '.join(SOURCES)}:\n{after}"


def test_stream_study_measures_the_whole_node(stream):
    """stream-node's small preset: STREAM itself, one process with a thread per core of the node,
    each array 4 x the node's last-level cache (STREAM's rule), from the facts make system found."""
    stream, _, _ = stream
    facts = yaml.safe_load((ROOT / "configs/local/system.yaml").read_text())
    cores = facts["sockets"]["value"] * facts["cores_per_socket"]["value"]
    triad = [r for r in stream if r["metric"] == "Triad top rate"]
    assert len(triad) == 1 and triad[0]["status"] == "SUCCESS" and triad[0]["application"] == "stream"
    assert triad[0]["unit"] == "MB/s" and float(triad[0]["value"]) > 0
    assert triad[0]["threads"] == str(cores)
    size = [r for r in stream if r["metric"] == "Array size"]
    llc = facts["last_level_cache_mib"]["value"] * 2**20
    assert [float(r["value"]) for r in size] == [int(llc) // 2]
    report = (place("stream-node", "local", "small").latest / "report.md").read_text()
    assert f"| system | unit | {cores} |" in report
    assert "failed (exit" not in report


def test_a_study_the_system_cannot_run_stops_before_running(project):
    """The binding x distribution study sweeps srun's options: `local` (no Slurm) lacks them."""
    runs = place("openfoam-binding-distribution", "local", "small").folder
    before = sorted(runs.iterdir()) if runs.exists() else []
    proc = subprocess.run(
        ["make", "reproduce", "STUDY=openfoam-binding-distribution", "SYSTEM=local", "SCALE=small"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode != 0
    assert proc.stderr.startswith("openfoam-binding-distribution cannot run on local; it needs ")
    assert "the Ramble variable 'cpu_bind' the study sweeps (configs/local/ramble/variables.yaml)" in proc.stderr
    assert "ramble" not in proc.stdout  # nothing was set up or run
    assert (sorted(runs.iterdir()) if runs.exists() else []) == before


def test_the_nodes_and_cores_a_study_needs_come_from_its_matrix(tmp_path):
    """Nodes and cores are what Ramble expands the experiments to on the system (never typed in
    needs); GPUs and licensed sources are what the matrix cannot say. The system's own counts are
    read from its facts, so the test holds on any machine make system describes."""
    facts = yaml.safe_load((ROOT / "configs/local-slurm/system.yaml").read_text())
    nodes = facts["nodes"]["value"]
    cores = facts["sockets"]["value"] * facts["cores_per_socket"]["value"]
    wide, many = nodes + 6, nodes * cores + 1  # more nodes than it has; more ranks than its nodes have cores
    doc = {
        "question": "q",
        "paper": "p",
        "needs": {"gpus": 1, "licensed": ["NAMD_3.0_Source.tar.gz"]},
        "ramble": {
            "variants": {"package_manager": "spack"},
            "applications": {
                "hpcc": {
                    "workloads": {
                        "standard": {
                            "experiments": {
                                "wide": {"variables": {"n_nodes": str(wide), "n_ranks": str(wide)}},
                                "many": {"variables": {"n_nodes": str(nodes), "n_ranks": str(many)}},
                            }
                        }
                    }
                }
            },
            "software": {"packages": {}, "environments": {}},
        },
    }
    _, env = own_tree(tmp_path, "_test-needs", doc)
    proc = subprocess.run(
        [HPCAAS, "study", "check", "_test-needs", "local-slurm"], cwd=ROOT, capture_output=True, text=True, env=env
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == (
        f"_test-needs cannot run on local-slurm; it needs {wide} nodes for hpcc.standard.wide "
        f"(configs/local-slurm has {nodes}); {many} cores for hpcc.standard.many ({many} ranks x 1 threads "
        f"on {nodes} nodes; {nodes} nodes of local-slurm have {nodes * cores}); 1 GPUs per node (0 on local-slurm); "
        "the licensed source NAMD_3.0_Source.tar.gz: download it from its vendor and put it in "
        "mirror/ (Spack then finds it by checksum)"
    )


def test_nodes_or_ranks_written_in_needs_are_refused(tmp_path):
    _, env = own_tree(tmp_path, "_test-needs", {"question": "q", "paper": "p", "ramble": RAMBLE, "needs": {"nodes": 2}})
    proc = subprocess.run(
        [HPCAAS, "study", "check", "_test-needs", "local"], cwd=ROOT, capture_output=True, text=True, env=env
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "needs.nodes: not written: the nodes and ranks" in proc.stderr


@pytest.mark.parametrize(
    "doc, key",
    [
        ({"paper": "p", "ramble": RAMBLE, "needs": {}}, "question"),
        ({"question": "q", "paper": "p", "ramble": RAMBLE, "needs": {"gpus": -1}}, "needs.gpus"),
        ({"question": "q", "paper": "p", "ramble": RAMBLE, "needs": {"cores": 2}}, "needs"),
        ({"question": "q", "paper": "p", "ramble": RAMBLE, "needs": {}, "analyses": ["table"]}, "analyses.0"),
        (
            {"question": "q", "paper": "p", "ramble": RAMBLE, "needs": {}, "reference": "reference/none.csv"},
            "reference",
        ),
        ({"question": "q", "paper": "p", "ramble": RAMBLE, "needs": {}, "papr_system": "x"}, "papr_system"),
    ],
)
def test_a_bad_study_description_is_named_by_file_and_key(doc, key, tmp_path):
    study, env = own_tree(tmp_path, "_test-bad", doc)
    proc = subprocess.run(
        [HPCAAS, "study", "check", "_test-bad", "local"], cwd=ROOT, capture_output=True, text=True, env=env
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"hpcaas study: {study / 'study.yaml'}: {key}: "), proc.stderr


def test_a_failed_report_fails_make_reproduce(project):
    """The run succeeds and its report fails (an analysis asks for a column the results lack):
    make reproduce exits non-zero, and the run's results stay."""
    smoke = yaml.safe_load((ROOT / "ramble-workspaces/smoke/study.yaml").read_text())
    experiments = smoke["ramble"]["applications"]["hpcc"]["workloads"]["sized"]["experiments"]
    (variables,) = [e["variables"] for e in experiments.values()]
    variables["n_ranks"] = ["1"]
    smoke["analyses"] = [["table", "--metric", "HPL_Tflops", "--rows", "no_such_column"]]
    folder = ROOT / "ramble-workspaces/_test-report-fails"
    folder.mkdir(exist_ok=True)
    try:
        (folder / "study.yaml").write_text(yaml.safe_dump(smoke))
        proc, rows = reproduce(folder.name, "local")
    finally:
        shutil.rmtree(folder)
        shutil.rmtree(place(folder.name).folder, ignore_errors=True)
    assert proc.returncode != 0, proc.stdout[-2000:]
    assert rows and {r["status"] for r in rows} == {"SUCCESS"}
    assert "HPL_Tflops" in {r["metric"] for r in rows}
