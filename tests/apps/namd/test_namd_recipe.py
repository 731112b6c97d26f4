"""NAMD is licensed: Spack cannot download it, so the recipe's download instructions (what
`spack install` prints when the file is missing) must name the exact file to fetch, where to put
it in the project's mirror, and the sha256 Spack will check (the builtin recipe's)."""

from testkit import run

SCRIPT = """
import spack.repo
import spack.spec
pkg = spack.repo.PATH.get_pkg_class("namd")(spack.spec.Spec("namd@=3.0"))
print(pkg.manual_download)
print(pkg.download_instr)
"""


def test_download_instructions_name_the_file_its_mirror_path_and_sha256(project, tmp_path):
    script = tmp_path / "instr.py"
    script.write_text(SCRIPT)
    manual, instr = run(f"spack python {script}").stdout.split("\n", 1)
    assert manual == "True"
    assert "NAMD_3.0_Source.tar.gz" in instr
    assert "mirror/namd/namd-3.0.tar.gz" in instr
    assert "301c64f0f1db860f7336efdb26223ccf66b5ab42bfc9141df8d81ec1e20bf472" in instr
