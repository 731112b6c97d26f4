"""make system SYSTEM=<name> SCHEDULER=slurm: a cluster described by probing its compute nodes
through a real Slurm (slurm/up.sh's emulated nodes, the nodes of local-slurm), one task per node;
nodes that differ are reported, never averaged (hpcaas/probed.py)."""

import json
import re
import shutil
import subprocess
import sys
from datetime import date

import pytest
import yaml
from testkit import ROOT

from hpcaas import probe, probed, systemdiff, systems
from hpcaas.local import slurm_nodes

sys.path.insert(0, str(ROOT / "tests/slurm"))
from slurm_helpers import install_slurm, start_cluster, stop_cluster  # noqa: E402

NAME = "probed-test"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, project):
    """A cluster of slurm/up.sh's default layout: the nodes configs/local-slurm describes."""
    install_slurm()
    state = tmp_path_factory.mktemp("slurm")
    cluster = start_cluster(state, nodes=slurm_nodes())
    try:
        yield cluster
    finally:
        proc = stop_cluster(state)
        assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def configs(cluster, tmp_path_factory):
    """A configs/ of its own (so the committed systems' tests never see the probed one) with
    local-slurm, and the probed system make-system.sh wrote into it through the cluster."""
    folder = tmp_path_factory.mktemp("configs")
    for name in ("schema", "schedulers", "local-slurm"):
        shutil.copytree(ROOT / "configs" / name, folder / name)  # local-slurm's spack/ link copied as files
    cluster.run(
        "scripts/make-system.sh",
        "--scheduler",
        "slurm",
        "--partition",
        "batch",
        "--configs",
        folder,
        NAME,
        cwd=ROOT,
        timeout=900,
    )
    return folder


