"""make foms: the FOMs a Ramble application extracts from any log file, by Ramble itself.

Run under Ramble's interpreter (`ramble python scripts/foms.py APP LOG [WORKLOAD] [VAR=VALUE...]`;
VAR=VALUE gives the run's own variables, e.g. n_ranks=2, to criteria that compare with them). It makes a
throwaway workspace with one experiment per workload, sets it up with --dry-run (no software),
puts LOG wherever the application's FOMs and success criteria read from, marks the experiment
run, and lets `ramble workspace analyze` extract. Prints `<fom>\t<value>\t<units>` per FOM,
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


def workspace_config(app, workloads, packages, variables):
    experiments = "".join(
        f"""
        {w}:
          experiments:
            foms-{w}:
              variables:
                n_ranks: '1'
""" + "".join(f"                {k}: '{v}'\n" for k, v in variables.items()) for w in workloads)
    # Without a package manager, Ramble wants each required package's install path; the run
    # never happens, so any path will do.
    paths = "".join(f"    {p}_path: /nonexistent/{p}\n" for p in packages)
    return f"""ramble:
  variables:
    mpi_command: ''
    batch_submit: '{{execute_experiment}}'
    processes_per_node: '1'
    n_nodes: '1'
{paths}  applications:
    {app}:
      workloads:{experiments}
"""


def ramble_cli(*args):
    proc = subprocess.run([sys.executable, RAMBLE, *args], capture_output=True, text=True)
    if proc.returncode != 0:
        fail(f"ramble {' '.join(args)} failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}", 2)
    return proc


def place(log):
    """In the active workspace: copy LOG to every file the analysis reads, mark runs complete."""
    ws = ramble.workspace.active_workspace()
    for _, app_inst, _ in ws.build_experiment_set().all_experiments():
        if app_inst.is_template or app_inst.repeats.is_repeat_base:
            continue
        app_inst.add_expand_vars(ws)  # as Ramble's pipelines do before each phase
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


def main(argv):
    if argv[:1] == ["--place"]:
        return place(argv[1])
    # Variables of the run that made the log (e.g. n_ranks=2), for criteria that depend on them.
    variables = dict(a.split("=", 1) for a in argv if "=" in a)
    argv = [a for a in argv if "=" not in a]
    if len(argv) not in (2, 3):
        fail("usage: make foms APP=<ramble application> LOG=<file> [WORKLOAD=<w>] [VARS='n_ranks=2 ...']")
    app, log = argv[0], argv[1]
    if not os.path.isfile(log):
        fail(f"{log}: LOG: no such file (give the path of an application's output)")
    try:
        app_cls = ramble.repository.paths[ramble.repository.ObjectTypes.applications].get_obj_class(app)
    except Exception:
        fail(f"APP: no Ramble application named '{app}' (see: ramble list)")
    workloads = [argv[2]] if len(argv) == 3 else sorted(app_cls.workloads)
    unknown = [w for w in workloads if w not in app_cls.workloads]
    if unknown:
        fail(f"WORKLOAD: '{unknown[0]}' is not a workload of {app} ({', '.join(sorted(app_cls.workloads))})")

    tmp = tempfile.mkdtemp(prefix="foms-")
    try:
        os.makedirs(os.path.join(tmp, "configs"))
        with open(os.path.join(tmp, "configs", "ramble.yaml"), "w") as f:
            f.write(workspace_config(app, workloads, sorted(app_cls.required_packages), variables))
        ramble_cli("-D", tmp, "workspace", "setup", "--dry-run")

        # Put the log where each experiment's FOMs and criteria look, inside the workspace.
        ramble_cli("-D", tmp, "python", THIS, "--place", os.path.abspath(log))
        ramble_cli("-D", tmp, "workspace", "analyze", "-f", "json")
        with open(os.path.join(tmp, "results.latest.json")) as f:
            results = json.load(f)
    finally:
        os.environ.get("FOMS_KEEP") or shutil.rmtree(tmp, ignore_errors=True)

    printed, statuses = 0, []
    label = context_labeller(app_cls)
    for exp in results.get("experiments", []):
        statuses.append(exp.get("RAMBLE_STATUS"))
        for context in exp.get("CONTEXTS", []):
            prefix = "" if context["name"] == "null" else label(context["name"]) + " "
            for fom in context["foms"]:
                print(f"{prefix}{fom['name']}\t{fom['value']}\t{fom['units']}")
                printed += 1
    if not printed:
        fail(f"no figure of merit of {app} matched in {log}", 1)
    if "SUCCESS" not in statuses:
        fail(f"{log} does not meet {app}'s success criteria (status {', '.join(map(str, statuses))})", 1)


if __name__ == "__main__":
    main(sys.argv[1:])
