import os

from spack.package import *
from spack.pkg.builtin.amber import Amber as BuiltinAmber


class Amber(BuiltinAmber):
    """Amber (pmemd), as Spack's builtin recipe, with instructions naming the licensed files.

    The builtin recipe looks for Amber<v>.tar.bz2 and AmberTools<w>.tar.bz2 in the directory
    Spack runs from; a mirror is the reproducible place for them, and Spack names mirror files
    after the package, not after Amber's tarballs, so the message below gives both names and
    the sha256 the builtin pins for each (its versions and AmberTools resources).
    """

    maintainers("hpcaas-bench")

    @property
    def download_instr(self):
        version = str(self.spec.version)
        sha256 = self.versions.get(self.spec.version, {}).get("sha256", "see `spack info amber`")
        # The AmberTools tarball the builtin adds as a resource for this version.
        tools = [
            r.fetcher
            for when, rs in self.resources.items()
            if self.spec.satisfies(when)
            for r in rs
            if r.name == "AmberTools"
        ]
        tools_file = os.path.basename(tools[0].url) if tools else "AmberTools<n>.tar.bz2"
        tools_sha256 = tools[0].digest if tools else "see `spack info amber`"
        return (
            f"Amber {version} is licensed and cannot be downloaded by Spack. Get Amber{version}.tar.bz2 "
            f"(sha256 {sha256}) and {tools_file} (sha256 {tools_sha256}) from "
            f"https://ambermd.org/GetAmber.php, then copy them into the project's Spack mirror as "
            f"mirror/amber/amber-{version}.tar.bz2 and mirror/amber/AmberTools-{version}.tar.bz2, "
            f"or run `spack install` from the directory that holds both files. Spack also applies "
            f"Amber's bugfix updates from ambermd.org/bugfixes/{version}.0/: offline, make the mirror "
            f"on a connected machine (`spack mirror create -d mirror amber@{version}` from that directory)."
        )