def test_the_probed_system_passes_validation(configs):
    proc = subprocess.run(
        [".venv/bin/hpcaas", "systems", "--configs", configs, "validate", configs / NAME],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"OK {configs / NAME / 'system.yaml'}"


def test_it_has_local_slurms_hardware(configs):
    """The same hardware, memory included: each emulated node's RealMemory is its share of the
    host's, which local-slurm states and the probe on a node reads back from Slurm."""
    rows = systemdiff.rows("local-slurm", NAME, configs)
    hardware = [r for r in rows if r["part"] == "hardware"]
    assert hardware and all(r["status"] == "same" for r in hardware), [r for r in hardware if r["status"] != "same"]
    doc = yaml.safe_load((configs / NAME / "system.yaml").read_text())
    host = yaml.safe_load((ROOT / "configs/local/system.yaml").read_text())["memory_per_node_gib"]["value"]
    assert doc["memory_per_node_gib"]["value"] < host
    assert doc["memory_per_node_gib"]["note"].startswith("Slurm's RealMemory, what jobs on the node may use")


def test_one_task_ran_on_each_node_and_each_fact_cites_one(cluster, configs):
    nodes = sorted(cluster.run("sinfo", "-h", "-N", "-p", "batch", "-o", "%N").stdout.split())
    doc = yaml.safe_load((configs / NAME / "system.yaml").read_text())
    assert doc["nodes"]["value"] == len(nodes) and doc["nodes"]["note"].startswith(", ".join(nodes))
    today = date.today().isoformat()
    for node in nodes:
        assert doc["sources"][f"probed-{node}"].startswith(f"probed on {node}, {today}")
    cited = {fact["source"] for _, fact in systems._facts(doc)}
    assert cited <= {f"probed-{nodes[0]}", "scheduler"} and f"probed-{nodes[0]}" in cited
    job = [line for line in cluster.jobcomp.read_text().splitlines() if "Name=hpcaas-probe" in line]
    assert job and "JobState=COMPLETED" in job[-1], job
    assert re.search(rf"NodeCnt={len(nodes)}\b", job[-1]), job[-1]


def test_its_spack_and_ramble_files_are_those_of_the_nodes(configs):
    folder = configs / NAME
    local = yaml.safe_load((ROOT / "configs/local/spack/compilers.yaml").read_text())["compilers"]
    mine = yaml.safe_load((folder / "spack/compilers.yaml").read_text())["compilers"]
    assert [c["compiler"]["spec"] for c in mine] == [c["compiler"]["spec"] for c in local]
    variables = systems.ramble_config(folder)["variables"]
    assert variables["launcher"] == "srun" and variables["launcher_srun"].startswith("srun --mpi={slurm_mpi_plugin}")
    assert variables["fabric_env_loopback"] == "OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo"


def _node(folder, name, facts):
    folder.mkdir()
    shutil.copytree(ROOT / "configs/local/spack", folder / "spack")
    (folder / "target").write_text(
        yaml.safe_load((ROOT / "configs/local/system.yaml").read_text())["processor"]["target"]["value"]
    )
    (folder / "facts.json").write_text(json.dumps({**facts, "node": name, "hostname": name}))


def test_nodes_that_differ_are_reported_never_averaged(tmp_path, project):
    """Three nodes from this machine's real probe, the third with twice the cores and memory:
    the description is of the two equal nodes, with their values, and the third is reported."""
    facts = probe.node_facts(peers=["127.0.0.1"])
    probe_dir = tmp_path / "probe"
    probe_dir.mkdir()
    _node(probe_dir / "n1", "n1", facts)
    _node(probe_dir / "n2", "n2", facts)
    bigger = {**facts, "cores_per_socket": facts["cores_per_socket"] * 2, "memory_gib": facts["memory_gib"] * 2}
    _node(probe_dir / "n3", "n3", bigger)
    configs = tmp_path / "configs"
    report = probed.write(probe_dir, "differing-nodes", "slurm", "batch", ["pmix", "pmi2"], "test", configs=configs)
    assert report[0] == (
        f"n3 differ from n1, n2: cores_per_socket {bigger['cores_per_socket']!r} (described: "
        f"{facts['cores_per_socket']!r}); memory_gib {bigger['memory_gib']!r} (described: {facts['memory_gib']!r})"
    )
    doc = systems.load_system(configs / "differing-nodes")
    assert systems.value(doc, "cores_per_socket") == facts["cores_per_socket"]
    assert systems.value(doc, "memory_per_node_gib") == facts["memory_gib"]
    assert doc["nodes"]["value"] == 2 and doc["nodes"]["note"].endswith("left out, as they differ: n3")


@pytest.mark.long  # make test-long: HPCC through Slurm, minutes
def test_make_validate_runs_on_the_probed_system(cluster):
    """make system writes it into the project's configs/ (make validate reads it there) for the
    length of this test: make test-long runs it with environments/ tests never beside it."""
    name = f"{NAME}-validate"
    try:
        cluster.run("make", "-s", "system", f"SYSTEM={name}", "SCHEDULER=slurm", cwd=ROOT, timeout=900)
        proc = cluster.run("make", "validate", f"SYSTEM={name}", cwd=ROOT, check=False, timeout=3600)
    finally:
        shutil.rmtree(ROOT / "configs" / name, ignore_errors=True)
        (ROOT / "baselines" / f"{name}.csv").unlink(missing_ok=True)
    assert "produced no results" not in proc.stderr, proc.stderr[-3000:]
    assert re.search(r"^(PASS|FAIL|UNSTABLE)$", proc.stdout, re.M), proc.stdout[-3000:]  # the verdict, whichever
    assert proc.returncode in (0, 2), proc.stderr[-3000:]  # make's status of validate.sh's 0 (PASS) or 1 (FAIL)


def test_nodes_whose_compiler_cannot_build_for_their_cpu_are_written_but_refused(tmp_path, project):
    """The description is kept to be edited (a compiler Spack builds first), and the refusal is
    the one line every system gets."""
    from hpcaas import toolchain

    facts = probe.node_facts(peers=["127.0.0.1"])
    compiler = yaml.safe_load((ROOT / "configs/local/spack/compilers.yaml").read_text())["compilers"][0]["compiler"]
    spec = compiler["spec"].replace("@=", "@")
    family = toolchain.archspec_targets()[facts["architecture"]]
    target = next(
        t for t, u in sorted(toolchain.archspec_targets().items()) if u.family == family and toolchain.why_not(spec, t)
    )
    probe_dir = tmp_path / "probe"
    probe_dir.mkdir()
    _node(probe_dir / "n1", "n1", facts)
    (probe_dir / "n1/target").write_text(target)  # as `spack arch` and make system's definitions.yaml would say
    definitions = probe_dir / "n1/spack/definitions.yaml"
    definitions.write_text(re.sub(r"target=\S+", f"target={target}", definitions.read_text()))
    configs = tmp_path / "configs"
    proc = subprocess.run(
        [sys.executable, "-m", "hpcaas.probed", probe_dir, "--name", "old-compiler", "--configs", configs],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2, proc.stderr
    line = proc.stderr.strip()
    assert len(line.splitlines()) == 1 and f"{spec} cannot build for {target}" in line, line
    assert (configs / "old-compiler/system.yaml").is_file()
