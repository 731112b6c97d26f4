"""NAMD built with cce differs per target (SC'23 Table 4, issue 13 findings 4 and 5).

NAMD's build reads its compilers and flags from an arch file that the recipe writes
(`_edit_arch`); it calls the compiler by its own path, so neither Spack's compiler wrapper nor
a spec's flags reach it, and Spack's builtin recipe writes no flags at all for cce. The paper
built each target with its craype target module ("'cray-x86-rome' and 'craype-x86-genoa' for
genoa and 'craype-broadwell' and 'craype-x86-spr' for sapphire-rapids", Section 4); our recipe
gives the craype driver the same CPU with `-target-cpu=`.

The test concretizes the studies' NAMD specs on each paper system's own Spack config (as
`hpcaas_system <system>` selects it, offline as `make concretize` solves) and runs the recipe's
arch-file editing in an empty directory: it needs no NAMD source (NAMD is licensed)."""

import json

import pytest
import yaml
from testkit import ROOT, run, solved

# What the arch file must say per (system, target): the paper's craype CPU for the target.
EXPECTED = {
    "hpe-devcloud-genoa-slingshot": {"zen4": "x86-genoa", "zen2": "x86-rome"},
    "hpe-devcloud-spr-slingshot": {"sapphirerapids": "x86-spr", "broadwell": "broadwell"},
}
CRAYPE_DRIVERS = "/opt/cray/pe/craype/2.7.20/bin/"

# Each spec is solved on the system's Spack config (testkit.solved: the site's cce, which does
# not exist here, solves as hpcaas/spack_python/concretize.py solves it); the script edits each one's arch file.
SCRIPT = """
import json, os, sys
import spack.spec

out, workdir = sys.argv[1], sys.argv[2]
files = {}
for path in sys.argv[3:]:
    spec = spack.spec.Spec.from_json(open(path).read())
    pkg = spec.package
    # What Spack's build environment does before edit(): charmpp tells NAMD its charmarch.
    spec["charmpp"].package.setup_dependent_package(None, spec)
    stage = os.path.join(workdir, str(spec.target))
    os.makedirs(os.path.join(stage, "arch"))
    os.chdir(stage)
    pkg._edit_arch(spec, spec.prefix)
    with open(os.path.join("arch", pkg.build_directory + ".arch")) as f:
        files[str(spec.target)] = {"compiler": str(spec.compiler), "arch": f.read()}
with open(out, "w") as f:
    json.dump(files, f)
"""


@pytest.fixture(scope="module", params=sorted(EXPECTED))
def arch_files(request, project, tmp_path_factory):
    system = request.param
    tmp = tmp_path_factory.mktemp(system)
    script = tmp / "arch.py"
    script.write_text(SCRIPT)
    (tmp / "work").mkdir()
    compilers = yaml.safe_load((ROOT / "configs" / system / "spack/compilers.yaml").read_text())
    (os_name,) = {c["compiler"]["operating_system"] for c in compilers["compilers"]}
    config = " ".join(
        f"-c concretizer:{c}" for c in ("reuse:false", "targets:host_compatible:false", "targets:granularity:generic")
    )
    specs = " ".join(
        str(
            solved(
                f"namd@3.0 ~ivdep %cce@15.0.1 target={t} os={os_name} ^charmpp backend=mpi ^cray-mpich@8.1.25",
                system,
                config,
            )
        )
        for t in EXPECTED[system]
    )
    run(
        f"hpcaas_system {system} && spack python {script} {tmp / 'out.json'} {tmp / 'work'} {specs}",
        timeout=1200,
    )
    return system, json.loads((tmp / "out.json").read_text())


def test_each_target_compiles_for_its_craype_cpu_with_O3(arch_files):
    system, files = arch_files
    assert sorted(files) == sorted(EXPECTED[system])
    for target, cpu in EXPECTED[system].items():
        lines = files[target]["arch"].splitlines()
        assert files[target]["compiler"] == "cce@=15.0.1"
        assert f"CXXOPTS = -O3 -target-cpu={cpu}" in lines, (target, lines)
        assert f"COPTS = -O3 -target-cpu={cpu}" in lines, (target, lines)


def test_the_flags_reach_the_craype_drivers(arch_files):
    """-target-cpu= is a craype driver option: the arch file must call cc/CC of craype."""
    _, files = arch_files
    for target, f in files.items():
        lines = f["arch"].splitlines()
        assert f"CXX = {CRAYPE_DRIVERS}CC -std=c++11" in lines, (target, lines)
        assert f"CC = {CRAYPE_DRIVERS}cc" in lines, (target, lines)


def test_the_two_builds_of_a_system_differ(arch_files):
    _, files = arch_files
    assert len({f["arch"] for f in files.values()}) == len(files) == 2
