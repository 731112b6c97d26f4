"""Bad input to the run commands: one line naming the value and the fix, exit status 2, no
traceback, and nothing run or written (no new run folder, no workspace)."""

import os
import subprocess

import pytest
from testkit import ROOT, place

HPCAAS = str(ROOT / ".venv/bin/hpcaas")

CASES = {
    "a variable the study does not define": (
        ["run", "smoke", "local", "--set", "pin=core0"],
        "hpcaas run: SET: pin: a Ramble variable of smoke on local; it has none named so",
        ("smoke", "local", "paper"),
    ),
    "a value outside the study's choices": (
        ["run", "fault-injection", "local", "--set", "fault=nonsense"],
        "hpcaas run: SET: fault=nonsense: fault takes one of exit3, ",  # the study's fault_<name> values
        ("fault-injection", "local", "paper"),
    ),
    "not name=value": (
        ["run", "smoke", "local", "--set", "pin"],
        "hpcaas run: SET: pin: name=value",
        ("smoke", "local", "paper"),
    ),
    "a scale the studies do not have": (
        ["run", "smoke", "local", "--scale", "tiny"],
        "hpcaas run: SCALE: tiny: one of paper, small",
        ("smoke", "local", "tiny"),
    ),
    "a catalog tier that does not exist": (
        ["catalog", "run", "local", "--tier", "fastt"],
        "hpcaas catalog: TIER: fastt: one of fast, all",
        ("catalog", "local", "fastt"),
    ),
    "a study that does not exist": (
        ["run", "no-such-study", "local"],
        "hpcaas run: " + str(ROOT / "ramble-workspaces/no-such-study/study.yaml") + ": (file): a study description",
        ("no-such-study", "local", "paper"),
    ),
    "a system that does not exist": (
        ["dry-run", "smoke", "no-such-system"],
        "hpcaas dry-run: configs/no-such-system/system.yaml: SYSTEM: an existing system (see ls configs/)",
        ("smoke", "no-such-system", "paper"),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_is_one_line_and_runs_nothing(project, case):
    args, first_words, (study, system, scale) = CASES[case]
    folder = place(study, system, scale).folder
    before = sorted(folder.iterdir()) if folder.exists() else None
    proc = subprocess.run([HPCAAS, *args], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert lines[0].startswith(first_words), lines[0]
    assert (sorted(folder.iterdir()) if folder.exists() else None) == before


def test_paper_scale_that_does_not_fit_points_to_the_small_preset(project):
    """OSU's paper scale needs a hostfile local-slurm does not have; its small preset runs there."""
    proc = subprocess.run(
        [HPCAAS, "reproduce", "osu-latency-bandwidth", "local-slurm"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert proc.stderr.strip().endswith(
        "its small preset runs there: make reproduce STUDY=osu-latency-bandwidth SYSTEM=local-slurm SCALE=small"
    ), proc.stderr


def test_a_broken_study_anywhere_is_named_by_the_lock_commands(tmp_path):
    """`hpcaas environments stale` (and make concretize, which reads the same pairs) on a tree with
    one unreadable study.yaml: the file and what is wrong, not a traceback."""
    root = tmp_path / "tree"
    (root / "ramble-workspaces/broken").mkdir(parents=True)
    (root / "ramble-workspaces/broken/study.yaml").write_text("question: [unclosed\n")
    for shared in ("configs", "environments", "spack-repo", "spack-config", "pins.env"):
        (root / shared).symlink_to(ROOT / shared)
    for study in (ROOT / "ramble-workspaces").glob("*/study.yaml"):
        (root / "ramble-workspaces" / study.parent.name).mkdir(exist_ok=True)
        (root / "ramble-workspaces" / study.parent.name / "study.yaml").symlink_to(study)
    proc = subprocess.run(
        [HPCAAS, "environments", "stale"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "HPCAAS_ROOT": str(root)},
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    broken = root / "ramble-workspaces/broken/study.yaml"
    assert proc.stderr.startswith(f"hpcaas environments: {broken}: (file): valid YAML"), proc.stderr
