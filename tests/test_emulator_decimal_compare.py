"""Comparisons between DECIMAL/MONEY values of every storage form, judged by
Python's Decimal.

The emulator holds a DECIMAL(p <= 15) as a REAL, a wider one as exact text
collated by ifx_decimal, computed decimal arithmetic as exact text, integers
and floats natively (emulator/engine.py).  SQLite compares a REAL with a
TEXT-affinity column as text, so ``3.00 = 3`` between DECIMAL(10,2) and
DECIMAL(32,10) columns came out false: a silently wrong answer.  A real
server compares the numbers (Guide to SQL: Syntax, "Relational Operator":
numeric values compare by value whatever their numeric types), so every
comparison here must agree with Decimal comparison of the stored values.

Two tables hold the same values in a column of each form; each test compares
a column (or a computed value, a scalar subquery, an IN list or subquery) of
one with one of the other and checks which row pairs come back.
"""

from __future__ import annotations

import operator
import uuid
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import informix_db
import pytest

import informix_stream

def _places(v: Decimal) -> int:
    """Digits after the point (the VALUES below are written without trailing zeros)."""
    return max(0, -int(v.as_tuple().exponent))


# A column of each storage form: name -> (type, can it hold a value?)
COLUMNS: dict[str, tuple[str, Callable[[Decimal], bool]]] = {
    "r": ("DECIMAL(10,2)", lambda v: abs(v) < 10**8 and _places(v) <= 2),
    "m": ("MONEY(8,2)", lambda v: abs(v) < 10**6 and _places(v) <= 2),
    "w": ("DECIMAL(32,10)", lambda v: abs(v) < 10**22 and _places(v) <= 10),
    "wm": ("MONEY(24,2)", lambda v: abs(v) < 10**22 and _places(v) <= 2),
    "fd": ("DECIMAL(20)", lambda v: len(v.as_tuple().digits) <= 20),
    "i": ("INTEGER", lambda v: _places(v) == 0 and abs(v) < 2**31),
    "bi": ("BIGINT", lambda v: _places(v) == 0 and abs(v) < 2**63),
    "f": ("FLOAT", lambda v: True),
}
# One row per value; a column that cannot hold a value holds NULL.
VALUES = [Decimal(v) for v in ("3", "3.5", "-2.25", "0.1", "0", "12345.67",
                               "1234567890123456789", "1234567890123456789.5")] + [None]
