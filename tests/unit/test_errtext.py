"""Every error code the emulator raises reaches the user with a text that
says what went wrong, not only "Informix error -NNN." (the server sends the
code, clients supply the words: errtext.py)."""

from __future__ import annotations

import re
from pathlib import Path

from informix_stream.errtext import _TEXTS, message_for

EMULATOR = Path(__file__).resolve().parents[2] / "src" / "informix_stream" / "emulator"
# -9730 appears only in a comment that says its text is unknown
NOT_RAISED = {-9730}


def _codes_in_emulator() -> dict[int, str]:
    codes: dict[int, str] = {}
    for path in EMULATOR.glob("*.py"):
        for m in re.finditer(r"(?<![\w.])-(\d{3,5})\b", path.read_text()):
            codes.setdefault(-int(m.group(1)), path.name)
    return codes


def test_every_code_the_emulator_raises_has_a_text() -> None:
    codes = _codes_in_emulator()
    assert len(codes) > 100                     # the scan found the emulator's codes
    missing = {c: f for c, f in codes.items() if c not in _TEXTS and c not in NOT_RAISED}
    assert missing == {}


def test_a_text_takes_the_name_the_server_sent() -> None:
    assert message_for(-324, "id") == "Column name id is ambiguous."
    assert message_for(-9660) == "The operation failed: the JSON document is not valid."
    assert message_for(-12345) == "Informix error -12345."
