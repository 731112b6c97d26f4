"""make foms: the FOMs a Ramble application extracts from any log file, by Ramble itself.

Run under Ramble's interpreter (`ramble python scripts/foms.py APP LOG [WORKLOAD] [VAR=VALUE...]`;
`--batch CASES.json OUT.json` does many logs in one Ramble session). It makes a throwaway
workspace with one experiment per (log, workload), sets it up with --dry-run (no software),
puts each log wherever the application's FOMs and success criteria read from, marks the
experiments run, and lets Ramble's analyze pipeline extract.

- Prints `<fom>\t<value>\t<units>` once per FOM and context (context values first,
  `<context>=<value> `; a section's name before them, `section=<name> `; the position of a
  name that recurs after them, ` #2`: ramble-repo/README.md item 11), whichever workloads
  matched it.
- A log from elsewhere has no experiment: the `requested-*` criteria (which compare the run
  with the experiment's variables) are left out, unless VAR=VALUE gives every variable one
  uses (e.g. `hpl_n=1000`), as Ramble would have.
- A file holding several appended runs (the same rule for every application): a run opens with
  the first line that matches the application's `run_start_regex`, and each later line that
  matches it with the same text opens the next run. Only the last run is read, and stderr says
  which lines opened runs; a line a run prints before its opening line stays with the run before.
  Several benchmarks or run blocks within one run are its sections, and each is reported.
Exit 0 when the log's run meets the success criteria, 1 naming the failed criteria (or saying
that no FOM matched), 2 on bad arguments.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import ramble.paths
import ramble.repository
import ramble.workspace

RAMBLE = os.path.join(ramble.paths.prefix, "bin", "ramble")
# `ramble python FILE` runs FILE without __file__; argv[0] is FILE.
THIS = os.path.abspath(sys.argv[0])
REQUESTED = "requested-"
# A Ramble variable in a criterion's regex: `{hpl_n}` (not a quantifier like `{2}` or `{1,3}`).
VARIABLE = re.compile(r"\{([A-Za-z_]\w*)\}")


def fail(msg, code=2):
    print(f"make foms: {msg}", file=sys.stderr)
    sys.exit(code)


def text_log(path):
    """A log is text: Ramble reads it line by line as UTF-8 (a binary file or a folder is bad input)."""
    if not os.path.isfile(path):
        fail(f"LOG: {path}: no such file")
    with open(path, "rb") as f:
        data = f.read()
    try:
        data.decode()
    except UnicodeDecodeError as err:
        fail(f"LOG: {path}: not a text log (byte {err.start} is not UTF-8); give the run's output file")


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
"""
                + "".join(f"                {k}: {json.dumps(str(v))}\n" for k, v in variables.items())
            )
    text = "".join(
        f"\n    {app}:\n      workloads:"
        + "".join(f"\n        {w}:\n          experiments:" + "".join(exps) for w, exps in workloads.items())
        for app, workloads in apps.items()
    )
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


def experiment_name(app_inst):
    return app_inst.expander.expand_var_name(app_inst.keywords.experiment_name)


def place(ws, logs):
    """Copy each experiment's log (LOGS: experiment name -> log) to every file the analysis
    reads, and mark the runs complete."""
    for _, app_inst, _ in ws.build_experiment_set().all_experiments():
        if app_inst.is_template or app_inst.repeats.is_repeat_base:
            continue
        app_inst.add_expand_vars(ws)  # as Ramble's pipelines do before each phase
        log = logs[experiment_name(app_inst)]
        files, _, _ = app_inst._analysis_dicts(ws.success_list)
        paths = set(files) | {app_inst.expander.expand_var(c.file) for c in ws.success_list.all_criteria() if c.file}
        for path in paths:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            shutil.copyfile(log, path)
        run_dir = app_inst.expander.expand_var_name(app_inst.keywords.experiment_run_dir)
        with open(os.path.join(run_dir, app_inst._status_file_name), "w") as f:
            json.dump({app_inst.keywords.experiment_status: "COMPLETE"}, f)


