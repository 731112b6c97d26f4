"""The git sources an environment's build will fetch (a program for `spack -e <env> python`):
every package of the lock not installed yet whose version comes from a git commit, as JSON
{url: [package, commit]} in the file given. Tarballs come from mirror/ or Spack's source cache
and are checked by their sha256 when fetched."""

import json
import sys

import spack.environment as ev
import spack.fetch_strategy as fs

out = {}
for spec in ev.active_environment().all_specs():
    if spec.external or spec.installed:
        continue
    try:
        fetcher = fs.for_package_version(spec.package, spec.version)
    except Exception:  # a package without code to fetch (a bundle), or a virtual
        continue
    if isinstance(fetcher, fs.GitFetchStrategy) and fetcher.commit:
        out[fetcher.url] = [spec.name, fetcher.commit]
with open(sys.argv[1], "w") as f:
    json.dump(out, f)
