"""scripts/concretize.sh (make concretize) for real: every pair of environments/pairs.yaml
concretizes offline with the pinned Spack, and its lock holds exactly the study's builds: each
root spec's compiler, MPI provider, OS and target. Cold, a pair takes 0.5-3 min (one solve per
spec, two at a time); with unchanged inputs the lock comes from $HPCAAS_CACHE/concretize/."""

import json
import shutil
from pathlib import Path

import pytest
import yaml

from testkit import ROOT, run

PAIRS = yaml.safe_load((ROOT / "environments/pairs.yaml").read_text())

# The variants a study sweeps, so that the builds of one matrix row are told apart.
MPI_NAMES = {"openmpi", "mpich", "cray-mpich", "intel-mpi", "intel-oneapi-mpi", "mvapich2", "hpe-mpt"}
SWEPT = {"namd": ["ivdep"], "mpas-atmosphere": ["opt"]}


S2 = [("osu-micro-benchmarks@5.3", "gcc@4.4.7", "openmpi@1.8.8", "centos6-x86_64"),
      ("npb@3.4.1", "gcc@4.4.7", "openmpi@1.8.8", "centos6-x86_64"),
      ("namd@2.12", "gcc@4.4.7", "openmpi@1.8.8", "centos6-x86_64")]


def _s4(compiler, mpi, arch):
    apps = ["osu-micro-benchmarks@5.4", "intel-mpi-benchmarks@2019.1", "npb@3.3.1", "lammps@20200303",
            "gromacs@2018.8"]
    return [(app, compiler, mpi, arch) for app in apps]


def _t4(arch_native, arch_older):
    return [(f"namd@3.0{v}", "cce@15.0.1", "cray-mpich@8.1.25", arch)
            for v in ("+ivdep", "~ivdep") for arch in (arch_native, arch_older)]


def _s5(compiler, mpis, arch, nektar_arm=()):
    """PASC'19 S5: IMB per MPI; HPCG, Nektar++, STREAM, GROMACS, OpenSBLI once (the first MPI)."""
    return ([("intel-mpi-benchmarks@2019.1", compiler, mpi, arch) for mpi in mpis]
            + [(app, compiler, mpis[0], arch) for app in ("hpcg@3.0", "nektar@5.3.0", "gromacs@2018.8",
                                                           "opensbli@2023.02.02")]
            + [("stream@5.10", compiler, None, arch)] + list(nektar_arm))


def _s3(arch, compilers=("gcc@4.5.2", "intel@12.0", "pgi@11.0"), mpis=("intel-mpi@4.0", "openmpi@1.5.3")):
    """HPC-AC AMBER S3: PMEMD per compiler x MPI."""
    return [("amber@18", compiler, mpi, arch) for compiler in compilers for mpi in mpis]


# Per pair: (root spec, compiler, MPI provider, os-target) of every root of the lock.
EXPECTED = {
    ("hpcaas-bench-sc23", "hpe-devcloud-genoa-slingshot"):
        [("montecarlo@2016.07.25", "cce@15.0.1", None, "sles15-zen4")] + _t4("sles15-zen4", "sles15-zen2"),
    ("hpcaas-bench-sc23", "hpe-devcloud-spr-slingshot"):
        [("montecarlo@2016.07.25", "cce@15.0.1", None, "sles15-sapphirerapids")]
        + _t4("sles15-sapphirerapids", "sles15-broadwell"),
    ("hpcaas-bench-sc23", "hpe-devcloud-milan-slingshot"):
        [("openradioss@20230701", "gcc@12.2.0", "openmpi@4.1.4", "sles15-zen3"),
         ("openfoam@2306", "cce@15.0.1", "cray-mpich@8.1.25", "sles15-zen3")]
        + [(f"mpas-atmosphere@7.3 opt={opt}", compiler, "cray-mpich@8.1.25", "sles15-zen3")
           for opt in ("O3", "Ofast") for compiler in ("cce@15.0.1", "gcc@12.2.0", "intel@2021.4.0")],
    ("hpcaas-bench-sc23", "hpe-apollo2000-milan-hdr200"): [("openradioss@20230701", "gcc@12.2.0", "openmpi@4.1.4", "rhel8-zen3")],
    ("nci-56gbe-icacc16", "nci-raijin-sandybridge-fdr"): S2,
    ("nci-56gbe-icacc16", "nci-openstack-sandybridge-56gbe"): S2,
    ("nci-56gbe-icacc16", "undisclosed-openstack-opteron-10gbe"): S2,
    ("desmos-ijhpca19", "desmos-angara-haswell-gtx1070"): _s4("gcc@4.8.3", "mpich@3.0.4", "sles11-haswell"),
    ("desmos-ijhpca19", "msu-lomonosov2-haswell-fdr"): _s4("intel@15.0", "openmpi@2.1.1", "centos7-x86_64"),
    ("hpcac-amber", "hpcac-dell-m610-westmere-qdr"): _s3("rhel5-x86_64"),
    ("arm-tx2-pasc19", "hpe-apollo70-thunderx2-edr"):
        _s5("gcc@8.2.0", ["mpt@2.20", "openmpi@4.0.0"], "sles12-aarch64",
            nektar_arm=[("nektar@5.3.0", "arm@19.0.0", "mpt@2.20", "sles12-aarch64")]),
    ("arm-tx2-pasc19", "sgi-icexa-broadwell-fdr"): _s5("intel@17.0.2", ["mpt@2.16"], "centos7-haswell"),
    ("arm-tx2-pasc19", "cray-xc30-ivybridge-aries"): _s5("cce@8.5.8", ["cray-mpich@7.5.5"], "sles11-ivybridge"),
    ("arm-tx2-pasc19", "dell-emc-skylake-opa"): _s5("intel@17.0.4", ["intel-mpi@2017.4"], "rhel7-haswell"),
}


