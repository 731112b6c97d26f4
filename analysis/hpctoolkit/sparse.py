"""HPCToolkit's sparse database (meta.db, profile.db, cct.db: hpcprof >= 2022.10) read with
hatchet's `from_hpctoolkit_latest` reader, keeping two things that reader drops: the load module
and source file of each function node, and who the profiles are (rank and thread of each).

hatchet reads the summary profile (values summed over all profiles): one row per calling-context
node, with `time (inc)` (HPCToolkit's "execution" scope) and `time` (its "function" scope).
"""

import os

from hatchet.readers.hpctoolkit_reader_latest import HPCToolkitReaderLatest


class _Reader(HPCToolkitReaderLatest):
    """hatchet's reader parses a function node's function right before it stores the node:
    keep that function's module and file on the node's frame."""

    _function = None

    def _parse_function(self, meta_db, pFunction):
        self._function = super()._parse_function(meta_db, pFunction)
        return self._function

    def _store_cct_node(self, ctxId, frame, parent=None):
        function, self._function = self._function, None
        if frame.get("type") == "function":
            function = function or {}
            module = self._load_modules.get(function.get("module_id"), {}).get("module_path", "")
            file = self._source_files.get(function.get("file_id"), {}).get("file_path", "")
            frame = {**frame, "module": module, "file": file}
        return super()._store_cct_node(ctxId, frame, parent)


def read_sparse(path):
    """hatchet GraphFrame of the summary profile; `.sparse_profiles`: rank and thread per profile."""
    reader = _Reader(
        path, label_function_nodes=False, metric_names=["time"], metric_scopes=["i", "e"], summary_metrics=["sum"]
    )
    gf = reader.read()
    reader._read_profiles_metadata()
    profiles = reader._profiles_metadata
    for level in ("rank", "thread"):  # a serial run has no rank; an unthreaded one may lack thread
        if level not in profiles.columns:
            profiles[level] = 0
    gf.sparse_profiles = profiles[["rank", "thread"]]
    return gf


def sparse_times(gf, is_mpi):
    """(inclusive, exclusive, file) per (function, module, in_mpi) key, in metric units.

    A function node's exclusive time is its inclusive time less that of the function nodes
    nearest below it (through its loops and lines): so exclusive times add up to the total even
    where hpcprof leaves a node's own "function"-scope value out (seen in Open MPI's libraries).
    Inclusive time counts each call path once: a function called under itself adds only its
    outermost instance. Time above any function node goes to "<no procedure>".
    """
    from collections import Counter, defaultdict

    df = gf.dataframe.fillna({"time (inc)": 0.0})
    inc = df["time (inc)"].to_dict()
    inclusive, exclusive, files = defaultdict(float), defaultdict(float), defaultdict(str)
    on_path = Counter()
    outside = ("<no procedure>", "", False)
    stack = [("enter", root, outside, False) for root in reversed(gf.graph.roots)]
    for root in gf.graph.roots:
        exclusive[outside] += inc.get(root, 0.0)
    while stack:
        action, node, owner, in_mpi = stack.pop()
        if action == "exit":
            on_path[node] -= 1
            continue
        frame = node.frame
        if frame["type"] == "function":
            name, module = frame["name"], os.path.basename(frame.get("module", ""))
            in_mpi = in_mpi or is_mpi(name, module)
            key = (name, module, in_mpi)
            files[key] = files[key] or frame.get("file", "")
            if not on_path[key]:
                inclusive[key] += inc.get(node, 0.0)
            on_path[key] += 1
            stack.append(("exit", key, None, None))
            exclusive[owner] -= inc.get(node, 0.0)
            exclusive[key] += inc.get(node, 0.0)
            owner = key
        stack.extend(("enter", child, owner, in_mpi) for child in reversed(node.children))
    if abs(exclusive[outside]) < 1e-12:
        del exclusive[outside]
    return inclusive, exclusive, files
