"""GROMACS' SIMD kernels as a study asks (spack-repo's gromacs: simd=...), not only as the target
implies: PASC'19 Table 8 builds the Dell EMC nodes with -xCORE-AVX512, and Spack knows their
target for Intel 17.4 only as haswell, whose kernels the builtin recipe makes AVX2_256. The study's
spec says simd=AVX_512 (its dry-run test checks the spec); this test checks what the recipe then
tells GROMACS' CMake, on a spec concretized for this machine (its real externals), beside what
the builtin recipe would tell it for the same spec."""

import json

import pytest
from testkit import run, solved

SCRIPT = """
import json, sys
import spack.build_environment
import spack.builder
import spack.spec
from spack.pkg.builtin.gromacs import CMakeBuilder as Builtin

spec = spack.spec.Spec.from_json(open(sys.argv[2]).read())
spack.build_environment.setup_package(spec.package, dirty=False)  # what a build sets up first
builder = spack.builder.create(spec.package)
json.dump({"ours": builder.cmake_args(), "builtin": Builtin.cmake_args(builder)}, open(sys.argv[1], "w"))
"""


@pytest.fixture(scope="module")
def args(project, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("simd")
    (tmp / "simd.py").write_text(SCRIPT)
    spec = "gromacs@2022.5 +mpi simd=AVX_512"
    solution = solved(spec, config="-c concretizer:reuse:false")
    run(f"spack python {tmp / 'simd.py'} {tmp / 'out.json'} {solution}", timeout=1200)
    return json.loads((tmp / "out.json").read_text())


def simd(args):
    return [a for a in args if a.startswith("-DGMX_SIMD")]


def test_the_chosen_simd_is_the_only_one(args):
    assert simd(args["ours"]) == ["-DGMX_SIMD:STRING=AVX_512"]
    assert len(simd(args["builtin"])) == 1  # the builtin's, from this machine's target


def test_nothing_else_changes(args):
    assert [a for a in args["ours"] if a not in simd(args["ours"])] == [
        a for a in args["builtin"] if a not in simd(args["builtin"])
    ]
