"""Where figures of merit and criteria read, and how a number prints."""

# Where FOMs and criteria read (README item 3): Ramble's log of the experiment (its stdout and
# stderr), or the application's own results file, `results_file` in every application.
LOG = "{log_file}"
RESULTS = "{results_file}"

# A number as C's printf and Fortran print it: with or without a fraction or an exponent, digits
# on either side of the point or on one only (1, .5, 12., 1.0E+03); NUM signed or not (-2.5),
# UNSIGNED where a sign means "not measured" (HPCC's -1).
UNSIGNED = r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
NUM = r"[-+]?" + UNSIGNED