def roots(lock):
    """(name@version[variants], compiler, MPI provider, os-target) of each root spec of a lock."""
    specs = json.loads(Path(lock).read_text())["concrete_specs"]

    def mpi(node_hash):
        for dep in specs[node_hash].get("dependencies", []):
            # OpenRadioss' engine depends on openmpi by name, not on the mpi virtual.
            if "mpi" in dep["parameters"]["virtuals"] or specs[dep["hash"]]["name"] in MPI_NAMES:
                return f'{specs[dep["hash"]]["name"]}@{specs[dep["hash"]]["version"]}'
        found = [mpi(dep["hash"]) for dep in specs[node_hash].get("dependencies", [])]
        return next((m for m in found if m), None)

    out = []
    for root in json.loads(Path(lock).read_text())["roots"]:
        s = specs[root["hash"]]
        values = {v: s["parameters"][v] for v in SWEPT.get(s["name"], []) if v in s["parameters"]}
        variants = "".join(f" {v}={x}" if isinstance(x, str) else ("+" if x else "~") + v for v, x in values.items())
        target = s["arch"]["target"]  # a generic target is stored by name, a microarchitecture in full
        target = target if isinstance(target, str) else target["name"]
        out.append((f'{s["name"]}@{s["version"]}{variants}', f'{s["compiler"]["name"]}@{s["compiler"]["version"]}',
                    mpi(root["hash"]), f'{s["arch"]["platform_os"]}-{target}'))
    return sorted(out, key=str)


def concretize(system, env, check=True):
    return run(f"scripts/concretize.sh {system} {env}", check=check)


def test_expected_covers_every_pair():
    assert set(EXPECTED) == {(env, system) for env, systems in PAIRS["pairs"].items() for system in systems}


@pytest.mark.parametrize("env,system", sorted(EXPECTED))
def test_pair_concretizes_to_the_studys_builds(project, env, system):
    proc = concretize(system, env)
    lock = proc.stdout.strip().splitlines()[-1]
    assert roots(lock) == sorted(EXPECTED[env, system], key=str)
    # make concretize also leaves the lock where `spack -e environments/<env>` reads it.
    assert (ROOT / "environments" / env / "spack.lock").read_text() == Path(lock).read_text()


def test_unchanged_inputs_reuse_the_cached_lock(project):
    first = concretize("nci-raijin-sandybridge-fdr", "nci-56gbe-icacc16")
    second = concretize("nci-raijin-sandybridge-fdr", "nci-56gbe-icacc16")
    assert "nci-56gbe-icacc16 on nci-raijin-sandybridge-fdr: unchanged inputs, lock from the cache" in second.stdout
    assert "concretizing" not in second.stdout
    assert first.stdout.splitlines()[-1] == second.stdout.splitlines()[-1]


