"""The catalog on this machine: Spack solves every application's spec (as the catalog builds
it: the application's own spec, with Open MPI where it is an MPI code Spack builds) for the
`local` system (its compiler, Open MPI and target), slow-tier and licensed applications
included, and `ramble info` lists every application with its workloads and FOMs. The solves
are testkit.solved's, kept in its cache."""

import os
import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from testkit import ROOT, catalog_spec, local_facts, run, solved

APPS = sorted(p.parent.name for p in (ROOT / "ramble-repo/applications").glob("*/application.py"))


def _wanted(spec) -> str:
    """SPEC with local's compiler and target on its root: what the solve must satisfy."""
    local = local_facts()
    root, *deps = spec.split(" ^")
    return " ^".join([f"{root} {local['compiler']} arch=linux-{local['os']}-{local['target']}", *deps])


# Spack's own test of each solve (Spec.satisfies), in one Spack process: a line per solve that
# does not satisfy what it must.
_CHECK = """
import sys
import spack.spec

for line in open(sys.argv[1]):
    path, wanted = line.rstrip("\\n").split("\\t")
    with open(path) as f:
        root = spack.spec.Spec.from_json(f.read())
    if not root.satisfies(wanted):
        print(f"{wanted}: solved as {root.format('{name}{@version}{%compiler}{variants} {arch=architecture}')}")
"""


def test_every_application_concretizes_for_local(project, tmp_path):
    def one(spec):
        try:
            return spec, solved(spec, timeout=900), None
        except pytest.fail.Exception as failed:
            return spec, None, f"{spec}: {failed}"

    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:  # a solve uses one core
        results = list(pool.map(one, map(catalog_spec, APPS)))
    failures = [why for _, _, why in results if why]
    (tmp_path / "check.py").write_text(_CHECK)
    (tmp_path / "solved.tsv").write_text("".join(f"{path}\t{_wanted(spec)}\n" for spec, path, _ in results if path))
    failures += run(f"spack python {tmp_path}/check.py {tmp_path}/solved.tsv").stdout.splitlines()
    assert results and not failures, "\n".join(failures)


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