def unchecked_requests(app_inst, given):
    """The requested-* criteria of an experiment that cannot be checked: some variable their
    regex uses was not given for the log (a log from elsewhere has no experiment)."""
    drop = set()
    for name, conf in app_inst.success_criteria.items():
        if name.startswith(REQUESTED):
            # The variables of what it matches (not of the file it reads).
            used = set(VARIABLE.findall(" ".join(str(conf.get(k) or "") for k in ("match", "anti_match"))))
            if not used or not used <= given:
                drop.add(name)
    return drop


def analyze(spec_file):
    """In the active workspace (spec: {"logs": {experiment: log}, "given": {experiment: [variables
    given for its log]}}): place the logs, then run Ramble's analyze pipeline without the
    requested-* criteria that cannot be checked, recording each experiment's failed criteria
    in failed.json beside the workspace's results."""
    import ramble.application
    import ramble.config
    import ramble.filters
    import ramble.pipeline

    with open(spec_file) as f:
        spec = json.load(f)
    ws = ramble.workspace.active_workspace()
    base = ramble.application.ApplicationBase
    analysis_dicts, analyze_experiments = base._analysis_dicts, base._analyze_experiments

    def _analysis_dicts(self, criteria_list):
        files, contexts, foms = analysis_dicts(self, criteria_list)
        drop = unchecked_requests(self, set(spec["given"].get(experiment_name(self), [])))
        for scope in criteria_list.criteria:
            criteria_list.criteria[scope] = [c for c in criteria_list.criteria[scope] if c.name not in drop]
        for conf in files.values():
            conf["success_criteria"] = [c for c in conf["success_criteria"] if c not in drop]
        return files, contexts, foms

    failed = {}

    def _analyze_experiments(self, workspace, app_inst=None):
        analyze_experiments(self, workspace, app_inst)
        failed[experiment_name(self)] = [c.name for c in workspace.success_list.all_criteria() if not c.ok()]

    base._analysis_dicts, base._analyze_experiments = _analysis_dicts, _analyze_experiments
    place(ws, spec["logs"])
    ws.repeat_success_strict = ramble.config.get("config:repeat_success_strict")
    pipeline = ramble.pipeline.pipeline_class(ramble.pipeline.pipelines.analyze)(
        ws, ramble.filters.Filters(), output_formats=["json"]
    )
    with ws.write_transaction():
        pipeline.run()
    with open(os.path.join(ws.root, "failed.json"), "w") as f:
        json.dump(failed, f)


