"""The suite's sizes for a node, from its system's facts (make validate passes them as Ramble
variables of the run).

HPL approaches R_peak once its O(N^3) update dwarfs the O(N^2) panel work, which takes a large N;
the memory caps N, and so does the time a validation may take. So N is the smaller of
    the time bound:    2/3 N^3 flops in HPL_SECONDS (per scale) at the node's R_peak
    the memory bound:  N^2 x 8 bytes in MEMORY_SHARE of the node's memory
rounded down to a multiple of the block size NB, on a P x Q grid of the node's ranks (one per
core), P <= Q and as square as the count allows. HPCC (for DGEMM) runs alongside: its DGEMM
multiplies matrices of N / sqrt(3 x ranks) per rank (HPCC gives three of them the memory HPL's N
uses per rank), so N = DGEMM_N x sqrt(3 x ranks) keeps each rank's DGEMM near the core's peak,
within the same memory bound. STREAM's arrays follow the last-level cache in the study itself.
"""

import math

from analysis.errors import InputError
from hpcaas import systems

# The HPL run's length at R_peak, per scale (small: the tests' and the sensitivity bench's).
HPL_SECONDS = {"paper": 30.0, "small": 10.0}
MEMORY_SHARE = 0.5
NB = 192
DGEMM_N = 2500
FIO_SIZE = "1G"
# STREAM's three arrays of this many bytes or more need the medium code model on x86_64.
STATIC_LIMIT = 2 * 2**30


def grid(ranks: int) -> tuple:
    """(P, Q): P x Q = ranks, P <= Q, P the largest divisor not above sqrt(ranks)."""
    p = max(d for d in range(1, math.isqrt(ranks) + 1) if ranks % d == 0)
    return p, ranks // p


def _round(n: float) -> int:
    return max(NB, int(n) // NB * NB)


def sizes(doc: dict, scale: str = "paper") -> dict:
    """{Ramble variable: value} for the suite on a node of the system `doc` at a scale."""
    cores = systems.cores_per_node(doc)
    if not systems.value(doc, "memory_per_node_gib"):
        raise InputError(
            f"configs/{doc['name']}/system.yaml", "memory_per_node_gib", "a value: HPL's N is sized from it"
        )
    memory = systems.value(doc, "memory_per_node_gib") * 2**30
    rpeak = systems.rpeak_per_node_gflops(doc, gpu="none") * 1e9
    n_memory = math.sqrt(MEMORY_SHARE * memory / 8)
    hpl_n = _round(min((1.5 * HPL_SECONDS[scale] * rpeak) ** (1 / 3), n_memory))
    p, q = grid(cores)
    out = {
        "hpl_n": str(hpl_n),
        "hpl_nb": str(NB),
        "hpl_p": str(p),
        "hpl_q": str(q),
        "hpcc_n": str(_round(min(DGEMM_N * math.sqrt(3 * cores), n_memory))),
        "fio_size": FIO_SIZE,
    }
    llc = (doc.get("last_level_cache_mib") or {}).get("value")
    arch = systems.value(doc, "processor.architecture")
    if llc and arch == "x86_64" and 3 * 4 * llc * 2**20 >= STATIC_LIMIT:
        out["stream_flags"] = "cflags=-mcmodel=medium"
    return out


def explain(doc: dict, chosen: dict, scale: str = "paper") -> str:
    """One sentence on the sizes, for the report."""
    rpeak = systems.rpeak_per_node_gflops(doc, gpu="none")
    memory = systems.value(doc, "memory_per_node_gib")
    return (
        f"HPL N={chosen['hpl_n']} (NB={chosen['hpl_nb']}, {chosen['hpl_p']} x {chosen['hpl_q']}): "
        f"{HPL_SECONDS[scale]:g} s at the node's R_peak of {rpeak:.4g} GFLOP/s, at most {MEMORY_SHARE:.0%} of its "
        f"{memory:g} GiB; HPCC N={chosen['hpcc_n']} (DGEMM on {DGEMM_N} x {DGEMM_N} per rank); "
        f"fio {chosen['fio_size']} per node, direct I/O"
    )
