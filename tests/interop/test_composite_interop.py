"""Interop for ROW, SET, MULTISET and LIST (issue 12 item 4): informix-driver
reads composite columns through the emulator as it does from a real server
(``RowValue``/``CollectionValue`` holding the value's text form, its
_resultset.py), and that text is the value our driver returns.  IBM's JDBC
reads composites in its binary form (``IfxComplex``), which the emulator does
not send yet: that scenario is an expected failure until it does.
"""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

import informix_db
import pytest

import informix_stream
from informix_stream.codec import composite as cc

pytestmark = pytest.mark.timeout(120)

COLUMNS = ("id INT, s SET(INT NOT NULL), m MULTISET(VARCHAR(10) NOT NULL),"
           " l LIST(DECIMAL(6,2) NOT NULL), r ROW(a INT, b VARCHAR(10)), tail VARCHAR(10)")
ROWS = ["(1, SET{3,1}, MULTISET{'a','a'}, LIST{1.5,2}, ROW(7,'it''s'), 'xyz')",
        "(2, NULL, NULL, NULL, NULL, 'after')"]


def _ours(target: Any) -> informix_stream.Connection:
    return informix_stream.connect(host=target.host, port=target.port, user=target.user,
                                   password=target.password, database=target.database,
                                   server=target.server, autocommit=True, read_timeout=60)


@pytest.fixture
def table(ifx_target: Any):
    name = f"cmp_{uuid.uuid4().hex[:10]}"
    with _ours(ifx_target) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {name} ({COLUMNS})")
        for values in ROWS:
            cur.execute(f"INSERT INTO {name} VALUES {values}")
    yield name
    with _ours(ifx_target) as conn:
        conn.cursor().execute(f"DROP TABLE {name}")


def test_informix_driver_reads_what_our_driver_reads(ifx_target: Any, table: str) -> None:
    with _ours(ifx_target) as conn:
        cur = conn.cursor()
        cur.execute(f"SELECT s, m, l, r, tail FROM {table} ORDER BY id")
        ours = cur.fetchall()
        types = [cc.composite_type(d) for d in
                 ("SET(INT NOT NULL)", "MULTISET(VARCHAR(10) NOT NULL)",
                  "LIST(DECIMAL(6,2) NOT NULL)", "ROW(a INT, b VARCHAR(10))")]
    assert ours[0] == ({1, 3}, ["a", "a"], [Decimal("1.50"), Decimal("2.00")], (7, "it's"),
                       "xyz")
    assert ours[1] == (None, None, None, None, "after")
    conn2 = informix_db.connect(host=ifx_target.host, port=ifx_target.port,
                                user=ifx_target.user, password=ifx_target.password,
                                database=ifx_target.database, server=ifx_target.server,
                                autocommit=True, read_timeout=60, connect_timeout=30)
    try:
        cur2 = conn2.cursor()
        cur2.execute(f"SELECT s, m, l, r, tail FROM {table} ORDER BY id")
        theirs = cur2.fetchall()
        described = [(d[0], d[1]) for d in cur2.description]
    finally:
        conn2.close()
    assert described == [("s", 19), ("m", 20), ("l", 21), ("r", 22), ("tail", 13)]
    first, second = theirs
    assert isinstance(first[3], informix_db.RowValue)
    assert [v.kind for v in first[:3]] == ["set", "multiset", "list"]
    # the same values, read from the text informix-driver was handed
    decoded = tuple(cc.value_decoder(t, "iso-8859-1")(v.raw) for t, v in zip(types, first))
    assert decoded + (first[4],) == ours[0]
    assert first[3].schema == "row(a integer,b varchar(10))"
    # NULL composites frame like a real server's: the next column is intact
    assert tuple(second) == (None, None, None, None, "after")
