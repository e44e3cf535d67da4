"""Adversary round 7c (issue 9): the CHAR regex cut and the BOOLEAN block
form (codec/textblock.py, codec/rowblock.py) under a real streaming cursor:
line ends, NEL, U+2028 and regex metacharacters stored in CHAR columns of
the emulator and read back through small fetch buffers in a one-byte code
set and in UTF-8; and a scripted server (faults.hostile) answering a later
fetch with BOOLEAN cells of the odd forms a block must not misread (a
7+5-byte pair, a NULL flag in 6 bytes, 't') -- the rows are the reference
decoder's, every row arrives once, and the connection stays usable."""

from __future__ import annotations

import struct

import pytest

import informix_stream as ifx
from faults.bent_rows import read_until_error, serve_in_later_fetch
from faults.emu import PASSWORD, USER, connect
from informix_stream.codec.rowdecode_ref import reference_decoder
from informix_stream.codecs import parse_type
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(60)

TEXTS = ["a\nb", "\r\n", ".*$^()", "\\1(?", "x|y{2}", "plain", "\u00e9\u00e8", "\x85z"]


@pytest.fixture(scope="module")
def emulator():
    with EmulatorServer(databases={"l1": "en_US.819", "u8": "en_US.utf8"}) as srv:
        yield srv


def _value(i: int, utf8: bool) -> str | None:
    """Row i's CHAR(12) text (None: NULL): line ends, metacharacters, NEL,
    and U+2028 in UTF-8."""
    if i % 11 == 3:
        return None
    return TEXTS[i % len(TEXTS)] + ("\u2028" if utf8 and i % 5 == 0 else "") + str(i)


@pytest.mark.parametrize("database", ["l1", "u8"])
def test_line_ends_and_metacharacters_stream_back_exactly(emulator, database):
    utf8 = database == "u8"
    conn = ifx.connect(host="127.0.0.1", port=emulator.port, user=USER, password=PASSWORD,
                       database=database, autocommit=True, read_timeout=30,
                       connect_timeout=10, **({"client_locale": "en_US.utf8"} if utf8 else {}))
    with conn:
        cur = conn.cursor()
        cur.execute("CREATE TEMP TABLE t (k INTEGER, a CHAR(12), b BOOLEAN, c CHAR(1))")
        rows = [(i, _value(i, utf8), None if i % 7 == 2 else bool(i & 1),
                 None if i % 13 == 0 else "\n" if i & 1 else ".") for i in range(400)]
        cur.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", rows)
        stream = conn.cursor(fetch_buffer_size=1024)
        stream.execute("SELECT k, a, b, c FROM t ORDER BY k")
        got = stream.fetchall()

    def padded(text: str | None) -> str | None:
        if text is None:
            return None
        return text + " " * (12 - len(text.encode("utf-8" if utf8 else "iso-8859-1")))
    assert got == [(k, padded(a), b, c) for k, a, b, c in rows]


_TYPES = [parse_type(t) for t in ("integer", "boolean", "boolean", "char(4)")]
_COMMON = [b"\x00\x00\x00\x00\x01\x00", b"\x00\x00\x00\x00\x01\x01"]
_ODD = {
    "seven-then-null": b"\x00\x00\x00\x00\x02\x01\x00" + b"\x01\x00\x00\x00\x00",
    "null-then-seven": b"\x01\x00\x00\x00\x00" + b"\x00\x00\x00\x00\x02\x00\x01",
    "null-flag-in-six": b"\x01\x00\x00\x00\x01\x01" + _COMMON[1],
    "t-and-ff": b"\x00\x00\x00\x00\x01t" + b"\x00\x00\x00\x00\x01\xff",
}


def _image(i: int, pair: bytes | None = None) -> bytes:
    pair = pair if pair is not None else _COMMON[i & 1] + _COMMON[(i >> 1) & 1]
    return struct.pack("!i", i) + pair + b"r\n%02d" % (i % 100)


@pytest.mark.parametrize("odd", list(_ODD))
def test_odd_boolean_cells_in_a_later_reply_read_as_the_reference(hostile, odd):
    conn = connect(hostile, autocommit=True, connect_timeout=10, read_timeout=10)
    cur = conn.cursor()
    cur.execute("CREATE TABLE b (k INTEGER, x BOOLEAN, y BOOLEAN, s CHAR(4))")
    cur.executemany("INSERT INTO b VALUES (?, ?, ?, ?)",
                    [(i, bool(i & 1), bool((i >> 1) & 1), "r\n%02d" % (i % 100))
                     for i in range(300)])
    images = [_image(i) for i in range(100, 240)]
    for at in (0, 31, 32, 77, 139):               # block edges and the last row
        images[at] = _image(100 + at, _ODD[odd])
    serve_in_later_fetch(hostile, images)
    cur = conn.cursor(fetch_buffer_size=2048)
    cur.execute("SELECT * FROM b ORDER BY k")
    got, error = read_until_error(cur, 1000)
    assert error is None
    reference = reference_decoder(_TYPES)
    # the first reply is the emulator's (rows 0..first-1), the next one the
    # served 140 rows, whose SQ_DONE ends the cursor
    first = next(i for i, r in enumerate(got) if r[0] != i)
    assert 0 < first < 300
    assert got[:first] == [reference(_image(i))[0] for i in range(first)]
    served = [reference(m)[0] for m in images]
    assert got[first:] == served
    assert got[first + 32][1] is (None if odd.startswith("null") else True)
    hostile.tamper = None
    assert not conn.closed
    check = conn.cursor()
    check.execute("SELECT COUNT(*) FROM b")
    assert check.fetchone() == (300,)
    conn.close()
