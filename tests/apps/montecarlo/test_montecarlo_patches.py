"""The montecarlo recipe's patches applied by Spack to FinanceBench's real source tree (the pinned
commit, fetched as Spack fetches it), read back from the staged and patched source."""

import pytest
from testkit import catalog_spec, staged_source


def patched_source(spec, tmp_path):
    """The patched Monte-Carlo/OpenMP sources of SPEC, by file name."""
    src = staged_source(spec, tmp_path) / "Monte-Carlo/OpenMP"
    return {p.name: p.read_text() for p in src.iterdir() if p.suffix in (".c", ".h")}


@pytest.fixture(scope="module")
def with_rand_r(project, tmp_path_factory):
    return patched_source(catalog_spec("montecarlo"), tmp_path_factory.mktemp("stage"))


@pytest.fixture(scope="module")
def without_rand_r(project, tmp_path_factory):
    return patched_source("montecarlo ~rand_r", tmp_path_factory.mktemp("stage"))


@pytest.mark.parametrize("variant", ["with_rand_r", "without_rand_r"])
def test_threads_samples_patch_applied(request, variant):
    src = request.getfixturevalue(variant)
    engine, kernels = src["monteCarloEngine.c"], src["monteCarloKernelsCpu.c"]
    # Samples from the command line, threads from OMP_NUM_THREADS, printed; no key press at the end.
    assert "int numSamples = (argc > 1) ? atoi(argv[1]) : NUM_SAMPLES;" in engine
    assert 'printf("Number of OpenMP threads: %d\\n\\n", omp_get_max_threads());' in engine
    assert "getchar()" not in engine
    assert "num_threads(8)" not in kernels


def test_rand_r_patch_applied_only_with_variant(with_rand_r, without_rand_r):
    # The kernel's draw: upstream's shared rand(), the patch's per-thread rand_r(seed).
    upstream, patched = "((float)rand()) / ((float)RAND_MAX)", "((float)rand_r(seed)) / ((float)RAND_MAX)"
    kernels, kernels_upstream = with_rand_r["monteCarloKernelsCpu.c"], without_rand_r["monteCarloKernelsCpu.c"]
    assert patched in kernels and upstream not in kernels
    assert "unsigned int* seed);" in with_rand_r["monteCarloKernelsCpu.h"]
    assert upstream in kernels_upstream and "rand_r" not in kernels_upstream
