"""Each study's README.md is the rendering of its study.yaml (make readme): the fidelity table a
reader sees is the one the dry-run tests check, and a changed study.yaml without a rendered README
fails here, naming the file and the command."""

import os
import shutil
import subprocess

from testkit import ROOT

from hpcaas import readme, studies

HPCAAS = str(ROOT / ".venv/bin/hpcaas")


def test_every_study_readme_is_its_study_rendered():
    stale = readme.stale(readme.all_studies(), studies.load)
    assert not stale, "not the rendering of study.yaml (run make readme): " + ", ".join(map(str, stale))


def test_a_paper_studys_readme_holds_each_fidelity_row():
    doc = studies.load("namd-apoa1-scaling")
    text = (ROOT / "ramble-workspaces/namd-apoa1-scaling/README.md").read_text()
    for row in doc["fidelity"]:
        words = row.get("paper") or row["silent"]
        assert f"| {row['parameter']} |" in text and words.replace("\n", " ").replace("|", "\\|") in text, row


def test_check_names_a_stale_readme_and_write_mends_it(tmp_path):
    tree = tmp_path / "tree"
    (tree / "ramble-workspaces").mkdir(parents=True)
    for shared in ("configs", "reference", "pins.env"):
        (tree / shared).symlink_to(ROOT / shared)
    shutil.copytree(ROOT / "ramble-workspaces/osu-latency", tree / "ramble-workspaces/osu-latency")
    study_yaml = tree / "ramble-workspaces/osu-latency/study.yaml"
    study_yaml.write_text(study_yaml.read_text().replace("value: gcc@4.8.3", "value: gcc@4.8.5", 1))
    env = {**os.environ, "HPCAAS_ROOT": str(tree)}

    def hpcaas(*args):
        return subprocess.run([HPCAAS, "study", "readme", *args], capture_output=True, text=True, env=env)

    proc = hpcaas("--check")
    assert proc.returncode == 1
    assert proc.stderr == (
        f"{tree / 'ramble-workspaces/osu-latency/README.md'}: not the rendering of its study.yaml: run make readme\n"
    )
    assert hpcaas().returncode == 0
    assert "| gcc@4.8.5 |" in (tree / "ramble-workspaces/osu-latency/README.md").read_text()
    assert hpcaas("--check").returncode == 0
