#!/usr/bin/env python3
"""Per-job statistics of the local Slurm cluster, from its job completion log.

The cluster has no slurmdbd (so no sacct); slurmctld's jobcomp/filetxt plugin appends one line
per finished job to <state>/log/jobcomp.txt instead:

    JobId=5 UserId=root(0) GroupId=root(0) Name=wrap JobState=COMPLETED Partition=batch
    TimeLimit=1 StartTime=2026-11-22T13:33:40 EndTime=... NodeList=n[1-2] NodeCnt=2 ProcCnt=2
    WorkDir=/tmp ... SubmitTime=... EligibleTime=... DerivedExitCode=0:0 ExitCode=0:0

    slurm/jobstats.py [JOBCOMP] [--ids 3,4] [--name-prefix P] [--workdir DIR] [-o OUT.csv]

JOBCOMP defaults to $HPCAAS_SLURM_JOBCOMP (set by <state>/env.sh), else JobCompLoc of
$SLURM_CONF, else <repo>/.slurm/log/jobcomp.txt.
Writes CSV: job_id, name, user, nodes, ncpus, state, submit, start, end, wait_s, run_s,
exit_code, signal, node_list, work_dir. Times are ISO 8601 with the UTC offset; wait_s is
start - submit, run_s is end - start (whole seconds: the log has no finer resolution); a job
cancelled before it started (no nodes) has empty start, wait_s and run_s.
Stdlib only, so it runs without the project's venv.
"""