OPS: dict[str, Callable[[Any, Any], bool]] = {
    "=": operator.eq, "<>": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _as_decimal(v: object) -> Decimal | None:
    if v is None:
        return None
    return Decimal(repr(v)) if isinstance(v, float) else Decimal(v)


@pytest.fixture(scope="module")
def conn(ifx_target: Any) -> Iterator[informix_stream.Connection]:
    c = informix_stream.connect(host=ifx_target.host, port=ifx_target.port,
                                user=ifx_target.user, password=ifx_target.password,
                                database=ifx_target.database, server=ifx_target.server,
                                autocommit=True, read_timeout=30)
    yield c
    c.close()


@pytest.fixture(scope="module")
def tables(conn: informix_stream.Connection) -> Iterator[tuple[str, str, dict]]:
    """Tables a and b with the same rows; returns their names and, per
    column, {id: the stored value as a Decimal (None for NULL)}."""
    suffix = uuid.uuid4().hex[:8]
    names = (f"dca_{suffix}", f"dcb_{suffix}")
    cur = conn.cursor()
    decl = ", ".join(f"{c} {t}" for c, (t, _) in COLUMNS.items())
    for name in names:
        cur.execute(f"CREATE TABLE {name} (id INTEGER, {decl})")
        for k, v in enumerate(VALUES):
            row = [k] + [v if v is not None and fits(v) else None
                         for _, fits in COLUMNS.values()]
            row = [float(x) if c == "f" and x is not None else x
                   for c, x in zip(["id", *COLUMNS], row)]
            cur.execute(f"INSERT INTO {name} VALUES ({', '.join('?' * len(row))})", row)
    cur.execute(f"SELECT id, {', '.join(COLUMNS)} FROM {names[0]}")
    stored = {c: {} for c in COLUMNS}
    for row in cur.fetchall():
        for c, v in zip(COLUMNS, row[1:]):
            stored[c][row[0]] = _as_decimal(v)
    yield names[0], names[1], stored
    for name in names:
        cur.execute(f"DROP TABLE {name}")


def pairs(conn: informix_stream.Connection, sql: str) -> set[tuple[int, int]]:
    cur = conn.cursor()
    cur.execute(sql)
    return {tuple(r) for r in cur.fetchall()}


def expected_pairs(stored: dict, x: str, y: str, test: Callable[[Any, Any], bool]
                   ) -> set[tuple[int, int]]:
    return {(i, j) for i, u in stored[x].items() for j, v in stored[y].items()
            if u is not None and v is not None and test(u, v)}


_DECIMAL = {c for c, (t, _) in COLUMNS.items() if t.startswith(("DECIMAL", "MONEY"))}
# Every ordered pair of columns with a DECIMAL or MONEY side.
FORM_PAIRS = [(x, y) for x in COLUMNS for y in COLUMNS if {x, y} & _DECIMAL]


@pytest.mark.parametrize("x,y", FORM_PAIRS)
def test_column_comparisons_agree_with_decimal(conn, tables, x, y):
    a, b, stored = tables
    for op, test in OPS.items():
        got = pairs(conn, f"SELECT a.id, b.id FROM {a} a, {b} b WHERE a.{x} {op} b.{y}")
        assert got == expected_pairs(stored, x, y, test), (x, op, y)


@pytest.mark.parametrize("x,y", FORM_PAIRS)
def test_join_on_and_exists_agree_with_decimal(conn, tables, x, y):
    a, b, stored = tables
    want = expected_pairs(stored, x, y, operator.eq)
    assert pairs(conn, f"SELECT a.id, b.id FROM {a} a JOIN {b} b ON a.{x} = b.{y}") == want
    got = pairs(conn, f"SELECT a.id, a.id FROM {a} a WHERE EXISTS "
                      f"(SELECT 1 FROM {b} b WHERE b.{y} = a.{x})")
    assert got == {(i, i) for i, _ in want}


@pytest.mark.parametrize("x,y", FORM_PAIRS)
def test_scalar_subquery_and_computed_sides_agree_with_decimal(conn, tables, x, y):
    a, b, stored = tables
    sub = f"(SELECT b2.{y} FROM {b} b2 WHERE b2.id = b.id)"
    for op in ("=", "<", ">="):
        want = expected_pairs(stored, x, y, OPS[op])
        assert pairs(conn, f"SELECT a.id, b.id FROM {a} a, {b} b WHERE a.{x} {op} {sub}") \
            == want, (x, op, "subquery", y)
        assert pairs(conn, f"SELECT a.id, b.id FROM {a} a, {b} b WHERE a.{x} {op} b.{y} * 1") \
            == want, (x, op, "computed", y)


@pytest.mark.parametrize("x,y", FORM_PAIRS)
def test_between_agrees_with_decimal(conn, tables, x, y):
    a, b, stored = tables
    got = pairs(conn, f"SELECT a.id, b.id FROM {a} a, {b} b WHERE a.{x} BETWEEN b.{y} AND 4")
    assert got == expected_pairs(stored, x, y, lambda u, v: v <= u <= 4)
    got = pairs(conn, f"SELECT a.id, b.id FROM {a} a, {b} b "
                      f"WHERE a.{x} NOT BETWEEN (SELECT b2.{y} FROM {b} b2 WHERE b2.id = b.id)"
                      " AND 4")
    assert got == expected_pairs(stored, x, y, lambda u, v: not v <= u <= 4)


@pytest.mark.parametrize("x,y", FORM_PAIRS)
def test_in_subquery_and_list_agree_with_decimal(conn, tables, x, y):
    """IN / NOT IN with SQL's NULL rules: NOT IN is never true against a set
    holding NULL, and a NULL x is in nothing."""
    a, b, stored = tables
    present = [v for v in stored[y].values() if v is not None]
    has_null = None in stored[y].values()
    in_set = {i for i, u in stored[x].items() if u is not None and u in present}
    not_in_set = {i for i, u in stored[x].items() if u is not None and u not in present}

    def ids(sql: str) -> set[int]:
        return {i for i, _ in pairs(conn, f"SELECT id, 0 FROM {a} WHERE {sql}")}

    assert ids(f"{x} IN (SELECT {y} FROM {b})") == in_set
    assert ids(f"{x} NOT IN (SELECT {y} FROM {b} WHERE {y} IS NOT NULL)") == not_in_set
    assert ids(f"{x} NOT IN (SELECT {y} FROM {b})") == (set() if has_null else not_in_set)
    got = pairs(conn, f"SELECT a.id, b.id FROM {a} a, {b} b WHERE a.{x} IN (b.{y}, 99)")
    assert got == expected_pairs(stored, x, y, lambda u, v: u in (v, 99))


def test_issue_examples_return_the_row(conn):
    """The statements that returned [] before (issue 11's report)."""
    t, s = f"dct_{uuid.uuid4().hex[:8]}", f"dcs_{uuid.uuid4().hex[:8]}"
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {t} (c DECIMAL(10,2), w DECIMAL(32,10))")
    cur.execute(f"INSERT INTO {t} VALUES (3.00, 3)")
    cur.execute(f"CREATE TABLE {s} (x INTEGER, w DECIMAL(32,10), f FLOAT)")
    cur.execute(f"INSERT INTO {s} VALUES (2, 3, 3.0)")
    try:
        for where in (f"c IN (SELECT x * 1.5 FROM {s})", f"c = (SELECT x * 1.5 FROM {s})",
                      f"c IN (SELECT w FROM {s})", f"c = (SELECT w FROM {s})",
                      f"EXISTS (SELECT 1 FROM {s} WHERE {s}.w = {t}.c)",
                      f"w IN (SELECT c FROM {t})", f"c IN (SELECT f FROM {s})"):
            cur.execute(f"SELECT c FROM {t} WHERE {where}")
            assert cur.fetchall() == [(Decimal("3.00"),)], where
        cur.execute(f"SELECT c FROM {t} WHERE c NOT IN (SELECT w FROM {s})")
        assert cur.fetchall() == []
    finally:
        cur.execute(f"DROP TABLE {t}")
        cur.execute(f"DROP TABLE {s}")


def test_view_derived_and_cte_columns_compare_by_value(conn):
    """A view's, derived table's or CTE's DECIMAL column holds what its
    expression computed (exact text), not its type's storage form."""
    t, s, v = (f"dc{k}_{uuid.uuid4().hex[:8]}" for k in "tsv")
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {t} (c DECIMAL(10,2))")
    cur.execute(f"INSERT INTO {t} VALUES (3.00)")
    cur.execute(f"CREATE TABLE {s} (x INTEGER, y DECIMAL(5,1))")
    cur.execute(f"INSERT INTO {s} VALUES (2, 1.5)")
    cur.execute(f"CREATE VIEW {v} (d) AS SELECT x * y FROM {s}")
    try:
        for sql in (f"SELECT c FROM {t}, {v} WHERE {t}.c = {v}.d",
                    f"SELECT c FROM {t}, {v} WHERE {v}.d = 3",
                    f"SELECT c FROM {t}, (SELECT x * y AS d FROM {s}) q WHERE {t}.c = q.d",
                    f"WITH q AS (SELECT x * y AS d FROM {s}) SELECT c FROM {t}, q WHERE c = q.d"):
            cur.execute(sql)
            assert cur.fetchall() == [(Decimal("3.00"),)], sql
    finally:
        cur.execute(f"DROP VIEW {v}")
        cur.execute(f"DROP TABLE {t}")
        cur.execute(f"DROP TABLE {s}")


# -- informix-driver as the judge ---------------------------------------------

@pytest.fixture(scope="module")
def ifx(ifx_target: Any) -> Iterator[informix_db.Connection]:
    c = informix_db.connect(host=ifx_target.host, port=ifx_target.port, user=ifx_target.user,
                            password=ifx_target.password, database=ifx_target.database,
                            server=ifx_target.server, autocommit=True, read_timeout=30,
                            connect_timeout=30)
    yield c
    c.close()


def test_informix_driver_sees_exact_mixed_comparisons(ifx, tables):
    a, b, stored = tables
    cur = ifx.cursor()
    cur.execute(f"SELECT a.id, b.id FROM {a} a, {b} b WHERE a.r = b.w ORDER BY 1")
    assert {tuple(r) for r in cur.fetchall()} == expected_pairs(stored, "r", "w", operator.eq)
    cur.execute(f"SELECT id FROM {a} WHERE bi IN (SELECT fd FROM {b}) ORDER BY 1")
    assert [r[0] for r in cur.fetchall()] == sorted(
        i for i, u in stored["bi"].items() if u is not None and u in stored["fd"].values())
