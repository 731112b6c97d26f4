"""hpcaas/validate/sizing.py: the suite's sizes follow from each system's facts: HPL's N from
the node's R_peak (the run's length) and memory (a share of it), on a P x Q grid of its cores;
HPCC's N from the DGEMM size per rank; nothing typed per system."""

import copy
import math

import pytest

from analysis.errors import InputError
from hpcaas import systems
from hpcaas.validate import sizing

SYSTEMS = systems.load_all()
SIZED = {n: d for n, d in SYSTEMS.items() if systems.value(d, "memory_per_node_gib")}


@pytest.mark.parametrize("ranks", [1, 2, 6, 7, 12, 96, 128, 144])
def test_grid_is_the_squarest_factorisation(ranks):
    p, q = sizing.grid(ranks)
    assert p * q == ranks and p <= q
    assert not any(ranks % d == 0 for d in range(p + 1, math.isqrt(ranks) + 1))


@pytest.mark.parametrize("name", sorted(SIZED))
@pytest.mark.parametrize("scale", sorted(sizing.HPL_SECONDS))
def test_hpl_fits_the_time_and_the_memory_of_a_node(name, scale):
    doc = SYSTEMS[name]
    got = sizing.sizes(doc, scale)
    n, nb = int(got["hpl_n"]), int(got["hpl_nb"])
    rpeak = systems.rpeak_per_node_gflops(doc, gpu="none") * 1e9
    memory = systems.value(doc, "memory_per_node_gib") * 2**30
    assert n % nb == 0
    assert 8 * n * n <= sizing.MEMORY_SHARE * memory or n == nb
    # At the node's peak the run lasts at most the scale's seconds, and one more block would not fit both bounds.
    assert 2 / 3 * n**3 / rpeak <= sizing.HPL_SECONDS[scale] or n == nb
    bigger = n + nb
    assert 2 / 3 * bigger**3 / rpeak > sizing.HPL_SECONDS[scale] or 8 * bigger**2 > sizing.MEMORY_SHARE * memory
    p, q = int(got["hpl_p"]), int(got["hpl_q"])
    assert p * q == systems.cores_per_node(doc)


@pytest.mark.parametrize("name", sorted(SIZED))
def test_hpcc_gives_each_rank_the_dgemm_size(name):
    doc = SYSTEMS[name]
    got = sizing.sizes(doc)
    n, ranks = int(got["hpcc_n"]), systems.cores_per_node(doc)
    memory = systems.value(doc, "memory_per_node_gib") * 2**30
    per_rank = n / math.sqrt(3 * ranks)  # HPCC's DGEMM order on each rank
    assert per_rank <= sizing.DGEMM_N or 8 * n * n <= sizing.MEMORY_SHARE * memory
    assert (
        per_rank > sizing.DGEMM_N - sizing.NB / math.sqrt(3 * ranks)
        or 8 * (n + sizing.NB) ** 2 > sizing.MEMORY_SHARE * memory
    )


def test_a_node_of_unknown_memory_is_not_sized():
    doc = copy.deepcopy(SYSTEMS["local-slurm"])
    doc["memory_per_node_gib"]["value"] = None
    with pytest.raises(InputError, match="local-slurm/system.yaml: memory_per_node_gib"):
        sizing.sizes(doc)


def test_large_stream_arrays_get_the_medium_code_model():
    """STREAM's three arrays of 4 x the last-level cache each pass 2 GiB of static data on a node
    with a cache of 171 MiB or more (a Genoa-X): its x86_64 build needs -mcmodel=medium."""
    doc = copy.deepcopy(SYSTEMS["local-slurm"])
    limit_mib = sizing.STATIC_LIMIT / 12 / 2**20
    doc["last_level_cache_mib"]["value"] = math.floor(limit_mib)
    assert "stream_flags" not in sizing.sizes(doc)
    doc["last_level_cache_mib"]["value"] = math.ceil(limit_mib)
    assert sizing.sizes(doc)["stream_flags"] == "cflags=-mcmodel=medium"
    doc["processor"]["architecture"]["value"] = "aarch64"
    assert "stream_flags" not in sizing.sizes(doc)
