"""Rewrite known_failures.txt from a run of the suite (a maintainer's tool).

    PYTHONPATH=src python -m pytest tests/sqla -q -p no:randomly -rfE > run.txt
    python tests/sqla/known_failures.py run.txt

None fail today (688 passed, 729 skipped at the commit that emptied the
list).  Exclusions, each with its reason, are in requirements.py and
conftest.py (NOT_INFORMIX); the list makes any new failure visible.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
_ID = re.compile(r"^(?:FAILED|ERROR) (tests/sqla/\S+)")


def normalise(nodeid: str) -> str:
    """Drop the server-version suffix SQLAlchemy adds to class names."""
    return re.sub(r"_informix\+[A-Za-z_]+_[0-9_]+::", "::", nodeid)


def outcomes(text: str) -> set[str]:
    """Node ids of failed and errored tests in pytest's -rfE summary."""
    return {normalise(m.group(1)) for line in text.splitlines() if (m := _ID.match(line))}


def main(path: str) -> None:
    ids = sorted(outcomes(Path(path).read_text()))
    (HERE / "known_failures.txt").write_text(
        "# Tests of SQLAlchemy's suite that fail today (see known_failures.py).\n"
        "# tests/test_sqla_suite.py fails on a failure not listed here and on a\n"
        "# listed test that passes (then remove it).\n" + "\n".join(ids) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
