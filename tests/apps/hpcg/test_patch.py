"""HPCG's recipe applies the builtin's GCC 9+ OpenMP fix (e9e0b7e, served from mirror/) to the
pinned release sources: `spack patch` (into a private build stage) fetches each version's commit
and applies the patch, and the staged ComputeResidual.cpp has the patched pragma (n shared with
the OpenMP team)."""

import pytest
from testkit import run, solved

PATCHED = "#pragma omp parallel default(none) shared(n, local_residual, v1v, v2v)"
UNPATCHED = "#pragma omp parallel default(none) shared(local_residual, v1v, v2v)"


@pytest.mark.parametrize("version", ["3.1", "3.0"])
def test_openmp_patch_applied_to_staged_source(project, tmp_path, version):
    proc = run(
        f"spack -c 'config:build_stage:[{tmp_path}]' patch {solved(f'hpcg@{version} %gcc ^openmpi')}", timeout=900
    )
    assert "Applied patch" in proc.stdout + proc.stderr, proc.stdout[-2000:] + proc.stderr[-2000:]
    (source,) = tmp_path.glob("**/spack-stage-hpcg-*/spack-src/src/ComputeResidual.cpp")
    text = source.read_text()
    assert PATCHED in text and UNPATCHED not in text
