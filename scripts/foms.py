"""make foms: the FOMs a Ramble application extracts from any log file, by Ramble itself.

Run under Ramble's interpreter (`ramble python scripts/foms.py APP LOG [WORKLOAD] [VAR=VALUE...]`;
VAR=VALUE gives the run's own variables, e.g. n_ranks=2, to criteria that compare with them;
`--batch CASES.json OUT.json` does many logs in one Ramble session). It makes a throwaway
workspace with one experiment per (log, workload), sets it up with --dry-run (no software),
puts each log wherever the application's FOMs and success criteria read from, marks the
experiments run, and lets `ramble workspace analyze` extract. Prints `<fom>\t<value>\t<units>` per FOM,
context values first (`<context>=<value> `). Exit 1 when no FOM matched or the success
criterion failed, 2 on bad arguments.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import ramble.repository
import ramble.workspace

import ramble.paths

RAMBLE = os.path.join(ramble.paths.prefix, "bin", "ramble")
# `ramble python FILE` runs FILE without __file__; argv[0] is FILE.
THIS = os.path.abspath(sys.argv[0])


def fail(msg, code=2):
    print(f"make foms: {msg}", file=sys.stderr)
    sys.exit(code)


def workspace_config(cases, packages):
    """One experiment per (case, workload), named foms-<case>-<workload>, under its application."""
    apps = {}
    for i, case in enumerate(cases):
        for w in case["workloads"]:
            variables = {"n_ranks": "1", **case["vars"]}
            apps.setdefault(case["app"], {}).setdefault(w, []).append(
                f"""
            foms-{i}-{w}:
              variables:
