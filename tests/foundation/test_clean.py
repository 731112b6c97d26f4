"""make clean removes what runs generate and keeps every tracked file (on a copy of the tree)."""

import shutil
import subprocess

from testkit import ROOT


def git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def test_make_clean_keeps_every_tracked_file(tmp_path):
    tracked = git("ls-files", "Makefile", ".gitignore", "ramble-workspaces", cwd=ROOT).split()
    for rel in tracked:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, tmp_path / rel)
    git("init", "-q", cwd=tmp_path)
    git("add", "-A", cwd=tmp_path)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "tree", cwd=tmp_path)
    study = next(p for p in (tmp_path / "ramble-workspaces").iterdir() if p.is_dir())
    generated = [
        study / "experiments/a/b/c/execute_experiment",
        study / "results.latest.json",
        tmp_path / "runs/local/paper/smoke/20261127T000000Z/results.csv",
        tmp_path / "runs/local/paper/smoke/workspace/configs/ramble.yaml",
    ]
    for path in generated:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("generated\n")

    proc = subprocess.run(["make", "-s", "clean"], cwd=tmp_path, capture_output=True, text=True)

    assert proc.returncode == 0, proc.stderr
    assert git("status", "--porcelain", cwd=tmp_path) == ""  # nothing tracked deleted or changed
    assert not any(path.exists() for path in generated)
