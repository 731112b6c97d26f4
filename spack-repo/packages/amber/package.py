from spack.package import *
from spack.pkg.builtin.amber import Amber as BuiltinAmber


class Amber(BuiltinAmber):
    """Amber (pmemd), as Spack's builtin recipe, with instructions naming the licensed files.

    The builtin recipe looks for Amber<v>.tar.bz2 and AmberTools<w>.tar.bz2 in the directory
    Spack runs from; a mirror is the reproducible place for them, and Spack names mirror files
    after the package, not after Amber's tarballs, so the message below gives both names.
    """

    maintainers("hpcaas-bench")

    # AmberTools release bundled with each Amber version (the builtin recipe's resources).
    ambertools_for = {"20": "21", "18": "19", "16": "16"}

    @property
    def download_instr(self):
        version = str(self.spec.version)
        tools = self.ambertools_for.get(version, "<n>")
        return (
            f"Amber {version} is licensed and cannot be downloaded by Spack. Get Amber{version}.tar.bz2 "
            f"(https://ambermd.org/GetAmber.php) and AmberTools{tools}.tar.bz2 (same page), then copy "
            f"them into the project's Spack mirror as mirror/amber/amber-{version}.tar.bz2 and "
            f"mirror/amber/AmberTools-{version}.tar.bz2 (their sha256 must match the recipe), "
            f"or run `spack install` from the directory that holds both files."
        )
