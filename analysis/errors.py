"""The one error type for bad input: it names the file, the key (or column) and the fix."""


class InputError(Exception):
    """Bad user input. The CLI prints str(self) on one line and exits with status 2."""

    def __init__(self, file, key, expected):
        self.file, self.key, self.expected = str(file), str(key), str(expected)
        super().__init__(f"{self.file}: {self.key}: {self.expected}")


def listed(rows, file, section: str, what: str):
    """(key, row) for each row of a non-empty list section of a file (`section.<i>`), or
    InputError naming the section."""
    if not isinstance(rows, list) or not rows:
        raise InputError(file, section, what)
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise InputError(file, f"{section}.{i}", "a mapping")
        yield f"{section}.{i}", row
