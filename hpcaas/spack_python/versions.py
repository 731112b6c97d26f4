"""Where each package's pinned version comes from (a program for `spack python`, run by
hpcaas/catalog.py): reads {application: spec} from the JSON file given, writes
{application: {package, version, kind (git, tarball, licensed), ref, file, git}} to <file>.out."""

import json
import sys

import spack.repo
from spack.spec import Spec

with open(sys.argv[1]) as f:
    todo = json.load(f)
out = {}
for name, spec in todo.items():
    s = Spec(spec)
    cls = spack.repo.PATH.get_pkg_class(s.name)
    # The version Spack would pick: the first declared one the spec allows (not develop).
    version = next((v for v in cls.versions if v.satisfies(s.versions) and not v.isdevelop()), None)
    info = dict(cls.versions.get(version, {})) if version else {}
    version = str(version) if version else ""
    kind, ref = ("git", info["commit"]) if "commit" in info else ("tarball", info.get("sha256", ""))
    if getattr(cls, "manual_download", False):
        kind = "licensed"
    url = ""
    try:
        url = cls(Spec(f"{s.name}@{version}")).url_for_version(version) if kind != "git" else ""
    except Exception:  # a package without a URL scheme for this version
        pass
    out[name] = {
        "package": s.name,
        "version": version,
        "kind": kind,
        "ref": ref,
        "file": url.rsplit("/", 1)[-1] if url else "",
        "git": info.get("git") or getattr(cls, "git", ""),
    }
with open(sys.argv[1] + ".out", "w") as f:
    json.dump(out, f)
