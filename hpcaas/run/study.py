"""One study on one system at a scale, end to end, as Ramble and Spack do it:

1. check what can be checked before anything runs (the study, the system and its scheduler, the
   variables set, the scale);
2. render the Ramble workspace into the run's folder (hpcaas/run/place.py);
3. let Ramble write the study's Spack environments (its software_create_env phase);
4. give them their lock: the committed one (environments/<study>/<system>/, stopping when it is
   stale), else the one solved for this system (kept in the cache by its inputs); each Ramble
   environment is seeded with the lock's solve of its specs, so nothing is solved twice;
5. build each environment with Spack (one that fails fails only its experiments);
6. `ramble workspace setup`, `ramble on`, wait for the Slurm jobs, `ramble workspace analyze`;
7. the tidy CSV with provenance in the run's own folder, and `latest` pointing to it.
"""

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from analysis.errors import InputError
from hpcaas import environments, render, systems
from hpcaas.paths import CONFIGS, ROOT
from hpcaas.run import checks, progress, tools
from hpcaas.run.place import Place
from hpcaas.run.progress import say, warn

SLURM = ROOT / "slurm"
SPACK_PYTHON = ROOT / "hpcaas" / "spack_python"


@dataclass
class Outcome:
    place: Place
    run: Path
    results: Path = None
    failed: list = field(default_factory=list)  # experiments that did not succeed
    rc: int = 1


@dataclass
class Lock:
    folder: Path
    committed: bool

    def describe(self) -> str:
        where = self.folder.relative_to(ROOT) if self.committed else self.folder
        return f"the committed environment {where}" if self.committed else f"the environment solved for it ({where})"


