"""Interop for ROW, SET, MULTISET and LIST (issue 12 item 4): informix-driver
reads composite columns through the emulator as it does from a real server
(``RowValue``/``CollectionValue`` holding the value's text form, its
_resultset.py), and that text is the value our driver returns.  IBM's JDBC
asks composites in their binary form (SQ_RET_TYPE 44, ``IfxComplex``) and
reads from the emulator the same values as our driver (docs/protocol.md 10.7).
"""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

import informix_db
import pytest

from test_driver import connect
from informix_stream.codec import composite as cc


pytestmark = pytest.mark.timeout(120)

COLUMNS = ("id INT, s SET(INT NOT NULL), m MULTISET(VARCHAR(10) NOT NULL),"
           " l LIST(DECIMAL(6,2) NOT NULL), r ROW(a INT, b VARCHAR(10)), tail VARCHAR(10)")
ROWS = ["(1, SET{3,1}, MULTISET{'a','a'}, LIST{1.5,2}, ROW(7,'it''s'), 'xyz')",
        "(2, NULL, NULL, NULL, NULL, 'after')"]


@pytest.fixture
def table(ifx_target: Any):
    name = f"cmp_{uuid.uuid4().hex[:10]}"
    with connect(ifx_target, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {name} ({COLUMNS})")
        for values in ROWS:
            cur.execute(f"INSERT INTO {name} VALUES {values}")
    yield name
    with connect(ifx_target, autocommit=True) as conn:
        conn.cursor().execute(f"DROP TABLE {name}")


def test_informix_driver_reads_what_our_driver_reads(ifx_target: Any, table: str) -> None:
    with connect(ifx_target, autocommit=True) as conn:
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


# ------------------------------------------------------------- IBM's JDBC


def _render(value: Any) -> str:
    """Our driver's value in JdbcInterop.render()'s text (SET elements sorted)."""
    if value is None:
        return "NULL"
    if isinstance(value, tuple):
        return "ROW(" + ",".join(_render(v) for v in value) + ")"
    if isinstance(value, (set, frozenset)):
        return "{" + ",".join(sorted(_render(v) for v in value)) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_render(v) for v in value) + "]"
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, str):
        return f"'{value}'"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)   # int, float, datetime.date (ISO, as java.sql.Date prints)


NESTED_COLUMNS = ("id INT, ls LIST(SET(INT NOT NULL) NOT NULL), "
                  "sr SET(ROW(a INT, b CHAR(3)) NOT NULL), "
                  "rn ROW(x SMALLINT, y LIST(VARCHAR(8) NOT NULL), z ROW(p BOOLEAN, q DATE)), "
                  "mb MULTISET(BOOLEAN NOT NULL)")
NESTED_ROWS = ["(1, LIST{SET{2,1},SET{}}, SET{ROW(1,'ab'),ROW(NULL,'c')}, "
               "ROW(5, LIST{'x','yy'}, ROW('t', '03/04/2024')), MULTISET{'t','t','f'})",
               "(2, LIST{}, SET{ROW(3,NULL)}, ROW(NULL, NULL, NULL), NULL)"]


