"""The catalog on this machine: `spack spec` concretizes every application's spec (as the
catalog builds it: the application's own spec, with Open MPI where it is an MPI code Spack
builds) for the `local` system (its compiler, Open MPI and target), slow-tier and licensed
applications included, and `ramble info` lists every application with its workloads and FOMs.

Each `spack spec` takes 20-60 s, so its output is kept under $HPCAAS_CACHE/spec/<key>/, the key
being the hash of local's Spack inputs (hpcaas.spack_inputs); unchanged inputs reuse it."""

import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from testkit import ROOT, local_facts, run

from hpcaas.spack_inputs import inputs_hash

APPS = sorted(p.parent.name for p in (ROOT / "ramble-repo/applications").glob("*/application.py"))


def _key():
    return inputs_hash("local")[:24]


def _specs() -> list:
    """The spec of each application (hpcaas.catalog.entries: derived from ramble-repo/)."""
    from hpcaas import catalog

    return [
        e["spec"] + (" ^openmpi" if e["mpi"] and e["built_by"] == "spack" else "") for e in catalog.entries("local")
    ]


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
                return proc.returncode, proc.stderr
            out.write_text(proc.stdout)
        return 0, out.read_text()

    wanted = _specs()
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:  # a solve uses one core
        return dict(zip(wanted, pool.map(one, wanted)))


def test_every_application_concretizes_for_local(specs):
    failures = [f"{spec}: {why}" for spec, (rc, text) in specs.items() for why in _wrong(rc, text, spec)]
    assert specs and not failures, "\n".join(failures)


def _wrong(rc, text, spec) -> list:
    """What is wrong with a solve: it failed, or its root is not the application at its pinned
    version with its variants, built with local's compiler for local's target."""
    if rc != 0:
        return [f"spack spec failed:\n{text[-2000:]}"]
    first = next(
        line
        for line in text.splitlines()
        if re.match(r"^\[[ e+^-]\]|^ - |^\[e\]", line) or re.match(r"^\s*-?\s*\w", line) and "@" in line
    )
    local = local_facts()
    root, *variants = spec.split(" ^")[0].replace("@=", "@").split()
    wants = [root, local["compiler"], f"arch=linux-{local['os']}-{local['target']}", *variants]
    return [f"no {w} in the root: {first}" for w in wants if w not in first]


# `ramble info APP` for each APP in one Ramble process (Ramble's own command, as the CLI runs
# it): one process per application spent ~2 s each starting Ramble.
_INFO = """
import sys
from ramble.main import RambleCommand

info = RambleCommand("info")
for app in sys.argv[1:]:
    print(f"\\0{app}\\0" + info(app))
"""


def test_ramble_info_lists_every_application_with_workloads_and_foms(project, tmp_path):
    listed = run("ramble list").stdout.split()
    assert set(APPS) <= set(listed), sorted(set(APPS) - set(listed))
    (tmp_path / "info.py").write_text(_INFO)
    parts = run(f"ramble python {tmp_path}/info.py {' '.join(APPS)}").stdout.split("\0")[1:]
    infos = dict(zip(parts[::2], parts[1::2]))
    assert sorted(infos) == APPS, sorted(infos)
    for app, info in infos.items():
        sections = dict(re.findall(r"^(\w+):\n((?:    .*\n|\n)*)", info, re.M))
        for section in ("workloads", "figures_of_merit", "success_criteria"):
            assert sections.get(section, "").strip(), f"{app}: ramble info lists no {section}"
