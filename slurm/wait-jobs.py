#!/usr/bin/env python3
"""Wait until the selected jobs of the local Slurm cluster have left the queue, then report how
each one ended (from the job completion log: there is no sacct without slurmdbd).

    slurm/wait-jobs.py [JOBID ...] [--name-prefix P] [--workdir DIR] [--since EPOCH]
                       [--timeout 3600] [--jobcomp FILE] [--csv OUT]

Jobs are those with the given ids, plus (or, without ids: only) those matching every given
filter: name prefix, working directory at or below DIR (the Ramble batch template runs each
experiment in its run directory, so DIR=<workspace> selects a study's jobs), submitted at or
after EPOCH. Prints each job as it ends, `[k/N] <name>: <state> (exit <code>) <run> s` (N: the
jobs seen so far, or --expect), then one line per job, `<id> <state> <exit>:<signal> <name>`.

Exit status: 0 every job COMPLETED; 1 a job ended otherwise (FAILED, TIMEOUT, CANCELLED,
NODE_FAIL, ...); 2 usage or no cluster; 3 no job matched; 4 still queued at the timeout.
Needs SLURM_CONF (. <state>/env.sh).
"""

import argparse
import datetime
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import jobstats  # noqa: E402  (beside this script, stdlib only)

POLL_S = 0.5
# slurmctld appends to the completion log as the job leaves the queue; allow for a lag.
JOBCOMP_GRACE_S = 5


def queued(args) -> list:
    """Jobs still in the queue (squeue lists pending, running and completing ones by default)."""
    proc = subprocess.run(["squeue", "-h", "-o", "%i|%V|%T|%Z|%j"], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"squeue failed: {proc.stderr.strip() or proc.stdout.strip()}")
    jobs = []
    for line in proc.stdout.splitlines():
        job_id, submit, state, workdir, name = line.split("|", 4)
        if not job_id.isdigit():  # array/het job ids such as 7_1 are not used here
            continue
        jobs.append({"job_id": int(job_id), "state": state, "work_dir": workdir, "name": name, "submit": _iso(submit)})
    return match(jobs, args)


def _iso(text):
    try:
        return datetime.datetime.fromisoformat(text).astimezone().isoformat()
    except ValueError:
        return ""


def match(jobs, args) -> list:
    ids = set(args.ids)
    filtered = args.name_prefix is not None or args.workdir is not None or args.since is not None
    picked = [j for j in jobs if j["job_id"] in ids]
    if filtered:
        picked += [
            j for j in jobstats.select(jobs, None, args.name_prefix, args.workdir, args.since) if j["job_id"] not in ids
        ]
    return picked


def tell_ended(ended: set, jobcomp: Path, done: int, total: int) -> set:
    """Print each job that left the queue and is in the completion log; return those told."""
    if not ended:
        return set()
    told = set()
    for job in sorted(jobstats.read_jobs(jobcomp), key=lambda j: j["job_id"]):
        if job["job_id"] in ended and job["job_id"] not in told:
            told.add(job["job_id"])
            run = f" {job['run_s']} s" if job.get("run_s") not in (None, "") else ""
            print(
                f"[{done + len(told)}/{total}] {job['name']}: {job['state']} (exit {job['exit_code']}){run}", flush=True
            )
    return told


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ids", nargs="*", type=int, help="job ids")
    ap.add_argument("--name-prefix", help="jobs whose name starts with this")
    ap.add_argument("--workdir", help="jobs whose working directory is this one or below it")
    ap.add_argument("--since", type=float, help="jobs submitted at or after this time (epoch seconds)")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds to wait (default 3600)")
    ap.add_argument("--jobcomp", type=Path, help="job completion log (default: $HPCAAS_SLURM_JOBCOMP)")
    ap.add_argument("--csv", type=Path, help="also write the jobs' statistics (jobstats columns) here")
    ap.add_argument("--expect", type=int, default=0, help="print a line per job as it ends, counting to N")
    args = ap.parse_args(argv)
    if not args.ids and args.name_prefix is None and args.workdir is None and args.since is None:
        ap.error("give job ids or at least one of --name-prefix, --workdir, --since")
    jobcomp = args.jobcomp or jobstats.default_jobcomp()

    deadline = time.monotonic() + args.timeout
    seen, told = set(), set()
    try:
        while True:
            waiting = queued(args)
            seen |= {j["job_id"] for j in waiting}
            if args.expect:  # the progress lines; the summary below stays the output to parse
                told |= tell_ended(
                    seen - {j["job_id"] for j in waiting} - told, jobcomp, len(told), max(args.expect, len(seen))
                )
            if not waiting:
                break
            if time.monotonic() > deadline:
                print(
                    f"wait-jobs: timeout after {args.timeout:g}s; still queued: "
                    + ", ".join(f"{j['job_id']} ({j['state']})" for j in waiting),
                    file=sys.stderr,
                )
                return 4
            time.sleep(POLL_S)
    except (RuntimeError, OSError) as err:
        print(f"wait-jobs: {err} (is the cluster up and SLURM_CONF set?)", file=sys.stderr)
        return 2

    # Every job we saw queued or asked for by id must show up in the completion log.
    grace = time.monotonic() + JOBCOMP_GRACE_S
    while True:
        done = {j["job_id"]: j for j in match(jobstats.read_jobs(jobcomp), args)}
        missing = (seen | set(args.ids)) - set(done)
        if not missing or time.monotonic() > grace:
            break
        time.sleep(POLL_S)
    if not done and not missing:
        print("wait-jobs: no job matched", file=sys.stderr)
        return 3

    bad = 0
    for job in sorted(done.values(), key=lambda j: j["job_id"]):
        print(f"{job['job_id']} {job['state']} {job['exit_code']}:{job['signal']} {job['name']}")
        bad += job["state"] != "COMPLETED"
    for job_id in sorted(missing):
        print(f"{job_id} UNKNOWN (not in {jobcomp}: never submitted, or the log was removed)")
        bad += 1
    if args.csv:
        with open(args.csv, "w", newline="") as out:
            jobstats.write_csv(sorted(done.values(), key=lambda j: j["job_id"]), out)
    if bad:
        print(f"wait-jobs: {bad} of {len(done) + len(missing)} job(s) did not complete", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
