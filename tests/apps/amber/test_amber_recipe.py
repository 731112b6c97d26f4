"""Amber is licensed: Spack cannot download it, so the recipe's download instructions (what
`spack install` prints when the files are missing) must name both tarballs, where to put them in
the project's mirror, and the sha256 Spack will check for each (the builtin recipe's version and
AmberTools resource)."""

from testkit import run

SCRIPT = """
import spack.repo
import spack.spec
for version in ("20", "18"):
    pkg = spack.repo.PATH.get_pkg_class("amber")(spack.spec.Spec(f"amber@={version}"))
    print(pkg.download_instr)
"""


def test_download_instructions_name_both_files_their_mirror_paths_and_sha256(project, tmp_path):
    script = tmp_path / "instr.py"
    script.write_text(SCRIPT)
    amber20, amber18 = run(f"spack python {script}").stdout.strip().split("\n")
    for text, version, tools, sha, tools_sha in (
        (
            amber20,
            "20",
            "21",
            "a4c53639441c8cc85adee397933d07856cc4a723c82c6bea585cd76c197ead75",
            "f55fa930598d5a8e9749e8a22d1f25cab7fcf911d98570e35365dd7f262aaafd",
        ),
        (
            amber18,
            "18",
            "19",
            "2060897c0b11576082d523fb63a51ba701bc7519ff7be3d299d5ec56e8e6e277",
            "0c86937904854b64e4831e047851f504ec45b42e593db4ded92c1bee5973e699",
        ),
    ):
        assert f"Amber{version}.tar.bz2 (sha256 {sha})" in text
        assert f"AmberTools{tools}.tar.bz2 (sha256 {tools_sha})" in text
        assert f"mirror/amber/amber-{version}.tar.bz2" in text
        assert f"mirror/amber/AmberTools-{version}.tar.bz2" in text