@pytest.fixture
def nested_table(ifx_target: Any):
    name = f"cmpn_{uuid.uuid4().hex[:10]}"
    with connect(ifx_target, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {name} ({NESTED_COLUMNS})")
        for values in NESTED_ROWS:
            cur.execute(f"INSERT INTO {name} VALUES {values}")
    yield name
    with connect(ifx_target, autocommit=True) as conn:
        conn.cursor().execute(f"DROP TABLE {name}")


@pytest.mark.parametrize("which", ["flat", "nested"])
def test_jdbc_reads_what_our_driver_reads(jdbc: Any, ifx_target: Any, table: str,
                                          nested_table: str, which: str) -> None:
    """JDBC asks composite columns in binary form (SQ_RET_TYPE 44); its
    getObject / getArray / Struct values equal our driver's, by a Statement
    and by a PreparedStatement, NULLs and nesting included."""
    if which == "flat":
        query = f"SELECT s, m, l, r, tail FROM {table} ORDER BY id"
        kinds = {1: "ARRAY", 2: "ARRAY", 3: "ARRAY", 4: "STRUCT"}
    else:
        query = f"SELECT ls, sr, rn, mb FROM {nested_table} ORDER BY id"
        kinds = {1: "ARRAY", 2: "ARRAY", 3: "STRUCT", 4: "ARRAY"}
    with connect(ifx_target, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(query)
        ours = cur.fetchall()
    records = jdbc.run(ifx_target, "composite", query).check().records
    assert not [r for r in records if r[0] == "ERROR"], records
    # JDBC's own mapping: collections are Types.OTHER (1111), ROW is STRUCT
    java_types = {"ARRAY": "1111", "STRUCT": "2002"}
    for how in ("stmt", "pstmt"):
        meta = {int(r[2]): r[3] for r in records if r[0] == "meta" and r[1] == how}
        assert all(meta[i] == java_types[k] for i, k in kinds.items()), meta
        rows = [r[2:] for r in records if r[0] == "row" and r[1] == how]
        expected = [[_render_jdbc(v) for v in row] for row in ours]
        assert [list(r) for r in rows] == expected
        # getArray gives the collection's elements, Struct its fields
        arrays = [r[3] for r in records if r[0] == "array" and r[1] == how]
        assert len(arrays) == sum(1 for _ in ours) * sum(k == "ARRAY" for k in kinds.values())
        structs = [r[3] for r in records if r[0] == "struct" and r[1] == how]
        assert all(s == "NULL" or s.startswith("[") for s in structs)
    # a scroll cursor read backwards from the last row gives the same values
    scrolled = [list(r[2:]) for r in records if r[0] == "scroll"]
    assert [int(r[1]) for r in records if r[0] == "scroll"] == list(range(len(ours), 0, -1))
    assert scrolled == [[_render_jdbc(v) for v in row] for row in reversed(ours)]


def _render_jdbc(value: Any) -> str:
    """As JDBC renders the column: a MULTISET comes back as a list in the
    server's order (our Multiset keeps it too), a SET as a sorted set."""
    if isinstance(value, cc.Multiset):
        return "[" + ",".join(_render(v) for v in value) + "]"
    return _render(value)


def test_named_row_type_read_by_both_outside_clients(jdbc: Any, ifx_target: Any) -> None:
    """A column of a named ROW type: described 22|0x1000 with the type's name;
    JDBC reads it (binary form) as a Struct of that type name and
    informix-driver gets its text form with the name as schema; our driver
    reads the fields from sysattrtypes (as JDBC's loadStructInfo does) and
    returns the same value as a named tuple."""
    tname, table = f"pt_{uuid.uuid4().hex[:8]}", f"np_{uuid.uuid4().hex[:8]}"
    with connect(ifx_target, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE ROW TYPE {tname} (name VARCHAR(20), age INT NOT NULL,"
                    " tags SET(INT NOT NULL))")
        cur.execute(f"CREATE TABLE {table} (id INT, who {tname})")
        cur.execute(f"INSERT INTO {table} VALUES (1, ROW('Al', 30, SET{{2,1}})::{tname})")
        cur.execute(f"INSERT INTO {table} VALUES (2, NULL)")
    try:
        query = f"SELECT who, id FROM {table} ORDER BY id"
        records = jdbc.run(ifx_target, "composite", query).check().records
        assert not [r for r in records if r[0] == "ERROR"], records
        for how in ("stmt", "pstmt"):
            assert ("meta", how, "1", "2002", tname) in records
            rows = [r[2:] for r in records if r[0] == "row" and r[1] == how]
            assert rows == [("ROW('Al',30,{1,2})", "1"), ("NULL", "2")]
        theirs = informix_db.connect(host=ifx_target.host, port=ifx_target.port,
                                     user=ifx_target.user, password=ifx_target.password,
                                     database=ifx_target.database, server=ifx_target.server,
                                     autocommit=True, read_timeout=60, connect_timeout=30)
        try:
            cur2 = theirs.cursor()
            cur2.execute(query)
            first, second = cur2.fetchall()
        finally:
            theirs.close()
        assert isinstance(first[0], informix_db.RowValue)
        assert first[0].schema == tname
        shape = cc.parse_shape("ROW(name VARCHAR(20), age INT NOT NULL, tags SET(INT NOT NULL))")
        assert cc.parse_value(shape, first[0].raw.decode()) == ("Al", 30, {1, 2})
        assert tuple(second) == (None, 2)
        with connect(ifx_target, autocommit=True) as conn:
            cur = conn.cursor()
            cur.execute(query)
            mine = cur.fetchall()
        assert mine == [(("Al", 30, {1, 2}), 1), (None, 2)]
        assert mine[0][0]._fields == ("name", "age", "tags")
        assert _render(mine[0][0]) == "ROW('Al',30,{1,2})"
    finally:
        with connect(ifx_target, autocommit=True) as conn:
            conn.cursor().execute(f"DROP TABLE {table}")
            conn.cursor().execute(f"DROP ROW TYPE {tname} RESTRICT")
