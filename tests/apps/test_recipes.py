"""The catalog on this machine: `spack spec` concretizes every application recipe with the
variants the studies sweep, for the `local` system (its gcc, Open MPI and target), and
`ramble info` lists every application with its workloads and FOMs.

Each `spack spec` takes 20-60 s, so its output is kept under $HPCAAS_CACHE/spec/<key>/, the key
being the hash of local's Spack inputs (hpcaas.spack_inputs); unchanged inputs reuse it."""

import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from testkit import ROOT, local_facts, run

from hpcaas.spack_inputs import inputs_hash

# (spec as a study writes it, what its root must show)
SPECS = [
    ("montecarlo +rand_r", "montecarlo@2016.07.25", "+rand_r"),
    ("montecarlo ~rand_r", "montecarlo@2016.07.25", "~rand_r"),
    ("namd@3.0 +ivdep ^charmpp backend=mpi ^openmpi", "namd@3.0", "+ivdep"),
    ("namd@3.0 ~ivdep ^charmpp backend=mpi ^openmpi", "namd@3.0", "~ivdep"),
    ("openradioss %gcc", "openradioss@20230701", ""),
    ("openfoam", "openfoam@1912", ""),  # Debian's, an external here
    ("mpas-atmosphere opt=O3 ^openmpi", "mpas-atmosphere@", "opt=O3"),
    ("mpas-atmosphere opt=Ofast ^openmpi", "mpas-atmosphere@", "opt=Ofast"),
    ("osu-micro-benchmarks ^openmpi", "osu-micro-benchmarks@", ""),
    ("intel-mpi-benchmarks ^openmpi", "intel-mpi-benchmarks@", ""),
    ("npb ^openmpi", "npb@", ""),
    ("stream", "stream@", ""),
    ("hpcc@1.5.0 ^openmpi", "hpcc@1.5.0", ""),
    ("hpcg ^openmpi", "hpcg@", ""),
    ("hpl ^openmpi", "hpl@", ""),
    ("gromacs@2022.5 ^openmpi", "gromacs@2022.5", ""),  # built from source (the catalog's slow tier)
    ("lammps@20220106", "lammps@20220106", ""),  # built from source (the catalog's slow tier)
    ("cp2k", "cp2k@2023.1", ""),  # Debian's
    ("opensbli ^openmpi", "opensbli@2023.02.02", ""),
    ("nektar ^openmpi", "nektar@", "+ins_solver"),
    ("amber ^openmpi", "amber@", ""),
]
APPS = sorted(p.parent.name for p in (ROOT / "ramble-repo/applications").glob("*/application.py"))


def _key():
    return inputs_hash("local")[:24]


@pytest.fixture(scope="module")
def specs(project):
    cache = Path(os.environ.get("HPCAAS_CACHE", Path.home() / ".cache/hpcaas-bench")) / "spec" / _key()
    cache.mkdir(parents=True, exist_ok=True)

    def one(spec):
        # + and ~ spelled out: "montecarlo +rand_r" and "montecarlo ~rand_r" are two files.
        out = cache / (re.sub(r"[^A-Za-z0-9]+", "_", spec.replace("+", "with_").replace("~", "without_")) + ".txt")
        if not out.exists():
            proc = run(f"spack spec -I '{spec}'", check=False, timeout=900)
            if proc.returncode != 0:
                return spec, proc.returncode, proc.stderr
            out.write_text(proc.stdout)
        return spec, 0, out.read_text()

    with ThreadPoolExecutor(2) as pool:  # two solves at a time: this machine has two cores
        return {spec: (rc, text) for spec, rc, text in pool.map(one, [s for s, _, _ in SPECS])}


@pytest.mark.parametrize("spec,root,variant", SPECS, ids=[s for s, _, _ in SPECS])
def test_recipe_concretizes_for_local(specs, spec, root, variant):
    rc, text = specs[spec]
    assert rc == 0, f"spack spec {spec} failed:\n{text[-2000:]}"
    first = next(
        line
        for line in text.splitlines()
        if re.match(r"^\[[ e+^-]\]|^ - |^\[e\]", line) or re.match(r"^\s*-?\s*\w", line) and "@" in line
    )
    local = local_facts()
    assert root in first and local["compiler"] in first, first
    assert f"arch=linux-{local['os']}-{local['target']}" in first, first
    assert variant in first, first


def test_ramble_info_lists_every_application_with_workloads_and_foms(project):
    listed = run("ramble list").stdout.split()
    assert set(APPS) <= set(listed), sorted(set(APPS) - set(listed))
    for app in APPS:
        info = run(f"ramble info {app}").stdout
        sections = dict(re.findall(r"^(\w+):\n((?:    .*\n|\n)*)", info, re.M))
        for section in ("workloads", "figures_of_merit", "success_criteria"):
            assert sections.get(section, "").strip(), f"{app}: ramble info lists no {section}"