def context_labeller(app_cls):
    """Turn a context's formatted name back into `<field>=<value>` using its output_format
    (e.g. 'Message Size: 8' from 'Message Size: {msg_size}' -> 'msg_size=8'), with the section
    and the position the application kit adds to a name (ramble-repo/kit/results.py):
    'Allreduce: Bytes: 8 (Latency)' -> 'section=Allreduce bytes=8', 'WR11C2R4 N=1000 ... #2'
    -> 'tv=WR11C2R4 N=1000 ... #2'."""
    from hpcaas_kit.results import PART_SEPARATOR, POSITION, SECTION_SEPARATOR

    def pattern(fmt):
        parts = re.split(r"\{(\w+)\}", fmt)
        return "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.*?)" for i, p in enumerate(parts)), parts

    position = re.escape(POSITION).replace(re.escape("{}"), "[0-9]+")
    contexts = app_cls.figure_of_merit_contexts
    sections = list(getattr(app_cls, "section_contexts", ()))
    # A section's name: its contexts' names joined, maybe numbered (groups renamed: only the
    # whole is wanted).
    section_name = (
        re.escape(PART_SEPARATOR).join(
            re.sub(r"\(\?P<\w+>", "(?:", pattern(contexts[c]["output_format"])[0]) for c in sections
        )
        + f"(?:{position})?"
    )
    patterns = []
    for def_name, conf in contexts.items():
        regex, parts = pattern(conf["output_format"])
        patterns.append(
            (def_name, re.compile(regex + f"(?P<_position>{position})?$"), parts[1::2], len("".join(parts[0::2])))
        )
    # The most literal text first: a bare "{level}" matches any name, so it is tried last.
    patterns = [p[:3] for p in sorted(patterns, key=lambda p: -p[3])]
    qualified = re.compile(f"(?P<_section>{section_name}){re.escape(SECTION_SEPARATOR)}")

    def plain(name):
        """The label of a name of the application's own contexts (not a section's), or None."""
        for def_name, regex, fields in patterns:
            m = regex.match(name)
            if m and def_name not in sections:
                at = m.start("_position") if m.group("_position") else len(name)
                text = " ".join(f"{f}={m.group(f)}" for f in fields) if fields else f"{def_name}={name[:at]}"
                return text + name[at:]
        return None

    def label(name):
        m = qualified.match(name) if sections else None
        rest = plain(name[m.end() :]) if m else None
        if rest:
            return f"section={m.group('_section')} {rest}"
        if plain(name):
            return plain(name)
        return f"section={name}" if sections and re.fullmatch(section_name, name) else f"context={name}"

    return label


def app_class(app):
    try:
        return ramble.repository.paths[ramble.repository.ObjectTypes.applications].get_obj_class(app)
    except Exception:
        fail(f"APP: no Ramble application named '{app}' (see: ramble list)")


def run_starts(regex, lines):
    """The lines (indices) that open a run: the first line matching REGEX, and each later line that
    matches it with the same text (whitespace aside). Other matches belong to the run they are in:
    OpenFOAM's second utility, a second banner line, each rank's copy of an introduction that the
    regex does not match."""
    starts, opening = [], None
    for n, line in enumerate(lines):
        m = re.match(regex, line)
        if m:
            text = " ".join(m.group(0).split())
            opening = opening or text
            if text == opening:
                starts.append(n)
    return starts


def last_run(app, app_cls, log, tmp, i):
    """(file to read, note): LOG itself, or its last run in a file under TMP when LOG holds more
    than one run (see run_starts)."""
    regex = getattr(app_cls, "run_start_regex", None)
    if not regex:
        return log, None
    with open(log, errors="replace") as f:
        lines = f.readlines()
    starts = run_starts(regex, lines)
    if len(starts) < 2:
        return log, None
    path = os.path.join(tmp, f"last-run-{i}-{os.path.basename(log)}")
    with open(path, "w") as f:
        f.writelines(lines[starts[-1] :])
    return path, (
        f"{log} holds {len(starts)} runs of {app} (lines {', '.join(str(n + 1) for n in starts)} open "
        f"one, matching its run_start_regex {regex!r}): reporting the last one, from line {starts[-1] + 1}"
    )


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


def merged(experiments):
    """One case's experiments (one per workload) as one result: each FOM once per context,
    taken from a successful experiment first; the failed criteria only when none succeeded."""
    ok = [e for e in experiments if e["status"] == "SUCCESS"]
    foms, seen = [], set()
    for exp in ok + [e for e in experiments if e["status"] != "SUCCESS"]:
        for prefix, name, value, units in exp["foms"]:
            if (prefix, name) not in seen:
                seen.add((prefix, name))
                foms.append([prefix, name, value, units])
    failed = [] if ok else list(dict.fromkeys(c for e in experiments for c in e["failed"]))
    return {"foms": foms, "statuses": [e["status"] for e in experiments], "failed": failed}


