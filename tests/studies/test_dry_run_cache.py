"""The dry-run cache's key (hpcaas/dryrun.py): every input a dry-run depends on, and among the
project's own modules only those the dry-run imports, so a change elsewhere (validation) keeps
every study's cached dry-run while a change to the rendering regenerates them."""

import shutil

from testkit import ROOT

from hpcaas import dryrun

PAIR = ("osu-latency", "hpe-apollo70-thunderx2-edr", "paper")


def test_the_modules_a_dry_run_imports_are_in_its_key_and_no_others():
    files = {str(f.relative_to(ROOT)) for f in dryrun.imported_files(ROOT)}
    assert {"hpcaas/render.py", "hpcaas/run/dryrun.py", "hpcaas/environments.py", "hpcaas/systems.py"} <= files
    assert not any(f.startswith("hpcaas/validate/") for f in files)


def test_a_change_to_rendering_changes_the_key_and_one_to_validation_does_not(tmp_path):
    for rel in ("hpcaas", "analysis", "pins.env", "ramble-repo", f"ramble-workspaces/{PAIR[0]}/study.yaml"):
        src, dst = ROOT / rel, tmp_path / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if src.is_dir() else shutil.copyfile)(src, dst)
    key = dryrun.cache_key(*PAIR, tmp_path, "cache")
    with open(tmp_path / "hpcaas/validate/cli.py", "a") as f:
        f.write("\n# a change the dry-run does not import\n")
    assert dryrun.cache_key(*PAIR, tmp_path, "cache") == key
    with open(tmp_path / "hpcaas/render.py", "a") as f:
        f.write("\n# a change to the rendering\n")
    assert dryrun.cache_key(*PAIR, tmp_path, "cache") != key
