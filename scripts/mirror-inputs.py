"""The inputs of our Ramble applications that a git repository can serve, one tab-separated line
each: repository URL, commit, path in the repository, sha256, path in a Ramble mirror.
Run by scripts/mirror.sh as `ramble python scripts/mirror-inputs.py`.

An input whose URL is a file of a GitHub repository at a full commit
(https://raw.githubusercontent.com/<owner>/<repo>/<commit>/<path>) and that has a sha256 is the
blob <commit>:<path> of https://github.com/<owner>/<repo>.git, which git reaches through the
same url.<snapshot>.insteadOf mapping as the pinned sources. The mirror path is the one Ramble
looks the input up by (ramble.mirror.mirror_archive_paths, the cosmetic <application>/<file>)."""

import os
import re

import ramble.fetch_strategy
import ramble.mirror
import ramble.repository as r
import spack.util.compression

RAW = re.compile(r"https://raw\.githubusercontent\.com/([^/]+)/([^/]+)/([0-9a-f]{40})/(.+)")

repo = next(x for x in r.paths[r.ObjectTypes.applications].repos if x.namespace == "hpcaas")
for name in sorted(repo.all_object_names()):
    cls = repo.get_obj_class(name)
    for _input_name, conf in sorted(cls.inputs.items()):
        match = RAW.fullmatch(conf.get("url") or "")
        if not match or not conf.get("sha256"):
            continue
        owner, project, commit, path = match.groups()
        # As Ramble builds the input's fetcher and names it (Application._inputs_and_fetchers):
        # by the URL's file name less its archive extension, not by the input's name.
        fetcher = ramble.fetch_strategy.URLFetchStrategy(**conf)
        file_name = os.path.basename(conf["url"])
        if not fetcher.extension:
            fetcher.extension = spack.util.compression.extension(file_name)
        file_name = file_name.replace(f".{fetcher.extension}", "")
        ref = ramble.mirror.mirror_archive_paths(fetcher, os.path.join(name, file_name))
        url = f"https://github.com/{owner}/{project}.git"
        print("\t".join([url, commit, path, conf["sha256"], ref.cosmetic_path]))
