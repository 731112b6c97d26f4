"""make setup: pinned tools at their pins, config kept in the project, idempotent."""

import re
import subprocess

from testkit import ROOT, run


def pins():
    values = {}
    for line in (ROOT / "pins.env").read_text().splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key] = value
    return values


def test_pins_are_full_commits_of_upstream_urls():
    p = pins()
    assert p["SPACK_URL"] == "https://github.com/spack/spack.git"
    assert p["RAMBLE_URL"] == "https://github.com/GoogleCloudPlatform/ramble.git"
    for key in ("SPACK_COMMIT", "RAMBLE_COMMIT"):
        assert re.fullmatch(r"[0-9a-f]{40}", p[key]), key


def test_tools_are_checked_out_at_the_pins(project):
    p = pins()
    for tool, key in (("spack", "SPACK_COMMIT"), ("ramble", "RAMBLE_COMMIT")):
        head = subprocess.run(
            ["git", "-C", str(ROOT / ".tools" / tool), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        assert head == p[key], tool


def test_setup_env_puts_pinned_spack_and_ramble_on_path(project):
    p = pins()
    out = run("spack --version && ramble --version && ramble repo list").stdout
    assert f"0.23.1 ({p['SPACK_COMMIT']})" in out
    assert f"({p['RAMBLE_COMMIT']})" in out
    assert str(ROOT / "ramble-repo") in out


def test_spack_sees_our_repo_and_mirror_and_no_home_config(project, tmp_path):
    # With HOME elsewhere, nothing may appear under it: config lives in the project.
    proc = run("spack repo list && spack mirror list && spack config blame config", env={"HOME": str(tmp_path)})
    assert str(ROOT / "spack-repo") in proc.stdout
    assert f"file://{ROOT}/mirror" in proc.stdout
    assert str(ROOT / "spack-config" / "config.yaml") in proc.stdout
    assert not (tmp_path / ".spack").exists()
    assert not (tmp_path / ".ramble").exists()


def test_second_setup_clones_and_installs_nothing(project):
    proc = subprocess.run(["make", "setup"], cwd=ROOT, capture_output=True, text=True, check=True)
    said = proc.stdout + proc.stderr
    for step in ("cloning", "creating the venv", "installing Debian packages", "mirror:", "make system"):
        assert step not in said, f"second make setup repeated '{step}':\n{said}"


def test_unreachable_pin_names_the_url_and_the_mirror_fix(tmp_path):
    # A copy of the scripts with an unreachable URL: setup must stop and say how to mirror.
    (tmp_path / "scripts").mkdir()
    for f in ("lib.sh", "tools.sh"):
        (tmp_path / "scripts" / f).write_text((ROOT / "scripts" / f).read_text())
    (tmp_path / "pins.env").write_text(
        "SPACK_URL=https://invalid.example/spack.git\nSPACK_COMMIT="
        + "0" * 40
        + "\nRAMBLE_URL=https://invalid.example/ramble.git\nRAMBLE_COMMIT="
        + "0" * 40
        + "\n"
    )
    proc = subprocess.run(
        ["bash", str(tmp_path / "scripts" / "tools.sh")],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"},
    )
    assert proc.returncode != 0
    assert "https://invalid.example/spack.git" in proc.stderr
    assert "insteadOf" in proc.stderr


def test_a_new_clone_reuses_the_machines_description(project, tmp_path):
    """make setup in a new clone: the machine described once is copied, not asked of Spack again
    (the description is kept per machine fingerprint in the cache)."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    subprocess.run(["make", "setup"], cwd=clone, capture_output=True, text=True, check=True)
    first = (clone / "configs/local/system.yaml").read_text()
    subprocess.run(["rm", "-rf", str(clone / "configs/local"), str(clone / "configs/local-slurm")], check=True)
    proc = subprocess.run(["make", "setup"], cwd=clone, capture_output=True, text=True, check=True)
    assert "configs/local/ as this machine was described before" in proc.stdout + proc.stderr
    assert "spack compiler find" not in proc.stdout + proc.stderr
    assert (clone / "configs/local/system.yaml").read_text() == first
    assert (clone / "configs/local-slurm/spack").resolve() == (clone / "configs/local/spack").resolve()