""" + "".join(f"                {k}: {json.dumps(str(v))}\n" for k, v in variables.items()))
    text = "".join(
        f"\n    {app}:\n      workloads:" + "".join(
            f"\n        {w}:\n          experiments:" + "".join(exps) for w, exps in workloads.items())
        for app, workloads in apps.items())
    # Without a package manager, Ramble wants each required package's install path; the run
    # never happens, so any path will do.
    paths = "".join(f"    {p}_path: /nonexistent/{p}\n" for p in sorted(packages))
    return f"""ramble:
  variables:
    mpi_command: ''
    batch_submit: '{{execute_experiment}}'
    processes_per_node: '1'
    n_nodes: '1'
{paths}  applications:{text}
"""


def ramble_cli(*args):
    proc = subprocess.run([sys.executable, RAMBLE, *args], capture_output=True, text=True)
    if proc.returncode != 0:
        fail(f"ramble {' '.join(args)} failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}", 2)
    return proc


def place(log_map):
    """In the active workspace: copy each experiment's log (LOG_MAP: JSON of experiment name ->
    log) to every file the analysis reads, mark runs complete."""
    with open(log_map) as f:
        logs = json.load(f)
    ws = ramble.workspace.active_workspace()
    for _, app_inst, _ in ws.build_experiment_set().all_experiments():
        if app_inst.is_template or app_inst.repeats.is_repeat_base:
            continue
        app_inst.add_expand_vars(ws)  # as Ramble's pipelines do before each phase
        log = logs[app_inst.expander.expand_var_name(app_inst.keywords.experiment_name)]
        files, _, _ = app_inst._analysis_dicts(ws.success_list)
        paths = set(files) | {app_inst.expander.expand_var(c.file)
                              for c in ws.success_list.all_criteria() if c.file}
        for path in paths:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            shutil.copyfile(log, path)
        run_dir = app_inst.expander.expand_var_name(app_inst.keywords.experiment_run_dir)
        with open(os.path.join(run_dir, app_inst._status_file_name), "w") as f:
            json.dump({app_inst.keywords.experiment_status: "COMPLETE"}, f)


def context_labeller(app_cls):
    """Turn a context's formatted name back into `<field>=<value>` using its output_format
    (e.g. 'Message Size: 8' from 'Message Size: {msg_size}' -> 'msg_size=8')."""
    patterns = []
    for def_name, conf in app_cls.figure_of_merit_contexts.items():
        fmt = conf["output_format"]
        parts = re.split(r"\{(\w+)\}", fmt)
        regex = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.*?)" for i, p in enumerate(parts))
        patterns.append((def_name, re.compile(regex + "$"), parts[1::2]))

    def label(name):
        for def_name, regex, fields in patterns:
            m = regex.match(name)
            if m:
                return " ".join(f"{f}={m.group(f)}" for f in fields) if fields else f"{def_name}={name}"
        return f"context={name}"

    return label


def app_class(app):
    try:
        return ramble.repository.paths[ramble.repository.ObjectTypes.applications].get_obj_class(app)
    except Exception:
        fail(f"APP: no Ramble application named '{app}' (see: ramble list)")


def checked(case):
    """A case {app, log, [workload], [vars]} with its workloads resolved; exit 2 on bad input."""
    app, log = case["app"], os.path.abspath(case["log"])
    if not os.path.isfile(log):
        fail(f"{case['log']}: LOG: no such file (give the path of an application's output)")
    app_cls = app_class(app)
    workloads = [case["workload"]] if case.get("workload") else sorted(app_cls.workloads)
    unknown = [w for w in workloads if w not in app_cls.workloads]
    if unknown:
        fail(f"WORKLOAD: '{unknown[0]}' is not a workload of {app} ({', '.join(sorted(app_cls.workloads))})")
    return {"app": app, "log": log, "workloads": workloads, "vars": case.get("vars") or {}}


def extract(cases):
    """Ramble's FOMs and statuses for each case, in one throwaway workspace: a list of
    {"foms": [[context label or "", name, value, units], ...], "statuses": [...]}."""
    cases = [checked(c) for c in cases]
    packages = {p for c in cases for p in app_class(c["app"]).required_packages}
    logs = {f"foms-{i}-{w}": c["log"] for i, c in enumerate(cases) for w in c["workloads"]}
    tmp = tempfile.mkdtemp(prefix="foms-")
    try:
        os.makedirs(os.path.join(tmp, "configs"))
        with open(os.path.join(tmp, "configs", "ramble.yaml"), "w") as f:
            f.write(workspace_config(cases, packages))
        with open(os.path.join(tmp, "logs.json"), "w") as f:
            json.dump(logs, f)
        ramble_cli("-D", tmp, "workspace", "setup", "--dry-run")
        # Put each log where its experiment's FOMs and criteria look, inside the workspace.
        ramble_cli("-D", tmp, "python", THIS, "--place", os.path.join(tmp, "logs.json"))
        ramble_cli("-D", tmp, "workspace", "analyze", "-f", "json")
        with open(os.path.join(tmp, "results.latest.json")) as f:
            results = json.load(f)
    finally:
        os.environ.get("FOMS_KEEP") or shutil.rmtree(tmp, ignore_errors=True)

    out = [{"foms": [], "statuses": []} for _ in cases]
    labels = {}
    for exp in results.get("experiments", []):
        i = int(exp["experiment_name"].split("-")[1])
        app = cases[i]["app"]
        label = labels.setdefault(app, context_labeller(app_class(app)))
        out[i]["statuses"].append(exp.get("RAMBLE_STATUS"))
        for context in exp.get("CONTEXTS", []):
            prefix = "" if context["name"] == "null" else label(context["name"])
            for fom in context["foms"]:
                out[i]["foms"].append([prefix, fom["name"], fom["value"], fom["units"]])
    return out


def main(argv):
    if argv[:1] == ["--place"]:
        return place(argv[1])
    if argv[:1] == ["--batch"]:
        # --batch CASES.json OUT.json: many logs in one workspace (one Ramble session, not one
        # per log); CASES is a list of {app, log, [workload], [vars]}, OUT gets extract()'s list.
        with open(argv[1]) as f:
            out = extract(json.load(f))
        with open(argv[2], "w") as f:
            json.dump(out, f, indent=1)
        return
    # Variables of the run that made the log (e.g. n_ranks=2), for criteria that depend on them.
    variables = dict(a.split("=", 1) for a in argv if "=" in a)
    argv = [a for a in argv if "=" not in a]
    if len(argv) not in (2, 3):
        fail("usage: make foms APP=<ramble application> LOG=<file> [WORKLOAD=<w>] [VARS='n_ranks=2 ...']")
    case = {"app": argv[0], "log": argv[1], "workload": argv[2] if len(argv) == 3 else None,
            "vars": variables}
    result = extract([case])[0]
    for prefix, name, value, units in result["foms"]:
        print(f"{prefix + ' ' if prefix else ''}{name}\t{value}\t{units}")
    if not result["foms"]:
        fail(f"no figure of merit of {case['app']} matched in {case['log']}", 1)
    if "SUCCESS" not in result["statuses"]:
        statuses = ", ".join(map(str, result["statuses"]))
        fail(f"{case['log']} does not meet {case['app']}'s success criteria (status {statuses})", 1)


if __name__ == "__main__":
    main(sys.argv[1:])
