"""environments.installed(): a run's fast path that skips `spack install` reads Spack's database
as Spack does. A lock of specs Spack lists as installed is installed; one spec Spack does not
have, or a recorded prefix that is gone, and it is not."""

import json

from testkit import run

from hpcaas import environments


def _lock(folder, hashes):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "spack.lock").write_text(json.dumps({"concrete_specs": {h: {} for h in hashes}}))
    return folder


def test_installed_agrees_with_spack_find(project, tmp_path):
    cache = run("echo $HPCAAS_CACHE").stdout.strip()
    store = environments.store({"HPCAAS_CACHE": cache})
    found = json.loads(run("spack find --json").stdout or "[]")
    hashes = sorted(spec["hash"] for spec in found)
    assert hashes, f"spack find lists nothing installed in {store}: run make smoke first"
    assert environments.installed(_lock(tmp_path / "all", hashes), store)
    assert not environments.installed(_lock(tmp_path / "one-more", hashes + ["a" * 32]), store)
    # The database still lists a spec whose prefix was removed by hand: not installed.
    db = json.loads((store / ".spack-db/index.json").read_text())
    db["database"]["installs"][hashes[0]]["path"] = str(tmp_path / "removed")
    copy = tmp_path / "store"
    (copy / ".spack-db").mkdir(parents=True)
    (copy / ".spack-db/index.json").write_text(json.dumps(db))
    assert environments.installed(_lock(tmp_path / "rest", hashes[1:]), copy)
    assert not environments.installed(_lock(tmp_path / "with-removed", hashes), copy)
