"""Each application of our Ramble repository, its catalog workload and its specs, as JSON in the
file given (a program for `ramble python`, run by hpcaas/catalog.py)."""

import json
import sys

import ramble.repository as r

repo = next(x for x in r.paths[r.ObjectTypes.applications].repos if x.namespace == "hpcaas")
out = {}
for name in repo.all_object_names():
    cls = repo.get_obj_class(name)
    tagged = [w for w, wl in cls.workloads.items() if "catalog" in wl.tags]
    wl = cls.workloads[tagged[0]] if tagged else None
    execs = [cls.executables[e] for e in (wl.executables if wl else []) if e in cls.executables]
    defaults = {v: str(var.default) for v, var in (wl.variables.items() if wl else [])}
    out[name] = {
        "workloads": tagged,
        "mpi": any(e.mpi for e in execs),
        "defaults": defaults,
        "ranks": [str(n) for n in getattr(cls, "catalog_ranks", ["1", "2"])],
        "specs": {n: s["pkg_spec"] for n, s in cls.software_specs.items()},
        "tags": list(getattr(cls, "tags", []) or []),
    }
with open(sys.argv[1], "w") as f:
    json.dump(out, f)
