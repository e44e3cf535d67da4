"""Adversary round 6: a server that sends an impossible DECIMAL, MONEY,
INTERVAL or DATETIME (of qualifiers other than YEAR TO SECOND) mid-reply,
to a streaming cursor whose fetches now go through the block decoder's
column forms (codec/civilblock.py, branch s23b; codec/packedcolumns.py,
branch s23c).

Whatever row of a reply holds the cell (its first, a middle one, its
last), the caller gets the DataError the reference converter words for
it, the rows of the earlier replies, none of that reply's, and a
connection that still answers; never a value.  test_civil_replies.py
covers DATE and YEAR TO SECOND; this covers the types s23c made column
forms for and the other DATETIME shapes.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

import informix_stream as ifx
from faults.bent_rows import bent, read_until_error, reference_error, serve_in_later_fetch
from faults.emu import connect
from informix_stream.codecs import make_row_encoder, parse_type

pytestmark = pytest.mark.timeout(60)

_DDL = ("CREATE TABLE p (id INTEGER, d DECIMAL(16,2), m MONEY(8,2), f DECIMAL(10), "
        "iv INTERVAL DAY(9) TO SECOND, md DATETIME MONTH TO DAY, "
        "hf DATETIME HOUR TO FRACTION(3))")
_TYPES = [parse_type(t) for t in ("integer", "decimal(16,2)", "money(8,2)", "decimal(10)",
                                  "interval day(9) to second", "datetime month to day",
                                  "datetime hour to fraction(3)")]
# offsets in the row image: id 0..3, d 4..12 (head + 8 pairs), m 13..17,
# f 18..24, iv 25..33 (head, 5 day pairs, h, m, s), md 34..36 (head, month,
# day), hf 37..42 (head, h, m, s, 2 fraction pairs)
_AT = {"d": 4, "m": 13, "f": 18, "iv": 25, "md": 34, "hf": 37}


def _row(i: int) -> tuple:
    sign = -1 if i % 3 == 0 else 1
    return (i, Decimal(sign * (12345 + 1000 * i)).scaleb(-2), Decimal(i * 7).scaleb(-2),
            Decimal(sign * (i + 1)) * Decimal("1.25"),
            dt.timedelta(days=i * 11, seconds=i * 37),
            dt.date(2000, 1 + i % 12, 1 + i % 28),
            dt.time(i % 24, i % 60, i % 60, (i % 1000) * 1000))


def _image(row: tuple) -> bytes:
    return make_row_encoder(_TYPES)(row)


_BENT = {
    "decimal-pair-over-99": ("d", 3, bytes((100,))),
    "money-pair-255": ("m", 2, bytes((255,))),
    "floating-pair-over-99": ("f", 1, bytes((163,))),
    "interval-days-past-timedelta": ("iv", 1, bytes((99, 99, 99, 99, 99))),
    "interval-hour-pair-over-99": ("iv", 6, bytes((100,))),
    "month-to-day-february-30": ("md", 1, bytes((2, 30))),
    "month-to-day-month-13": ("md", 1, bytes((13,))),
    "month-to-day-april-31": ("md", 1, bytes((4, 31))),
    "hour-to-fraction-hour-24": ("hf", 1, bytes((24,))),
    "hour-to-fraction-fraction-pair-100": ("hf", 4, bytes((100,))),
}


@pytest.mark.parametrize("where", [0, 70, 139])
@pytest.mark.parametrize("case", list(_BENT))
def test_streaming_cursor_gets_the_reference_error(hostile, case, where):
    conn = connect(hostile, autocommit=True, connect_timeout=10, read_timeout=10)
    cur = conn.cursor()
    cur.execute(_DDL)
    cur.executemany("INSERT INTO p VALUES (?, ?, ?, ?, ?, ?, ?)", [_row(i) for i in range(300)])
    cur.execute("SELECT * FROM p WHERE id = 140")
    assert cur.fetchone() == _row(140)           # the emulator keeps these types as given
    column, offset, value = _BENT[case]
    images = [_image(_row(i)) for i in range(100, 240)]
    images[where] = bent(images[where], _AT[column] + offset, value)
    wanted = reference_error(_TYPES, images[where])
    serve_in_later_fetch(hostile, images)
    cur = conn.cursor(fetch_buffer_size=2048)
    cur.execute("SELECT * FROM p ORDER BY id")
    got, error = read_until_error(cur, 400)
    assert isinstance(error, ifx.DataError) and str(error) == wanted
    assert got == [_row(i) for i in range(len(got))] and 0 < len(got) < 300
    hostile.tamper = None
    check = conn.cursor()
    check.execute("SELECT COUNT(*), SUM(d) FROM p")
    assert check.fetchone() == (300, sum(r[1] for r in map(_row, range(300))))
    conn.close()
