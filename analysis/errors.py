"""The one error type for bad input: it names the file, the key (or column) and the fix."""


class InputError(Exception):
    """Bad user input. The CLI prints str(self) on one line and exits with status 2."""

    def __init__(self, file, key, expected):
        self.file, self.key, self.expected = str(file), str(key), str(expected)
        super().__init__(f"{self.file}: {self.key}: {self.expected}")