class Run:
    """The steps of one run; each writes what it did to the run's log."""

    def __init__(self, study, system, scale="paper", sets=None, profile=None, label=None, extra_env=None):
        self.study, self.system, self.scale, self.profile = study, system, scale, profile
        self.sets = sets or {}
        self.place = Place(study, system, label or scale)
        self.ws = self.place.workspace
        self.spack_scope = CONFIGS / system / "spack"
        self.env = tools.environment(HPCAAS_SYSTEM=system, **(extra_env or {}))
        self.failed_envs = []

    # ------------------------------------------------------------------ before anything runs
    def check(self):
        doc = systems.check_system_dir(CONFIGS / self.system)
        self.scheduler = systems.value(doc, "scheduler")
        if self.scheduler == "slurm":
            self.env = checks.slurm_env(self.env)
        checks.scheduler_up(self.scheduler, self.system, self.env)
        config = render.workspace_config(self.study, self.system, self.scale, self.profile)["ramble.yaml"]
        checks.check_sets(self.sets, config, self.study, self.system)

    # ------------------------------------------------------------------ the steps
    def ramble(self, *args, on_line=progress.quiet, check=True):
        sets = [a for name, value in self.sets.items() for a in ("-c", f"variables:{name}:{value}")]
        return tools.run(["ramble", *sets, "-D", self.ws, *args], self.log, on_line, env=self.env, check=check)

    def spack(self, *args, on_line=progress.quiet, check=True, env=None):
        cmd = ["spack", "-C", self.spack_scope, *(["-e", env] if env else []), *args]
        return tools.run(cmd, self.log, on_line, env=self.env, check=check)

    def render(self):
        render.render(self.study, self.system, self.scale, out=self.ws, profile=self.profile)
        if (self.ws / "results.latest.json").exists():
            # A re-run overwrites experiment outputs: Ramble's timestamped archive keeps the earlier ones.
            self.ramble("workspace", "archive")

    def environments(self):
        say(f"{self.study} on {self.system}: Ramble writes the Spack environments")
        self.create_env_rc = self.ramble("workspace", "setup", "--phases", "software_create_env", check=False)
        if self.create_env_rc:
            warn(f"{self.study}: writing a Spack environment failed; its application's setup below says why")

    def lock(self) -> Lock:
        specs = environments.specs_of(self.ws)
        if not specs:
            raise tools.ToolError(
                f"{self.study} on {self.system}: Ramble wrote no Spack environment "
                f"(ramble workspace setup --phases software_create_env; its output: {self.log.name})"
            )
        mine = environments.committed(self.study, self.system)
        if mine is not None:
            why = environments.stale_reason(self.study, self.system)
            if why:
                raise InputError(mine / "spack.lock", "inputs.sha256", why)
            return Lock(mine, True)
        folder = environments.cache_folder(self.system, specs)
        if environments.stale_reason(self.study, self.system, folder):
            say(f"{self.study} on {self.system}: solving {len(specs)} specs (Spack, once per change of its inputs)")
            environments.write_manifest(folder, None, self.system, specs)
            self.spack("python", SPACK_PYTHON / "concretize.py", env=folder)
            environments.record(self.study, self.system, folder)
        return Lock(folder, False)

    def sources(self, lock: Lock):
        out = self.place.folder / ".sources.json"
        self.spack("python", SPACK_PYTHON / "sources.py", out, env=lock.folder)
        urls = {url: tuple(v) for url, v in json.loads(out.read_text()).items()}
        out.unlink()
        lines = checks.unreachable(urls)
        if lines:
            for line in lines:
                warn(line)
            raise InputError(
                "sources", lines[0].split(":")[0], "reachable (the mappings above), before anything builds"
            )

    def build(self, seeded: list):
        if not seeded:
            return  # every environment is installed: not even Ramble's config is needed (a Ramble start)
        flags = (self.ramble_config().get("spack", {}).get("install", {}) or {}).get("flags") or ""
        for name in seeded:
            say(f"  {name}: spack install")
            rc = self.spack("install", *flags.split(), env=self.ws / "software" / name, on_line=progress.Install(name))
            if rc:
                warn(f"  {name}: the build failed; its experiments are FAILED (the log: {self.log.name})")
                self.failed_envs.append(name)

    def ramble_config(self) -> dict:
        return yaml.safe_load(tools.output(["ramble", "-D", self.ws, "config", "get", "config"], env=self.env))[
            "config"
        ]

    def exclude(self) -> list:
        return ["--exclude-where", *(f"'{{env_name}}' == '{e}'" for e in self.failed_envs)] if self.failed_envs else []

    def setup(self):
        say(f"{self.study} on {self.system}: ramble workspace setup")
        if self.ramble("workspace", "setup", *self.exclude(), check=False) == 0:
            return
        # One environment's failure must fail only its own experiments: find which.
        for name in environments.environment_specs(self.ws):
            if name in self.failed_envs:
                continue
            if self.ramble("workspace", "setup", "--where", f"'{{env_name}}' == '{name}'", check=False):
                warn(f"  {name}: Ramble's setup failed; its experiments are FAILED (the log: {self.log.name})")
                self.failed_envs.append(name)
        if set(self.failed_envs) >= set(environments.environment_specs(self.ws)):
            raise tools.ToolError(f"{self.study}: no Spack environment could be set up (the log: {self.log.name})")

    def execute(self) -> int:
        """ramble on; for Slurm, wait for the study's jobs, printing each as it ends. Returns
        wait-jobs' status (0: every job COMPLETED)."""
        say(f"{self.study} on {self.system}: ramble on")
        t0 = time.time()
        if self.scheduler != "slurm":
            watch = progress.Experiments(self.ws, t0)
            watch.start()
            try:
                self.ramble("on", *self.exclude(), on_line=progress.quiet)
            finally:
                watch.stop()
            return 0
        self.ramble("on", *self.exclude(), on_line=progress.quiet)
        jobs = sum(1 for _ in self.ws.glob("experiments/*/*/*/execute_experiment"))
        say(f"{self.study}: waiting for its Slurm jobs")
        return tools.run(
            [
                SLURM / "wait-jobs.py",
                "--workdir",
                self.ws,
                "--since",
                # Slurm records submit times in whole seconds: a job submitted in t0's second counts.
                str(int(t0)),
                "--csv",
                self.run_dir / "jobs.csv",
                "--expect",
                str(jobs),
                "--timeout",
                os.environ.get("HPCAAS_JOB_TIMEOUT", "7200"),
            ],
            self.log,
            on_line=lambda line: say("  " + line) if line.startswith("[") else None,
            env=self.env,
            check=False,
        )

    def results(self, lock: Lock) -> Path:
        from analysis import collect, files

        say(f"{self.study} on {self.system}: ramble workspace analyze")
        self.ramble("workspace", "analyze", "-f", "json", "text")
        jobs = self.run_dir / "jobs.csv"
        df = collect.collect(
            self.ws,
            configs_dir=CONFIGS,
            spack_lock=environments.lock_hash(lock.folder),
            cwd=ROOT,
            jobs=jobs if jobs.exists() else None,
        )
        out = self.run_dir / "results.csv"
        files.emit(files.render(df, "csv"), str(out))
        if self.profile:
            tools.run(
                [
                    ROOT / ".venv/bin/python",
                    "-m",
                    "analysis.hpctoolkit",
                    "--workspace",
                    self.ws,
                    "-o",
                    self.run_dir / "profiles.csv",
                ],
                self.log,
                env=self.env,
                check=False,
            )
        return out

    def provenance(self, lock: Lock, outcome: Outcome):
        doc = {
            "study": self.study,
            "system": self.system,
            "scale": self.scale,
            "set": self.sets,
            "profile": self.profile,
            "environment": str(lock.folder.relative_to(ROOT)) if lock.committed else str(lock.folder),
            "committed_environment": lock.committed,
            "spack_lock_sha256": environments.lock_hash(lock.folder),
            "environments_not_built": self.failed_envs,
            "failed_experiments": outcome.failed,
        }
        (self.run_dir / "provenance.json").write_text(json.dumps(doc, indent=2) + "\n")

    # ------------------------------------------------------------------ all of it
    def __call__(self) -> Outcome:
        self.check()
        self.ws.mkdir(parents=True, exist_ok=True)
        self.run_dir = self.place.new_run()
        outcome = Outcome(self.place, self.run_dir)
        with open(self.run_dir / "run.log", "a") as self.log:
            say(f"{self.study} on {self.system} ({self.place.scale}): {self.run_dir} (its log: run.log)")
            self.render()
            self.environments()
            lock = self.lock()
            say(f"{self.study} on {self.system}: builds {lock.describe()}")
            seeded = environments.seed(self.ws, lock.folder, self.system)
            store = environments.store(self.env)
            built = [n for n in seeded if environments.installed(self.ws / "software" / n, store)]
            for name in built:
                say(f"  {name}: installed (every spec of its lock is in Spack's store)")
            if len(built) < len(seeded):
                self.sources(lock)  # only what is built needs its sources
            self.build([n for n in seeded if n not in built])
            self.setup()
            jobs_rc = self.execute()
            outcome.results = self.results(lock)
        from analysis import files

        df = files.read_results(outcome.results)
        bad = df[df["status"].astype(str) != "SUCCESS"]
        outcome.failed = sorted(set(bad["experiment"].astype(str)))
        self.provenance(lock, outcome)
        self.place.mark_latest(self.run_dir)
        outcome.rc = 0 if jobs_rc == 0 and not outcome.failed else 1
        return outcome
