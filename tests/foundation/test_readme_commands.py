"""The README's "Reproduce a published configuration with Spack and Ramble", as a new user runs it:
each of its shell blocks copied as written into a fresh shell (no system chosen, nothing sourced)."""

import hashlib
import json
import os
import re
import shutil
import subprocess

from testkit import ROOT, cache_folder, place

SECTION = "## Reproduce a published configuration with Spack and Ramble"


def blocks() -> list:
    text = (ROOT / "README.md").read_text()
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", section, re.S)


def shell(script, timeout=1800):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HPCAAS_SYSTEM", "SPACK_", "MAKE"))}
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )


def roots(lock) -> set:
    return {r["hash"] for r in json.loads(lock.read_text())["roots"]}


def test_the_section_has_a_paper_system_block_and_a_local_block():
    found = blocks()
    assert len(found) == 2 and "concretize -f" in found[0] and "ramble -D" in found[1], found


def test_plain_spack_solves_a_paper_systems_environment_to_its_committed_lock(project):
    """A paper system's compilers are not here: solve only. The block ends with `git diff
    --exit-code` on the lock, so it fails unless Spack wrote the committed lock again. A solve
    takes a minute and gives the same lock from the same inputs, so a pass is kept, keyed by the
    block, the environment's Spack inputs (hpcaas.spack_inputs: pin, configs, recipes, manifest),
    the committed lock and how setup configures Spack."""
    from hpcaas.spack_inputs import inputs_hash

    script = blocks()[0]
    env_dir = ROOT / re.search(r"spack -e (environments/\S+) concretize", script).group(1)
    before = (env_dir / "spack.lock").read_bytes()
    digest = hashlib.sha256(script.encode() + before)
    for setup in ("setup-env.sh", "scripts/configure.sh"):
        digest.update((ROOT / setup).read_bytes())
    digest.update(inputs_hash(env_dir.name, (env_dir / "spack.yaml").read_text()).encode())
    passed = cache_folder("readme-solve") / digest.hexdigest()[:32]
    if passed.is_file():
        return
    try:
        proc = shell(script)
    finally:
        (env_dir / "spack.lock").write_bytes(before)
        shutil.rmtree(env_dir / ".spack-env", ignore_errors=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    passed.parent.mkdir(parents=True, exist_ok=True)
    passed.write_text(script)


def test_this_machines_lock_is_installed_and_ramble_runs_it_without_solving(project):
    script = blocks()[1]
    env_dir = ROOT / "environments/smoke/local"
    # The smoke study's workspace is the runs' (other tests run it too): read this setup's logs only.
    earlier = set(place("smoke").workspace.glob("logs/setup.*/**/*.out"))
    (place("smoke").workspace / "results.latest.json").unlink(missing_ok=True)  # only this run's may be read
    try:
        proc = shell(script)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        ws = place("smoke").workspace
        # Each Ramble environment holds the lock's solve of its specs, which Ramble installed.
        seeded = set().union(*(roots(f) for f in ws.glob("software/*/spack.lock")))
        assert seeded and seeded == roots(env_dir / "spack.lock")
        logs = "".join(f.read_text(errors="replace") for f in set(ws.glob("logs/setup.*/**/*.out")) - earlier)
        assert "will not be regenerated" in logs  # Ramble kept the seeded lock
        assert "command:" in logs and not re.search(r"command: \S*spack .*concretize", logs)  # and solved nothing
        results = json.loads((ws / "results.latest.json").read_text())
        assert {e["RAMBLE_STATUS"] for e in results["experiments"]} == {"SUCCESS"}
        assert len(results["experiments"]) == 4
    finally:
        shutil.rmtree(env_dir, ignore_errors=True)
