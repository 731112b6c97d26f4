"""configs/<system>/: every system validates, broken copies fail on one line, R_peak and prices
match the papers, and the table lists every system."""

import csv
import json
import re
import shlex
import shutil
from pathlib import Path

import pytest
import yaml
from testkit import systems_cli

from analysis.errors import InputError
from hpcaas import systems

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "configs"
REFERENCE = ROOT / "reference"
# configs/local and local-slurm are generated per machine by `make system`; the rest are committed.
SYSTEMS = [p.name for p in systems.system_folders(CONFIGS) if p.name not in ("local", "local-slurm")]
BASE = "aws-hpc7a-efa"  # the valid file the broken copies are made from (a cloud system: has a price)


def cli(*args, configs=CONFIGS):
    return systems_cli(*args, configs=configs)


def test_the_studies_systems_are_all_there():
    expected = {
        "hpe-devcloud-genoa-slingshot",
        "hpe-devcloud-spr-slingshot",
        "hpe-devcloud-milan-slingshot",
        "hpe-apollo2000-milan-hdr200",
        "nci-raijin-sandybridge-fdr",
        "nci-openstack-sandybridge-56gbe",
        "undisclosed-openstack-opteron-10gbe",
        "hpcac-dell-m610-westmere-qdr",
        "desmos-angara-haswell-gtx1070",
        "msu-lomonosov2-haswell-fdr",
        "hpe-apollo70-thunderx2-edr",
        "sgi-icexa-broadwell-fdr",
        "cray-xc30-ivybridge-aries",
        "dell-emc-skylake-opa",
        "aws-hpc7a-efa",
        "aws-hpc6a-efa",
        "aws-hpc7g-efa",
        "azure-hbv4-ndr",
        "azure-hbv3-hdr",
        "gcp-h3-sapphirerapids",
        "gcp-c3d-genoa",
        "oci-bm-e4-128-milan",
        "oci-bm-standard3-64-icelake",
    }
    assert expected <= set(SYSTEMS)


