# SPDX-License-Identifier: MIT
"""Reading amx-bench CSVs, for the scripts beside this file."""
import csv


def read(path, columns):
    """The rows of amx-bench CSV @path as dicts of strings.

    Raises OSError when it cannot be read, ValueError when it has no rows
    or lacks one of @columns."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise ValueError("no rows")
    missing = [c for c in columns if c not in rows[0]]
    if missing:
        raise ValueError("not an amx-bench CSV: no column " + ", ".join(missing))
    return rows