import argparse
import csv
import datetime
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COLUMNS = [
    "job_id",
    "name",
    "user",
    "nodes",
    "ncpus",
    "state",
    "submit",
    "start",
    "end",
    "wait_s",
    "run_s",
    "exit_code",
    "signal",
    "node_list",
    "work_dir",
]
# States a job can end in that mean it did not do its work (Slurm's job_state_string names).
FAILED_STATES = {"FAILED", "TIMEOUT", "CANCELLED", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY"}

# A key is a capitalised word followed by '='; values run to the next key. Values may hold
# spaces (job names, work directories), so splitting on blanks would be wrong.
_KEY = re.compile(r"(?:^|\s)([A-Z][A-Za-z]*)=")


def default_jobcomp() -> Path:
    """$HPCAAS_SLURM_JOBCOMP, else JobCompLoc of $SLURM_CONF, else make slurm-up's cluster."""
    env = os.environ.get("HPCAAS_SLURM_JOBCOMP")
    if env:
        return Path(env)
    conf = os.environ.get("SLURM_CONF")
    if conf and os.path.isfile(conf):
        for line in Path(conf).read_text(errors="replace").splitlines():
            m = re.match(r"\s*JobCompLoc\s*=\s*(\S+)", line, re.I)
            if m:
                return Path(m.group(1))
    return ROOT / ".slurm" / "log" / "jobcomp.txt"


def parse_line(line: str) -> dict:
    """The key=value fields of one jobcomp line, values stripped."""
    keys = list(_KEY.finditer(line))
    fields = {}
    for i, m in enumerate(keys):
        end = keys[i + 1].start() if i + 1 < len(keys) else len(line)
        fields[m.group(1)] = line[m.end() : end].strip()
    return fields


def _time(text: str):
    """Slurm prints local time without a zone ('Unknown'/'None' when there is none)."""
    try:
        return datetime.datetime.fromisoformat(text).astimezone()
    except (TypeError, ValueError):
        return None


def _exit(text: str):
    code, _, sig = (text or "").partition(":")
    return (int(code) if code.isdigit() else None, int(sig) if sig.isdigit() else None)


def job_record(fields: dict) -> dict:
    """One CSV row from the fields of a jobcomp line."""
    submit, start, end = (_time(fields.get(k)) for k in ("SubmitTime", "StartTime", "EndTime"))
    state = fields.get("JobState", "").split()[0] if fields.get("JobState") else ""
    nodes = int(fields["NodeCnt"]) if fields.get("NodeCnt", "").isdigit() else None
    # A job cancelled while pending is logged with StartTime = cancel time but no nodes.
    if not nodes:
        start = None
    code, sig = _exit(fields.get("ExitCode"))
    return {
        "job_id": int(fields["JobId"]),
        "name": fields.get("Name", ""),
        "user": re.sub(r"\(\d+\)$", "", fields.get("UserId", "")),
        "nodes": nodes,
        "ncpus": int(fields["ProcCnt"]) if fields.get("ProcCnt", "").isdigit() else None,
        "state": state,
        "submit": submit.isoformat() if submit else "",
        "start": start.isoformat() if start else "",
        "end": end.isoformat() if end else "",
        "wait_s": int((start - submit).total_seconds()) if start and submit else None,
        "run_s": int((end - start).total_seconds()) if start and end else None,
        "exit_code": code,
        "signal": sig,
        "node_list": "" if fields.get("NodeList") == "(null)" else fields.get("NodeList", ""),
        "work_dir": fields.get("WorkDir", ""),
    }


def read_jobs(path) -> list:
    """Every job of a jobcomp file, in the order they ended (a missing file has none)."""
    path = Path(path)
    if not path.exists():
        return []
    jobs = []
    for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        fields = parse_line(line)
        if "JobId" not in fields or not fields["JobId"].isdigit():
            raise ValueError(f"{path}:{n}: not a jobcomp/filetxt line (no JobId=<number>): {line[:80]!r}")
        jobs.append(job_record(fields))
    return jobs


def select(jobs, ids=None, name_prefix=None, workdir=None, since=None) -> list:
    """Jobs matching every given filter: ids, name prefix, work directory (or below), submitted
    at or after `since` (epoch seconds)."""
    out = []
    for job in jobs:
        if ids is not None and job["job_id"] not in ids:
            continue
        if name_prefix is not None and not job["name"].startswith(name_prefix):
            continue
        if workdir is not None and not _below(job["work_dir"], workdir):
            continue
        if since is not None and (
            not job["submit"] or datetime.datetime.fromisoformat(job["submit"]).timestamp() < since
        ):
            continue
        out.append(job)
    return out


def _below(path: str, top) -> bool:
    top = os.path.realpath(str(top))
    path = os.path.realpath(path) if path else ""
    return path == top or path.startswith(top.rstrip("/") + "/")


def write_csv(jobs, out):
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for job in jobs:
        writer.writerow({k: ("" if job[k] is None else job[k]) for k in COLUMNS})


def parse_ids(text: str) -> set:
    try:
        return {int(x) for x in re.split(r"[,\s]+", text.strip()) if x}
    except ValueError:
        raise argparse.ArgumentTypeError(f"job ids are numbers separated by commas, got {text!r}") from None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "jobcomp",
        nargs="?",
        type=Path,
        default=None,
        help="jobcomp/filetxt file (default: $HPCAAS_SLURM_JOBCOMP or .slurm/log/jobcomp.txt)",
    )
    ap.add_argument("--ids", type=parse_ids, help="only these job ids (comma-separated)")
    ap.add_argument("--name-prefix", help="only jobs whose name starts with this")
    ap.add_argument("--workdir", help="only jobs whose working directory is this one or below it")
    ap.add_argument("-o", "--output", type=Path, help="CSV file to write (default: stdout)")
    args = ap.parse_args(argv)
    path = args.jobcomp or default_jobcomp()
    if not path.exists():
        print(f"jobstats: {path}: no such job completion log (is the cluster up? . <state>/env.sh)", file=sys.stderr)
        return 2
    try:
        jobs = select(read_jobs(path), args.ids, args.name_prefix, args.workdir)
    except ValueError as err:
        print(f"jobstats: {err}", file=sys.stderr)
        return 2
    if args.output:
        tmp = args.output.with_name(args.output.name + ".part")
        with open(tmp, "w", newline="") as out:
            write_csv(jobs, out)
        tmp.replace(args.output)
    else:
        write_csv(jobs, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
