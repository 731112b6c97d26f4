"""The optimised HPCGs PASC'19 ran (Section 6.1, "we used the optimised versions of HPCG"):
Arm's, built from its pinned public source by spack-repo's hpcg-for-arm, and Intel's, the site's
binary named by the code-less intel-optimized-hpcg. The FOMs of both result files are cases of
tests/apps/hpcg/cases.yaml (Arm's from a run of this build; Intel's from a site's)."""

import json

import yaml
from testkit import ROOT, run, solved

# The recipe's HPCG_OPTS for a solved spec (spack python: Spack's own package object).
_OPTIONS = """
import sys
import spack.spec

print(" ".join(spack.spec.Spec.from_json(open(sys.argv[1]).read()).package.options()))
"""


# A site's targets are not this machine's: solve as environments/ does (its concretizer settings).
SITE = "-c concretizer:targets:host_compatible:false -c concretizer:targets:granularity:generic"


def options(spec, system, tmp_path):
    (tmp_path / "options.py").write_text(_OPTIONS)
    return run(f"spack python {tmp_path}/options.py {solved(spec, system=system, config=SITE)}").stdout.split()


def test_arm_hpcg_builds_from_its_pinned_commit_here(project, tmp_path):
    """Built for this machine (its generic kernels: no NEON, SVE or ArmPL on x86), from the commit
    the recipe pins, with the contiguous arrays all of Arm's setup files use."""
    spec = solved("hpcg-for-arm ^openmpi")
    run(f"spack install --reuse -f {spec}", timeout=1800)
    found = json.loads(spec.read_text())["spec"]["nodes"][0]
    assert found["name"] == "hpcg-for-arm" and found["version"] == "2020.08.19"
    assert found["parameters"]["simd"] == "none" and found["parameters"]["armpl"] is False
    build_log = run(f"zcat $(spack location -i /{found['hash']})/.spack/spack-build-out.txt.gz").stdout
    assert "-DHPCG_CONTIGUOUS_ARRAYS" in build_log and "-o bin/xhpcg" in build_log


def test_the_apollo_70_build_uses_neon_and_armpl(project, tmp_path):
    """On the paper's Apollo 70 (its Spack config: Arm Clang 19.0.0, Open MPI 4.0.0, the site's
    ArmPL 19.0.0), the study's spec turns on ArmPL's SpMV, DDOT and WAXPBY and the NEON kernels."""
    manifest = ROOT / "environments/hpcg-scaling/hpe-apollo70-thunderx2-edr/spack.yaml"
    (spec,) = yaml.safe_load(manifest.read_text())["spack"]["specs"]
    assert spec.startswith("hpcg-for-arm@")
    opts = options(spec.replace("'", '"'), "hpe-apollo70-thunderx2-edr", tmp_path)
    assert opts == [
        "-DHPCG_CONTIGUOUS_ARRAYS",
        "-DHPCG_USE_DDOT_ARMPL",
        "-DHPCG_USE_WAXPBY_ARMPL",
        "-DHPCG_USE_ARMPL_SPMV",
        "-DHPCG_USE_NEON",
    ]