def extract(cases):
    """Ramble's FOMs and verdict for each case, in one throwaway workspace: a list of
    {"foms": [[context label or "", name, value, units], ...], "statuses": [...],
    "failed": [criterion, ...], "note": what was read, when not the whole file}."""
    cases = [checked(c) for c in cases]
    packages = {p for c in cases for p in app_class(c["app"]).required_packages}
    tmp = tempfile.mkdtemp(prefix="foms-")
    try:
        notes = []
        for i, c in enumerate(cases):
            c["read"], note = last_run(c["app"], app_class(c["app"]), c["log"], tmp, i)
            notes.append(note)
        spec = {
            "logs": {f"foms-{i}-{w}": c["read"] for i, c in enumerate(cases) for w in c["workloads"]},
            "given": {f"foms-{i}-{w}": sorted(c["vars"]) for i, c in enumerate(cases) for w in c["workloads"]},
        }
        ws = os.path.join(tmp, "ws")
        os.makedirs(os.path.join(ws, "configs"))
        with open(os.path.join(ws, "configs", "ramble.yaml"), "w") as f:
            f.write(workspace_config(cases, packages))
        with open(os.path.join(tmp, "spec.json"), "w") as f:
            json.dump(spec, f)
        ramble_cli("-D", ws, "workspace", "setup", "--dry-run")
        ramble_cli("-D", ws, "python", THIS, "--analyze", os.path.join(tmp, "spec.json"))
        with open(os.path.join(ws, "results.latest.json")) as f:
            results = json.load(f)
        with open(os.path.join(ws, "failed.json")) as f:
            failed = json.load(f)
    finally:
        os.environ.get("FOMS_KEEP") or shutil.rmtree(tmp, ignore_errors=True)

    experiments = [[] for _ in cases]
    labels = {}
    for exp in results.get("experiments", []):
        name = exp["experiment_name"]
        i = int(name.split("-")[1])
        app = cases[i]["app"]
        label = labels.setdefault(app, context_labeller(app_class(app)))
        foms = [
            ["" if context["name"] == "null" else label(context["name"]), fom["name"], fom["value"], fom["units"]]
            for context in exp.get("CONTEXTS", [])
            for fom in context["foms"]
        ]
        experiments[i].append({"status": exp.get("RAMBLE_STATUS"), "foms": foms, "failed": failed.get(name, [])})
    return [{**merged(exps), "note": note} for exps, note in zip(experiments, notes)]


def main(argv):
    if argv[:1] == ["--analyze"]:
        return analyze(argv[1])
    if argv[:1] == ["--batch"]:
        # --batch CASES.json OUT.json: many logs in one workspace (one Ramble session, not one
        # per log); CASES is a list of {app, log, [workload], [vars]}, OUT gets extract()'s list.
        with open(argv[1]) as f:
            out = extract(json.load(f))
        with open(argv[2], "w") as f:
            json.dump(out, f, indent=1)
        return
    # Variables of the run that made the log (e.g. n_ranks=2 hpl_n=1000), for criteria that use them.
    variables = dict(a.split("=", 1) for a in argv if "=" in a)
    argv = [a for a in argv if "=" not in a]
    if len(argv) not in (2, 3):
        fail("usage: make foms APP=<ramble application> LOG=<file> [WORKLOAD=<w>] [VARS='n_ranks=2 ...']")
    case = {"app": argv[0], "log": argv[1], "workload": argv[2] if len(argv) == 3 else None, "vars": variables}
    text_log(case["log"])
    result = extract([case])[0]
    if result["note"]:
        print(f"make foms: {result['note']}", file=sys.stderr)
    for prefix, name, value, units in result["foms"]:
        print(f"{prefix + ' ' if prefix else ''}{name}\t{value}\t{units}")
    if "SUCCESS" in result["statuses"]:
        return
    if result["failed"]:
        fail(f"{case['log']} does not meet {case['app']}'s success criteria: failed {', '.join(result['failed'])}", 1)
    fail(f"no figure of merit of {case['app']} matched in {case['log']}", 1)


if __name__ == "__main__":
    main(sys.argv[1:])
