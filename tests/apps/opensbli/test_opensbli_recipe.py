"""The opensbli recipe's patch on the real source: Spack fetches the pinned commit of
hpc-uk/archer-benchmarks (apps/OpenSBLI/source only) and applies input-buffers.patch, whose
buffers then hold "ss"/"va"/"ws" and "False" with their terminating NUL."""

from testkit import catalog_spec, staged_source

PATCHED = "    char type_of_simulation[3], HDF5op[6];"
UNPATCHED = "    char type_of_simulation[2], HDF5op[4];"


def test_input_buffers_patch_is_applied_to_the_pinned_source(project, tmp_path):
    source = staged_source(catalog_spec("opensbli"), tmp_path, timeout=1800)
    program = (source / "apps/OpenSBLI/source/Benchmark/OpenSBLI_ops.cpp").read_text().splitlines()
    assert PATCHED in program
    assert UNPATCHED not in program
    # The line the patch rewrites is the one that declares the buffers fscanf fills from "input".
    assert any('fscanf(inputfile, "%s %d %d %d %s", type_of_simulation' in line for line in program)