@pytest.mark.parametrize("name", SYSTEMS)
def test_every_system_validates(name):
    doc = systems.check_system_dir(CONFIGS / name)
    assert doc["name"] == name
    proc = cli("validate", str(CONFIGS / name / "system.yaml"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"OK {CONFIGS / name / 'system.yaml'}"


def test_schema_target_list_is_the_archspec_data_file():
    schema = json.loads(systems.SCHEMA_FILE.read_text())
    enum = schema["$defs"]["target_fact"]["properties"]["value"]["enum"]
    targets = json.loads(systems.TARGETS_FILE.read_text())["targets"]
    assert sorted(enum) == sorted(targets)
    for name in (
        "zen4",
        "zen3",
        "zen2",
        "sapphirerapids",
        "icelake",
        "skylake_avx512",
        "broadwell",
        "haswell",
        "ivybridge",
        "sandybridge",
        "westmere",
        "piledriver",
        "thunderx2",
        "neoverse_v1",
    ):
        assert name in targets


# --------------------------------------------------------------------------- broken copies


def _sub(old, new):
    def mutate(text):
        assert old in text, old
        return text.replace(old, new, 1)

    return mutate


def _drop_line(prefix):
    return lambda text: re.sub(rf"^{re.escape(prefix)}.*\n", "", text, count=1, flags=re.M)


BROKEN = [  # (case, mutation of the valid system.yaml, key the one-line error must name)
    ("missing-key", _drop_line("sockets:"), "sockets"),
    ("wrong-type", _sub("sockets: {value: 2,", "sockets: {value: two,"), "sockets"),
    ("zero-cores", _sub("cores_per_socket: {value: 96,", "cores_per_socket: {value: 0,"), "cores_per_socket"),
    ("unknown-target", _sub("target: {value: zen4,", "target: {value: zen9,"), "processor.target"),
    ("target-of-other-family", _sub("target: {value: zen4,", "target: {value: neoverse_v1,"), "processor.target"),
    ("negative-price", _sub("value: 7.20,", "value: -7.20,"), "price_per_node_hour"),
    ("price-without-currency", _sub("currency: USD, ", ""), "price_per_node_hour.currency"),
    ("lower-case-currency", _sub("currency: USD", "currency: usd"), "price_per_node_hour.currency"),
    ("unparseable-date", _sub("date: 2026-11-22", "date: 22/11/2026"), "price_per_node_hour.date"),
    ("future-date", _sub("date: 2026-11-22", "date: 2099-01-01"), "price_per_node_hour.date"),
    ("cloud-without-price", lambda t: t[: t.index("price_per_node_hour:")], "price_per_node_hour"),
    ("unknown-key", lambda t: t + "socket_count: {value: 2, source: aws-hpc}\n", "socket_count"),
    (
        "undefined-source",
        _sub("sockets: {value: 2, source: zama-hpc7a", "sockets: {value: 2, source: nowhere"),
        "sockets.source",
    ),
    (
        "fact-without-source",
        _sub("threads_per_core: {value: 1, source: aws-hpc}", "threads_per_core: {value: 1}"),
        "threads_per_core.source",
    ),
    ("bare-value", _sub("threads_per_core: {value: 1, source: aws-hpc}", "threads_per_core: 1"), "threads_per_core"),
    (
        "flops-beyond-vector-width",
        _sub("dp_flops_per_cycle: {value: 16,", "dp_flops_per_cycle: {value: 64,"),
        "dp_flops_per_cycle",
    ),
    (
        "vector-width-not-64-multiple",
        _sub("vector_width_bits: {value: 512,", "vector_width_bits: {value: 500,"),
        "vector_width_bits",
    ),
    ("clock-in-mhz", _sub("base_clock_ghz: {value: 2.6,", "base_clock_ghz: {value: 2600,"), "base_clock_ghz"),
    ("unknown-kind", _sub("kind: cloud", "kind: public"), "kind"),
    ("unknown-scheduler", _sub("scheduler: {value: slurm,", "scheduler: {value: sge,"), "scheduler"),
    ("unknown-interconnect", _sub("kind: {value: efa,", "kind: {value: myrinet,"), "interconnect.kind"),
    (
        "text-for-number",
        _sub("memory_per_node_gib: {value: 768,", "memory_per_node_gib: {value: lots,"),
        "memory_per_node_gib",
    ),
    (
        "verified-not-boolean",
        _sub("source: aws-pricing, verified: false,", "source: aws-pricing, verified: maybe,"),
        "price_per_node_hour.verified",
    ),
    (
        "gpu-dp-above-sp",
        _sub(
            "gpus: []",
            "gpus:\n- {model: {value: X, source: aws-hpc}, count: {value: 1, source: aws-hpc},"
            " dp_gflops: {value: 10, source: aws-hpc}, sp_gflops: {value: 5, source: aws-hpc}}",
        ),
        "gpus.0.dp_gflops",
    ),
    ("yaml-syntax", _sub("sockets: {value: 2,", "sockets: {value: 2,,"), "line "),
    ("empty-file", lambda t: "", "(top level)"),
    ("list-not-mapping", lambda t: "- sockets\n- cores\n", "(top level)"),
]


@pytest.mark.parametrize("case,mutate,key", BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_copy_fails_on_one_line(tmp_path, case, mutate, key):
    folder = tmp_path / BASE
    folder.mkdir()
    broken = folder / "system.yaml"
    broken.write_text(mutate((CONFIGS / BASE / "system.yaml").read_text()))
    proc = cli("validate", str(broken))
    out = (proc.stdout + proc.stderr).strip()
    assert proc.returncode == 2, out
    assert "Traceback" not in out
    assert len(out.splitlines()) == 1, out
    assert out.startswith(f"{broken}: {key}"), out
    with pytest.raises(InputError) as err:
        systems.load_system(broken)
    assert err.value.file == str(broken) and err.value.key.startswith(key.strip())


def test_folder_name_must_match(tmp_path):
    folder = tmp_path / "aws-hpc7a-ib"
    folder.mkdir()
    shutil.copy(CONFIGS / BASE / "system.yaml", folder / "system.yaml")
    proc = cli("validate", str(folder / "system.yaml"))
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"{folder / 'system.yaml'}: name: the folder name 'aws-hpc7a-ib'; got '{BASE}'"


# --------------------------------------------------------------------------- the files around system.yaml


def _copy(tmp_path, name=BASE):
    shutil.copytree(CONFIGS / name, tmp_path / name)
    return tmp_path / name


def _edit_yaml(file, change):
    doc = yaml.safe_load(file.read_text())
    change(doc)
    file.write_text(yaml.safe_dump(doc, sort_keys=False))


@pytest.mark.parametrize(
    "rel,change,key",
    [
        # What system.yaml or fabrics.yaml determine is derived, never written again by hand.
        (
            "ramble/variables.yaml",
            lambda d: d["variables"].update(fabric_env_efa="FI_PROVIDER=verbs"),
            "variables.fabric_env_efa",
        ),
        (
            "ramble/variables.yaml",
            lambda d: d["variables"].update(processes_per_node="96"),
            "variables.processes_per_node",
        ),
        (
            "ramble/variables.yaml",
            lambda d: d["variables"].update(batch_submit="qsub {execute_experiment}"),
            "variables.batch_submit",
        ),
        ("ramble/variables.yaml", lambda d: d["variables"].update(target="zen4"), "variables.target"),
        ("ramble/variables.yaml", lambda d: d["variables"].update(fabric="ib"), "variables.fabric"),
        ("ramble/variables.yaml", lambda d: d["variables"].pop("launcher"), "variables.launcher"),
        ("ramble/variables.yaml", lambda d: d["variables"].update(launcher="mpiexec"), "variables.launcher"),
        (
            "ramble/fabrics.yaml",
            lambda d: d["fabrics"].update({"efa-rdma": {"FI_PROVIDER": "efa"}}),
            "fabrics.efa-rdma",
        ),
        (
            "spack/compilers.yaml",
            lambda d: d["compilers"][0]["compiler"].update(target="aarch64"),
            "compilers.0.compiler.target",
        ),
        # The target preference restates system.yaml's processor.target for Spack: the same.
        (
            "spack/packages.yaml",
            lambda d: d["packages"].setdefault("all", {}).update(target=["x86_64_v2"]),
            "packages.all.target",
        ),
    ],
)
def test_folder_checks(tmp_path, rel, change, key):
    folder = _copy(tmp_path)
    _edit_yaml(folder / rel, change)
    with pytest.raises(InputError) as err:
        systems.check_system_dir(folder)
    assert err.value.key == key
    assert err.value.file == str(folder / rel)


@pytest.mark.parametrize("name", SYSTEMS)
def test_derived_variables_follow_the_facts(name):
    doc = systems.load_system(CONFIGS / name)
    fabrics = yaml.safe_load((CONFIGS / name / "ramble/fabrics.yaml").read_text())["fabrics"]
    conf = systems.ramble_config(CONFIGS / name)
    variables = conf["variables"]
    cores = systems.value(doc, "sockets") * systems.value(doc, "cores_per_socket")
    assert variables["system"] == name and variables["target"] == systems.value(doc, "processor.target")
    assert variables["cores_per_node"] == variables["processes_per_node"] == str(cores)
    for fabric, env in fabrics.items():
        assert variables[f"fabric_env_{fabric}"] == " ".join(f"{k}={shlex.quote(str(v))}" for k, v in env.items())
    scheduler = systems.value(doc, "scheduler") or "local"
    assert conf["template"] == (CONFIGS / "schedulers" / f"{scheduler}.tpl").read_text()
    assert (
        variables["batch_submit"]
        == {
            "slurm": "sbatch {execute_experiment}",
            "pbs": "qsub {execute_experiment}",
            "local": "{execute_experiment}",
        }[scheduler]
    )


def test_each_scheduler_template_is_a_job_script_of_its_scheduler():
    directive = {"slurm": "#SBATCH", "pbs": "#PBS", "local": None}
    templates = sorted((CONFIGS / "schedulers").glob("*.tpl"))
    assert sorted(t.stem for t in templates) == sorted(systems.SUBMIT)
    for tpl in templates:
        text = tpl.read_text()
        assert "{command}" in text and 'cd "{experiment_run_dir}"' in text, tpl
        for other, mark in directive.items():
            if mark:
                assert (mark in text) == (other == tpl.stem), (tpl, mark)


def test_a_folder_without_system_yaml_is_an_error(tmp_path):
    _copy(tmp_path)
    (tmp_path / "half-written").mkdir()
    with pytest.raises(InputError) as err:
        systems.load_all(tmp_path)
    assert err.value.file == str(tmp_path / "half-written" / "system.yaml")


# --------------------------------------------------------------------------- R_peak and prices

PASC19 = {
    "HPE Apollo 70": "hpe-apollo70-thunderx2-edr",
    "SGI ICE XA": "sgi-icexa-broadwell-fdr",
    "Cray XC30": "cray-xc30-ivybridge-aries",
    "Dell EMC": "dell-emc-skylake-opa",
}


def test_rpeak_matches_pasc19_table1():
    rows = [
        r
        for r in csv.DictReader((REFERENCE / "arm-tx2-pasc19_table1_node_specs.csv").open())
        if r["metric"] == "max_node_dp_gflops"
    ]
    assert len(rows) == 4
    for row in rows:
        s = systems.load_system(CONFIGS / PASC19[row["system"]])
        assert systems.rpeak_per_node_gflops(s) == pytest.approx(float(row["value"]), rel=1e-12), row["system"]


@pytest.mark.parametrize(
    "name,cpu,gpu_dp,gpu_sp",
    [
        ("hpe-apollo70-thunderx2-edr", 2 * 32 * 2.2 * 8, 0, 0),  # 1126.4
        ("hpe-devcloud-genoa-slingshot", 2 * 96 * 2.4 * 16, 0, 0),  # 7372.8
        ("nci-raijin-sandybridge-fdr", 2 * 8 * 2.6 * 8, 0, 0),  # 332.8
        ("desmos-angara-haswell-gtx1070", 6 * 3.5 * 16, 180.7, 5783.0),  # CPU 336 + GTX 1070 at its base clock
        ("msu-lomonosov2-haswell-fdr", 14 * 2.6 * 16, 1430, 4290),  # CPU 582.4 + K40M
    ],
)
def test_rpeak_formula(name, cpu, gpu_dp, gpu_sp):
    s = systems.load_system(CONFIGS / name)
    assert systems.rpeak_per_node_gflops(s) == pytest.approx(cpu + gpu_dp, rel=1e-12)
    assert systems.rpeak_per_node_gflops(s, gpu="half_sp") == pytest.approx(cpu + 0.5 * gpu_sp, rel=1e-12)
    assert systems.rpeak_per_node_gflops(s, gpu="none") == pytest.approx(cpu, rel=1e-12)


def test_desmos_rpeak_is_the_papers():
    # IJHPCA'19 Section 6: "6 x 3.5 x 16 + 0.5 x R_peak^GPU-SP = 336 + 2892 = 3228 GFlops", the GTX
    # 1070 at its base clock (1920 x 2 x 1.506 = 5783 GFLOP/s SP); its boost clock would give 3567.
    s = systems.load_system(CONFIGS / "desmos-angara-haswell-gtx1070")
    assert systems.rpeak_per_node_gflops(s, gpu="none") == pytest.approx(336, rel=1e-12)
    assert abs(systems.rpeak_per_node_gflops(s, gpu="half_sp") - 3228) <= 0.5


def test_oci_prices_reproduce_the_papers_monthly_figures():
    # SC'23 T3: $4666.37/month and $3047.42/month; OCI bills a month as 744 hours.
    for name, monthly in (("oci-bm-e4-128-milan", 4666.37), ("oci-bm-standard3-64-icelake", 3047.42)):
        price = systems.price_per_node_hour(systems.load_system(CONFIGS / name))
        assert price["value"] * 744 == pytest.approx(monthly, abs=0.01)
        assert price["currency"] == "USD" and price["verified"] is True
        assert "SC'23" in price["source"]


def test_every_cloud_has_a_dated_price_and_on_premises_has_none():
    for name in SYSTEMS:
        s = systems.load_system(CONFIGS / name)
        price = systems.price_per_node_hour(s)
        if s["kind"] == "cloud":
            assert price and price["value"] > 0 and price["date"] and price["source"], name
        else:
            assert price is None, name


# --------------------------------------------------------------------------- the table


def test_table_lists_every_system(tmp_path):
    for name in SYSTEMS:
        shutil.copytree(CONFIGS / name, tmp_path / name)
    shutil.copytree(CONFIGS / "schema", tmp_path / "schema")
    proc = cli("table", configs=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == [
        "system",
        "cores/node",
        "target",
        "network",
        "R_peak",
        "GFLOP/s/node",
        "price/node-hour",
    ]
    rows = {line.split()[0]: line for line in lines[2 : 2 + len(SYSTEMS)]}
    assert sorted(rows) == SYSTEMS
    assert re.search(r"\b64\s+thunderx2\s+IB EDR 100 Gb/s\s+1126\.4\s+-$", rows["hpe-apollo70-thunderx2-edr"])
    assert re.search(r"\b128\s+zen3\s+.*5222\.4\s+6\.272 USD \(2023\)$", rows["oci-bm-e4-128-milan"])


def test_table_reports_a_bad_system_and_still_lists_the_rest(tmp_path):
    for name in (BASE, "gcp-h3-sapphirerapids"):
        shutil.copytree(CONFIGS / name, tmp_path / name)
    (tmp_path / "gcp-h3-sapphirerapids" / "system.yaml").write_text("sockets: 2\n")
    proc = cli("table", configs=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith(f"{tmp_path / 'gcp-h3-sapphirerapids' / 'system.yaml'}: ")
    assert BASE in proc.stdout and "Traceback" not in proc.stderr


# --------------------------------------------------------------------------- cloud images

CLOUDS = [
    n
    for n in SYSTEMS
    if systems.load_system(CONFIGS / n)["kind"] == "cloud" and not systems.load_system(CONFIGS / n)["studies"]
]


@pytest.mark.parametrize("name", CLOUDS)
def test_a_cloud_system_describes_its_image_each_fact_with_a_dated_source(name):
    """OS, system compiler, MPIs and fabric libraries as the image ships them: each cites a URL
    it was read at, with the date, or says it was not verified there."""
    doc = systems.load_system(CONFIGS / name)
    assert doc.get("os") and doc.get("image"), f"{name}: no os/image facts"
    for key in ("name", "compiler", "mpis", "fabric"):
        fact = doc["image"][key]
        citation = doc["sources"][fact["source"]]
        assert re.search(r"https?://", citation), (name, key, citation)
        assert re.search(r"\b20\d\d-\d\d-\d\d\b", citation) or fact.get("verified") is False, (name, key, citation)
    packages = yaml.safe_load((CONFIGS / name / "spack/packages.yaml").read_text())["packages"]
    externals = {e["spec"].split()[0] for conf in packages.values() for e in conf.get("externals", [])}
    assert set(doc["image"]["mpis"]["value"]) | set(doc["image"]["fabric"]["value"]) <= externals


def test_an_image_fact_the_spack_files_contradict_is_refused(tmp_path):
    folder = _copy(tmp_path)
    packages = folder / "spack/packages.yaml"
    packages.write_text(packages.read_text().replace("spec: openmpi@4.1.8", "spec: openmpi@4.1.7"))
    with pytest.raises(InputError) as err:
        systems.check_system_dir(folder)
    assert (err.value.file, err.value.key) == (str(packages), "packages.openmpi")
    assert "openmpi@4.1.8 (image.mpis of system.yaml)" in err.value.expected


def _openmpi(name):
    """(scheduler, the launch line of Open MPI, the `require` of the Open MPI Spack builds or None,
    packages.yaml's packages) of a system."""
    folder = CONFIGS / name
    variables = yaml.safe_load((folder / "ramble" / "variables.yaml").read_text())["variables"]
    line = str(variables.get(f"launcher_{variables.get('launcher_for_openmpi', variables.get('launcher'))}", ""))
    scheduler = yaml.safe_load((folder / "system.yaml").read_text())["scheduler"]["value"]
    packages = (yaml.safe_load((folder / "spack" / "packages.yaml").read_text()) or {}).get("packages", {})
    required = packages.get("openmpi", {}).get("require")
    return scheduler, line, str(required) if required else None, packages


def _openmpi_for_mpirun_under_slurm(name):
    """The `require` of the Open MPI Spack builds on this system for its mpirun under Slurm, or None."""
    scheduler, line, required, _ = _openmpi(name)
    return required if scheduler == "slurm" and line.startswith("mpirun") else None


MPIRUN_UNDER_SLURM = [name for name in SYSTEMS if _openmpi_for_mpirun_under_slurm(name)]


@pytest.mark.parametrize("name", MPIRUN_UNDER_SLURM)
def test_an_open_mpi_spack_builds_for_its_mpirun_under_slurm_finds_the_jobs_nodes(name):
    """SC'23 Section 5: the Apollo ran its own Open MPI 4.1.4 with mpirun ('given the absence of pmix
    library'). Spack's default schedulers=none configures Open MPI --without-slurm, whose mpirun sees
    only the batch node of a 14-node job; schedulers=slurm gives it the allocation (and srun to start
    its daemons, no PMIx needed), and +legacylaunchers keeps the mpirun Spack otherwise removes."""
    required = _openmpi_for_mpirun_under_slurm(name)
    assert "schedulers=slurm" in required and "+legacylaunchers" in required, required


def _openmpi_under_srun_pmix(name):
    """(the `require` of the Open MPI Spack builds on this system, its packages) when its ranks are
    started by `srun --mpi=pmix`, else None."""
    _, line, required, packages = _openmpi(name)
    return (required, packages) if required and "--mpi=pmix" in line else None


SRUN_PMIX = [name for name in SYSTEMS if _openmpi_under_srun_pmix(name)]


@pytest.mark.parametrize("name", SRUN_PMIX)
def test_an_open_mpi_spack_builds_for_srun_pmix_has_slurm_and_the_sites_pmix(name):
    """Ranks that `srun --mpi=pmix` starts get their PMIx from Slurm's pmix plugin: the Open MPI
    Spack builds for them needs Slurm support (schedulers=slurm) and the site's PMIx as an
    external, not one Spack builds that Slurm's plugin would not match."""
    required, packages = _openmpi_under_srun_pmix(name)
    assert "schedulers=slurm" in required, required
    pmix = packages.get("pmix", {})
    assert pmix.get("buildable") is False and pmix.get("externals"), f"{name}: packages.pmix is not the site's"
