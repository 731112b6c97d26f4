"""Each result its own (ramble-repo/README.md item 11): a result's identity is its full parameter
set plus its position, so no result of a log hides another.

Ramble names a result by its context, one regex match of one line ("Message Size: 8"), and keeps
one value of a FOM per name. Two things a name alone cannot tell apart:
- the same parameters run twice in one output (HPL.dat listing a value twice): where a context's
  name recurs in the file, each occurrence ends with its position among them ("WR00R2L4 N=1000
  NB=32 P=1 Q=2 #2");
- one output holding several sections of results of the same kind (LAMMPS' run blocks, IMB's
  tables, one per benchmark and process count): the lines that open a section are contexts of
  their own (the section contexts), whose names make the section's ("Uniband, 4 processes"),
  numbered where it recurs ("run #2"); every other context's name starts with the section's
  ("Uniband, 4 processes: Bytes: 1024 (Band)"), and FOMs that have no context of their own are
  in the section. A file with one section keeps the plain names (and those FOMs stay in
  Ramble's null context).

The application lists which of its contexts these are (`numbered_contexts`, `section_contexts`)
and puts ResultIdentity first among its bases. Ramble still matches every line and extracts every
value; this only names the contexts: Ramble formats a context's name with the format method of
its output_format, which here also numbers and qualifies.
"""

import os
import re
import string
from collections import Counter

from ramble.application import _NULL_CONTEXT

# Joins a section's name and a context's name ("Allreduce: Bytes: 1024 (Latency)"), the parts of
# a section's name ("Uniband, 4 processes"), and a name and its position among equal names (" #2").
SECTION_SEPARATOR = ": "
PART_SEPARATOR = ", "
POSITION = " #{}"
SECTION = None  # the key under which a file's sections' names are counted


def _name(match, fmt):
    return fmt.format(**{f: match[f] for _, f, _, _ in string.Formatter().parse(fmt) if f})


class _File:
    """What the contexts of one file share while Ramble reads it: how often each name occurs in
    the file and so far, and the section the current line is in."""

    def __init__(self, counts, sectioned, parts):
        self.counts, self.seen = counts, {}
        self.sectioned, self.parts = sectioned, [""] * parts
        self.section = None

    def numbered(self, context, name):
        seen = self.seen.setdefault(context, {})
        seen[name] = seen.get(name, 0) + 1
        return name + POSITION.format(seen[name]) if self.counts.get(context, {}).get(name, 0) > 1 else name


class _Name(str):
    """A context's output_format whose format() also numbers and qualifies the name. `part`:
    the context's place among the section contexts (the last one completes a section), or None."""

    def __new__(cls, fmt, context, file, numbered, part, last):
        obj = super().__new__(cls, fmt)
        obj.context, obj.file, obj.is_numbered, obj.part, obj.last = context, file, numbered, part, last
        return obj

    def format(self, *args, **kwargs):
        name = str.format(self, *args, **kwargs)
        file = self.file
        if self.part is not None:
            file.parts[self.part] = name
            if not self.last:
                return name
            if not file.sectioned:
                return _NULL_CONTEXT
            file.section = file.numbered(SECTION, PART_SEPARATOR.join(file.parts))
            return file.section
        if self.is_numbered:
            name = file.numbered(self.context, name)
        return file.section + SECTION_SEPARATOR + name if file.section else name


class ResultIdentity:
    """Mixin (first among the application's bases) naming results as the module says."""

    #: Contexts that name one result each (HPL's result line): a name that recurs in the file is
    #: numbered by its position among its occurrences.
    numbered_contexts = ()
    #: The contexts whose lines open a section of results, in the order they print (the last
    #: completes it): LAMMPS' memory line of each run; IMB's "# Benchmarking X", "# #processes = N".
    section_contexts = ()

    def _analysis_dicts(self, criteria_list):
        files, contexts, foms = super()._analysis_dicts(criteria_list)
        sections = list(self.section_contexts)
        for c in sections:
            conf = self.figure_of_merit_contexts[c]
            contexts.setdefault(
                c, {"regex": re.compile(self.expander.expand_var(conf["regex"])), "format": conf["output_format"]}
            )
        for path, file in files.items():
            if sections and file["foms"]:
                for f in file["foms"]:
                    if not foms[f]["contexts"]:
                        foms[f] = {**foms[f], "contexts": [sections[-1]]}
                file["contexts"] += sections
            # Ramble lists a context once per FOM that uses it, and formats its name that often
            # for each matching line: once is enough, and counts right.
            file["contexts"] = list(dict.fromkeys(file["contexts"]))
            numbered = [c for c in file["contexts"] if c in self.numbered_contexts]
            if not (sections or numbered) or not os.path.isfile(path):
                continue
            counts = self._counts(path, {c: contexts[c] for c in numbered + sections})
            share = _File(counts, sum(counts.get(SECTION, {}).values()) > 1, len(sections))
            for c in file["contexts"]:
                part = sections.index(c) if c in sections else None
                fmt = _Name(str(contexts[c]["format"]), c, share, c in numbered, part, part == len(sections) - 1)
                contexts[c] = {**contexts[c], "format": fmt}
        return files, contexts, foms

    def _counts(self, path, contexts):
        """How often each name of the numbered contexts, and of the sections, occurs in the file."""
        names = {c: [] for c in contexts}
        parts = [""] * len(self.section_contexts)
        names[SECTION] = []
        with open(path, errors="replace") as f:
            for line in f:
                for c, conf in contexts.items():
                    m = conf["regex"].match(line)
                    if not m:
                        continue
                    name = _name(m, str(conf["format"]))
                    names[c].append(name)
                    if c in self.section_contexts:
                        parts[self.section_contexts.index(c)] = name
                        if c == self.section_contexts[-1]:
                            names[SECTION].append(PART_SEPARATOR.join(parts))
        return {c: Counter(found) for c, found in names.items()}