def test_a_system_without_compilers_stops_naming_the_file(project):
    # Every pair concretizes today (blocked: {}), so a copy of a system with its compilers
    # emptied stands for the next system added before its compiler versions are known.
    system = "test-no-compilers"
    copy = project / "configs" / system
    shutil.copytree(project / "configs/dell-emc-skylake-opa", copy)
    try:
        (copy / "spack/compilers.yaml").write_text("compilers: []\n")
        proc = concretize(system, "arm-tx2-pasc19", check=False)
    finally:
        shutil.rmtree(copy)
    assert proc.returncode == 1
    assert proc.stderr.strip() == (f"[hpcaas] error: configs/{system}/spack/compilers.yaml: compilers: none listed, "
                                   "and environments/arm-tx2-pasc19/spack.yaml builds with the site's compilers")


def test_usage_when_an_argument_is_missing(project):
    proc = run("scripts/concretize.sh nci-raijin-sandybridge-fdr", check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip() == ("[hpcaas] error: usage: make concretize SYSTEM=<system> ENV=<environment> "
                                   "(pairs: environments/pairs.yaml)")


@pytest.mark.parametrize("system,env,message", [
    ("no-such-system", "hpcaas-bench-sc23",
     "no system 'no-such-system': configs/no-such-system/spack/compilers.yaml does not exist (systems: ls configs/)"),
    ("nci-raijin-sandybridge-fdr", "no-such-env",
     "no environment 'no-such-env': environments/no-such-env/spack.yaml does not exist (environments: "
     "arm-tx2-pasc19 desmos-ijhpca19 hpcaas-bench-sc23 hpcac-amber nci-56gbe-icacc16)"),
    ("aws-hpc7a-efa", "hpcaas-bench-sc23",
     "configs/aws-hpc7a-efa/spack/definitions.yaml: definitions: file missing; environments/hpcaas-bench-sc23/"
     "spack.yaml takes compilers, default_compiler, default_mpi, default_target, targets from it"),
    ("nci-raijin-sandybridge-fdr", "hpcaas-bench-sc23",
     "environments/hpcaas-bench-sc23/spack.yaml: specs: none for nci-raijin-sandybridge-fdr"),
])
def test_unknown_or_unfit_system_or_environment_is_one_line(project, system, env, message):
    proc = concretize(system, env, check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == f"[hpcaas] error: {message}"


SPACK_SCHEMAS = """
import sys
import spack.config, spack.schema.definitions, spack.schema.env
import spack.util.spack_yaml as syaml
for f in sys.argv[1:]:
    schema = spack.schema.env.schema if f.endswith("spack.yaml") else spack.schema.definitions.schema
    spack.config.validate(syaml.load_config(open(f).read()), schema)
    print("OK", f)
"""


def test_spack_v0231_accepts_every_environment_and_definitions_file(project, tmp_path):
    files = sorted(map(str, [*ROOT.glob("environments/*/spack.yaml"), *ROOT.glob("configs/*/spack/definitions.yaml")]))
    (tmp_path / "check.py").write_text(SPACK_SCHEMAS)
    out = run(f"spack python {tmp_path / 'check.py'} {' '.join(files)}").stdout
    envs = list(ROOT.glob("environments/*/spack.yaml"))
    assert out.count("OK ") == len(files) and len(envs) == 5


def test_activating_the_environment_takes_the_systems_axes(project):
    """`spack env activate` as Spack documents it, with the system's definitions merged in."""
    out = run("hpcaas_system hpe-devcloud-genoa-slingshot && spack env activate environments/hpcaas-bench-sc23"
              " && spack config get definitions && spack env status").stdout
    assert "- default_target: [os=sles15 target=zen4]" in out
    assert "- targets: [os=sles15 target=zen4, os=sles15 target=zen2]" in out
    assert f"In environment {ROOT}/environments/hpcaas-bench-sc23" in out


def test_every_environment_activates_on_a_system_without_definitions(project):
    """A system without definitions.yaml (a cloud that no study builds on yet): the matrices are empty."""
    envs = sorted(p.parent.name for p in ROOT.glob("environments/*/spack.yaml"))
    out = run("hpcaas_system aws-hpc7a-efa && for e in " + " ".join(envs) + "; do spack env activate environments/$e"
              " && spack find && spack env deactivate; done").stdout
    for env in envs:
        assert f"In environment {ROOT}/environments/{env}" in out
    assert out.count("==> No root specs") == len(envs)
