import os

from spack.package import *
from spack.pkg.builtin.openfoam import Openfoam as BuiltinOpenfoam


class Openfoam(BuiltinOpenfoam):
    """OpenFOAM (ESI), as Spack's builtin recipe, also usable as an external of Debian's openfoam
    package (S1 T7 builds the pinned release; this machine runs Debian's v1912).

    Not built here: Allwmake of v2312 took 1 h 03 min on 32 cores of an AMD EPYC node (EasyBuild's
    log in github.com/parsavares/HPCSE_End_Project, OpenFOAM-v2312-foss-2023a-2533383.out), i.e.
    ~30 core-hours, so 15 h or more on this machine's 2 cores (shared). Debian's binary is built
    against Open MPI only (libPstream links libmpi.so.40): it runs ^openmpi, never ^mpich.

    The builtin recipe expects an installation tree with etc/bashrc at the prefix. Debian's
    package puts the binaries in /usr/bin and the project tree in /usr/share/openfoam, whose
    bashrc calls helpers Debian does not ship (bin/foamEtcFile). For an external at prefix /usr,
    this recipe sets the variables OpenFOAM and Ramble's motorbike workload need instead.
    """

    maintainers("hpcaas-bench")

    @property
    def projectdir(self):
        debian_tree = join_path(self.prefix, "share", "openfoam")
        if self.spec.external and os.path.isfile(join_path(debian_tree, "etc", "controlDict")):
            return debian_tree
        return super().projectdir

    def setup_run_environment(self, env):
        if self.projectdir == self.prefix:
            super().setup_run_environment(env)
            return
        # Debian: without WM_PROJECT_DIR the utilities stop with "Could not find mandatory etc
        # entry 'controlDict'"; the tutorials come with the openfoam-examples package.
        env.set("WM_PROJECT_DIR", self.projectdir)
        env.set("FOAM_TUTORIALS", join_path(self.prefix, "share", "doc", "openfoam-examples", "examples"))
