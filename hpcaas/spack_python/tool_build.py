"""A tool's environment (environments/<tool>): its root if installed, and the seconds Spack spent
building it and every dependency it built, as JSON on stdout (a program for `spack -e <env>
python`, run by hpcaas/catalog.py); {} when not installed."""

import json
import os
import sys

import spack.environment as ev
import spack.store

env = ev.active_environment()
out = {}
installed = [s for user in env.user_specs for s in spack.store.STORE.db.query(user, installed=True)]
for spec in installed:
    total = 0.0
    for dep in spec.traverse():
        times = dep.prefix.join(".spack").join("install_times.json") if not dep.external else None
        if times and os.path.exists(times):
            with open(times) as f:
                total += json.load(f)["total"]
    out = {"version": str(spec.version), "build_s": round(total)}
json.dump(out, sys.stdout)
