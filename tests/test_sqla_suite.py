"""SQLAlchemy's dialect compliance suite (tests/sqla) run as one test of the main suite.

tests/sqla is its own pytest session (SQLAlchemy's plugin owns it), so it
runs in a child process, bounded in time.  The test fails on any failure not
in tests/sqla/known_failures.txt and on any listed test that now passes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy", reason="the sqlalchemy extra is not installed")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "sqla"))
from known_failures import outcomes  # noqa: E402


def _known() -> set[str]:
    lines = (ROOT / "tests" / "sqla" / "known_failures.txt").read_text().splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def test_sqlalchemy_compliance_suite() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/sqla", "-q", "-p", "no:randomly", "-rfE"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    out = proc.stdout
    summary = out.strip().splitlines()[-1] if out.strip() else ""
    assert " passed" in summary, (out + proc.stderr)[-3000:]
    failed = outcomes(out)
    known = _known()
    assert not failed - known, f"new failures: {sorted(failed - known)[:20]}\n{summary}"
    assert not known - failed, f"listed but passing now: {sorted(known - failed)[:20]}"
