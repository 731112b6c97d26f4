"""The opensbli recipe's patch on the real source: Spack fetches the pinned commit of
hpc-uk/archer-benchmarks (apps/OpenSBLI/source only) and applies input-buffers.patch, whose
buffers then hold "ss"/"va"/"ws" and "False" with their terminating NUL."""

from testkit import catalog_spec, run, solved, staged_source

PATCHED = "    char type_of_simulation[3], HDF5op[6];"
UNPATCHED = "    char type_of_simulation[2], HDF5op[4];"


def test_input_buffers_patch_is_applied_to_the_pinned_source(project, tmp_path):
    source = staged_source(catalog_spec("opensbli"), tmp_path, timeout=1800)
    program = (source / "apps/OpenSBLI/source/Benchmark/OpenSBLI_ops.cpp").read_text().splitlines()
    assert PATCHED in program
    assert UNPATCHED not in program
    # The line the patch rewrites is the one that declares the buffers fscanf fills from "input".
    assert any('fscanf(inputfile, "%s %d %d %d %s", type_of_simulation' in line for line in program)


# The recipe's make line for the benchmark and what Spack's wrapper injects, for a solved spec.
_FLAGS = """
import sys
import spack.spec

spec = spack.spec.Spec.from_json(open(sys.argv[1]).read())
pkg = spec.package
print(repr(pkg.benchmark_flags()))
print(repr(pkg.flag_handler("cxxflags", spec.compiler_flags["cxxflags"])))
print(repr(pkg.flag_handler("cflags", spec.compiler_flags["cflags"])))
"""


def recipe_flags(spec, tmp_path):
    (tmp_path / "flags.py").write_text(_FLAGS)
    out = run(f"spack python {tmp_path}/flags.py {solved(spec)}").stdout.strip().splitlines()
    return [eval(line) for line in out[-3:]]  # the three reprs: str/None and two tuples


def test_cxxflags_replace_the_benchmarks_makefile_flags(project, tmp_path):
    """PASC'19 Table 8's OpenSBLI flags ('-O3 -ipo -restrict -fno-alias') are the benchmark's:
    the spec's cxxflags become its MPIFLAGS (with the defines its Makefile section needs) and the
    wrapper injects nothing, or the Makefile's own flags (-fp-model strict ...) would still apply
    after them; cflags still go through the wrapper (OPS' C library)."""
    root, deps = catalog_spec("opensbli").split(" ^", 1)
    bench, cxx, c = recipe_flags(f'{root} cxxflags="-O2 -g" cflags=-O1 ^{deps}', tmp_path)
    assert bench == "-O2 -g -DUNIX"  # local builds with gcc: the Makefile's gnu section
    assert cxx == (None, None, None)
    assert c == (["-O1"], None, None)


def test_without_cxxflags_the_gnu_section_gets_its_missing_optimisation(project, tmp_path):
    bench, cxx, _ = recipe_flags(catalog_spec("opensbli"), tmp_path)
    assert bench == "-O3 -fPIC -DUNIX -Wall"
    assert cxx == (None, None, None)
