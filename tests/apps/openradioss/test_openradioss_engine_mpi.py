"""The OpenRadioss engine against the MPI of its spec (SC'23 Table 6 runs it with cray-mpich and
Open MPI). The builtin recipe depends on Open MPI, and OpenRadioss' CMake links Open MPI's
libraries by name; the project's recipe takes the virtual mpi and, for an MPI of the MPICH ABI,
links its libraries instead. Checked on this machine's MPICH (a real external): the solve puts
MPICH under the engine, and the engine's CMake compiler files, staged from the pinned commit,
link -lmpifort -lmpi after the recipe's step before cmake."""

import json

import pytest
from testkit import ROOT, run, solved

SPEC = "openradioss-engine@20230701 +mpi ^mpich"
SCRIPT = """
import glob, json, sys
import spack.spec

spec = spack.spec.Spec.from_json(open(sys.argv[2]).read())
pkg = spec.package
pkg.link_the_mpi_of_the_spec()
files = glob.glob(pkg.stage.source_path + "/engine/CMake_Compilers/cmake_*.txt")
lines = [l.strip() for f in files for l in open(f) if "set (mpi_lib" in l]
json.dump({"deps": sorted(d.name for d in spec.dependencies()), "mpi_lib": lines}, open(sys.argv[1], "w"))
"""


@pytest.fixture(scope="module")
def engine(project, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("engine")
    (tmp / "engine.py").write_text(SCRIPT)
    stage = f"-c 'config:build_stage:[{tmp / 'stage'}]'"
    spec = solved(SPEC)
    run(f"spack {stage} patch {spec} && spack {stage} python {tmp / 'engine.py'} {tmp / 'out.json'} {spec}")
    return json.loads((tmp / "out.json").read_text())


def test_the_engine_depends_on_the_mpi_of_its_spec(engine):
    assert "mpich" in engine["deps"] and "openmpi" not in engine["deps"]


def test_its_cmake_links_the_mpich_abis_libraries(engine):
    # The line the builtin's mpi_libdir selects, in every compiler's file; no Open MPI name left.
    assert 'set (mpi_lib "-L${mpi_libdir} -lmpifort -lmpi")' in engine["mpi_lib"], engine["mpi_lib"]
    assert not any("mpi_mpifh" in line for line in engine["mpi_lib"]), engine["mpi_lib"]


def test_each_committed_lock_builds_the_engine_with_its_columns_mpi():
    roots = 0
    for lock in sorted((ROOT / "environments").glob("*/*/spack.lock")):
        doc = json.loads(lock.read_text())
        specs = doc["concrete_specs"]
        for root in doc["roots"]:
            spec = specs[root["hash"]]
            if spec["name"] != "openradioss":
                continue
            roots += 1
            asked = root["spec"].split("^")[1].split("@")[0].strip()
            (engine,) = [
                specs[d["hash"]] for d in spec["dependencies"] if specs[d["hash"]]["name"] == "openradioss-engine"
            ]
            linked = {specs[d["hash"]]["name"] for d in engine["dependencies"]}
            assert asked in linked, (lock, root["spec"], linked)
    assert roots
