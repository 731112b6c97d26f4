"""The namd recipe's "without ivdep" build (SC'23 Table 4: "the other one which does not use
ivdep"): NAMD 3.0's own source asserts "#pragma ivdep" on a few loops, and namd ~ivdep removes
those lines, so that no loop keeps the assertion whichever spelling the compiler reads; +ivdep
keeps them. NAMD is licensed (no source here), so the recipe's patch() runs on a tree with the
recipe's files holding the pragma forms NAMD 3.0 uses, beside pragmas that must stay."""

import json

import pytest
from testkit import run

# The forms NAMD 3.0 writes (flush left and indented), and pragmas ~ivdep must keep.
REMOVED = ["#pragma ivdep", "        #pragma ivdep"]
KEPT = [
    "#pragma GCC ivdep",
    "#pragma clang loop vectorize(assume_safety)",
    "#pragma vector aligned",
    "#pragma omp simd reduction(+:virial_xx)",
    "#ifndef __INTEL_LLVM_COMPILER",
    "    for (k=0; k<npairi; ++k) {  // ivdep in a comment",
]

SCRIPT = """
import json, os, sys
import spack.multimethod
import spack.repo
import spack.spec

out, root = sys.argv[1], sys.argv[2]
cls = spack.repo.PATH.get_pkg_class("namd")
mod = sys.modules[cls.__module__]
lines = json.loads(sys.argv[3])
result = {"files": mod.IVDEP_FILES}
for variant in ("~ivdep", "+ivdep"):
    tree = os.path.join(root, variant)
    for name in mod.IVDEP_FILES:
        os.makedirs(os.path.dirname(os.path.join(tree, name)), exist_ok=True)
        with open(os.path.join(tree, name), "w") as f:
            f.write("\\n".join(lines) + "\\n")
    os.chdir(tree)
    pkg = cls(spack.spec.Spec("namd@=3.0 " + variant))
    try:
        pkg.patch()
        ran = True
    except spack.multimethod.NoSuchMethodError:  # as Spack's do_patch: nothing to patch
        ran = False
    result[variant] = {"ran": ran, "files": {n: open(n).read().splitlines() for n in mod.IVDEP_FILES}}
with open(out, "w") as f:
    json.dump(result, f)
"""


@pytest.fixture(scope="module")
def result(project, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ivdep")
    script = tmp / "patch.py"
    script.write_text(SCRIPT)
    lines = json.dumps(REMOVED + KEPT)
    run(f"spack python {script} {tmp / 'out.json'} {tmp} '{lines}'")
    return json.loads((tmp / "out.json").read_text())


def test_without_ivdep_no_namd_pragma_ivdep_is_left_and_the_rest_is_kept(result):
    # The files of NAMD 3.0 whose "#pragma ivdep" a non-KNL, non-avxtiles build compiles.
    assert sorted(result["files"]) == [
        "src/ComputeNonbondedBase2.h",
        "src/ComputeNonbondedInl.h",
        "src/ComputePme.C",
        "src/Patch.C",
    ]
    without = result["~ivdep"]
    assert without["ran"]
    for name, lines in without["files"].items():
        assert not [line for line in lines if line.strip() == "#pragma ivdep"], name
        assert lines[: len(REMOVED)] == [
            "// #pragma ivdep removed (hpcaas-bench ~ivdep)",
            "        // #pragma ivdep removed (hpcaas-bench ~ivdep)",
        ]
        assert lines[len(REMOVED) :] == KEPT, name


def test_with_ivdep_namd_pragmas_stay(result):
    with_ = result["+ivdep"]
    assert not with_["ran"]
    for lines in with_["files"].values():
        assert lines == REMOVED + KEPT
