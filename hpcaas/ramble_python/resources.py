"""What each experiment of a rendered workspace asks of the system, as Ramble expands it (a
program for `ramble -D <workspace> python`, run by hpcaas/needs.py): {experiment: {n_nodes,
n_ranks, n_threads}} as JSON in the file given."""

import json
import sys

import ramble.software_environments
import ramble.workspace

ws = ramble.workspace.active_workspace()
ws.software_environments = ramble.software_environments.SoftwareEnvironments(ws)
out = {}
for name, app, _ in ws.build_experiment_set().all_experiments():
    out[name] = {v: app.expander.expand_var_name(v) for v in ("n_nodes", "n_ranks", "n_threads")}
with open(sys.argv[1], "w") as f:
    json.dump(out, f)
