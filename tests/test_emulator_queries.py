"""Query forms of issue 11 item 2: WITH (CTEs, recursive too), set operations
(UNION [ALL], INTERSECT, MINUS), outer joins in ANSI and Informix syntax,
FIRST/SKIP/LIMIT.

Where each expected answer was learned:
- CTEs: Informix 14.10 added ``WITH name [(cols)] AS (query), ... statement``
  (Oninit, "Common Table Expressions", quoting IBM's page); a recursive CTE
  is an anchor UNION ALL a member reading the CTE.
- Set operators: IBM Informix Guide to SQL: Syntax, "Set operators" (MINUS
  is Informix's EXCEPT, 11.70+); the result is named by the first query.
- Outer joins: HCL Informix 14.10 Guide to SQL: Tutorial, "Outer joins" and
  "HCL Informix extension to outer join syntax" (``FROM a, OUTER b WHERE
  a.k = b.k``: every row of the dominant table, NULLs for the subservient
  one's columns where nothing matches).
- FIRST/SKIP: IBM Informix Guide to SQL: Syntax, "Projection clause".
"""

from __future__ import annotations

import decimal

import pytest

import informix_stream as ifx
from test_driver import connect, theirs, unique


@pytest.fixture
def cur(ifx_target):
    c = connect(ifx_target, autocommit=True)
    yield c.cursor()
    c.close()


@pytest.fixture
def tabs(cur):
    """customer(num, name) 1..4, orders(num, cust, amount) for 1 and 3."""
    c, o = unique("cust"), unique("ord")
    cur.execute(f"CREATE TABLE {c} (num INTEGER, name VARCHAR(10))")
    cur.executemany(f"INSERT INTO {c} VALUES (?, ?)",
                    [(1, "ann"), (2, "bob"), (3, "cy"), (4, "dee")])
    cur.execute(f"CREATE TABLE {o} (num INTEGER, cust INTEGER, amount DECIMAL(8,2))")
    cur.executemany(f"INSERT INTO {o} VALUES (?, ?, ?)",
                    [(10, 1, decimal.Decimal("5.50")), (11, 1, decimal.Decimal("1.25")),
                     (12, 3, decimal.Decimal("7.00"))])
    return c, o


def rows(cur, sql, params=None):
    cur.execute(sql, params)
    return cur.fetchall()


def names(cur):
    return [d[0] for d in cur.description]


# -- WITH ---------------------------------------------------------------------------

def test_cte_columns_types_and_params(cur, tabs):
    c, o = tabs
    got = rows(cur, f"WITH big (who, total) AS (SELECT cust, SUM(amount) FROM {o} "
                    f"GROUP BY cust HAVING SUM(amount) > ?) "
                    f"SELECT b.who, x.name, b.total FROM big b, {c} x "
                    f"WHERE x.num = b.who AND x.name <> ? ORDER BY 1", (1, "zed"))
    assert got == [(1, "ann", decimal.Decimal("6.75")), (3, "cy", decimal.Decimal("7.00"))]
    assert names(cur) == ["who", "name", "total"]
    assert cur.description[0][1] == ifx.NUMBER and cur.description[2][1] == ifx.NUMBER


def test_cte_reads_an_earlier_cte_and_hides_a_table(cur, tabs):
    c, o = tabs
    # The CTE named like the orders table is what the statement reads.
    got = rows(cur, f"WITH {o} AS (SELECT num FROM {c} WHERE num > 1), "
                    f"odd AS (SELECT num FROM {o} WHERE MOD(num, 2) = 1) "
                    "SELECT num FROM odd ORDER BY num")
    assert got == [(3,)]


def test_recursive_cte(cur):
    got = rows(cur, "WITH RECURSIVE r (n) AS (SELECT 1 FROM systables WHERE tabid = 1 "
                    "UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r ORDER BY n")
    assert got == [(1,), (2,), (3,), (4,), (5,)]
    assert names(cur) == ["n"]


def test_cte_column_list_must_match_the_query(cur, tabs):
    c, _ = tabs
    with pytest.raises(ifx.ProgrammingError):
        cur.execute(f"WITH t (a, b) AS (SELECT num FROM {c}) SELECT * FROM t")


# The statement after the CTEs "can also be an INSERT, UPDATE, or DELETE"
# (Oninit, "Common Table Expressions", quoting IBM's 14.10 page).

def test_cte_before_insert_update_delete(cur, tabs):
    c, o = tabs
    cur.execute(f"WITH t AS (SELECT num FROM {c} WHERE num > ?) "
                f"INSERT INTO {o} (num, cust, amount) SELECT num + 100, num, 1 FROM t", (2,))
    assert cur.rowcount == 2
    cur.execute(f"WITH big (k) AS (SELECT num FROM {c} WHERE num >= ?) "
                f"UPDATE {o} SET amount = amount + ? WHERE cust IN (SELECT k FROM big)", (4, 2))
    assert cur.rowcount == 1
    assert rows(cur, f"SELECT num, cust, amount FROM {o} WHERE num > 100 ORDER BY 1") == [
        (103, 3, decimal.Decimal("1.00")), (104, 4, decimal.Decimal("3.00"))]
    cur.execute(f"WITH gone AS (SELECT num FROM {c} WHERE name = ?) "
                f"DELETE FROM {o} WHERE cust IN (SELECT num FROM gone)", ("cy",))
    assert cur.rowcount == 2                       # order 12 and the new 103
    assert rows(cur, f"SELECT num FROM {o} ORDER BY 1") == [(10,), (11,), (104,)]


def test_cte_before_insert_values_many_rows(cur, tabs):
    _, o = tabs
    cur.executemany(f"WITH one AS (SELECT 1 AS n FROM systables WHERE tabid = 1) "
                    f"INSERT INTO {o} (num, cust) VALUES (?, ?)", [(50, 1), (51, 2)])
    assert rows(cur, f"SELECT num, cust FROM {o} WHERE num >= 50 ORDER BY 1") == \
        [(50, 1), (51, 2)]


def test_cte_before_delete_through_informix_driver(ifx_target, tabs):
    c, o = tabs
    conn = theirs(ifx_target, autocommit=True)
    try:
        judge = conn.cursor()
        judge.execute(f"WITH t AS (SELECT num FROM {c} WHERE num = ?) "
                      f"DELETE FROM {o} WHERE cust IN (SELECT num FROM t)", (1,))
        assert judge.rowcount == 2
        judge.execute(f"SELECT num FROM {o}")
        assert judge.fetchall() == [(12,)]
    finally:
        conn.close()


def test_with_inside_insert_is_a_syntax_error(cur, tabs):
    """IBM's syntax puts WITH before the statement; inside INSERT it is the
    server's syntax error, not the emulator's "not supported"."""
    c, o = tabs
    with pytest.raises(ifx.ProgrammingError) as info:
        cur.execute(f"INSERT INTO {o} (num) WITH t AS (SELECT num FROM {c}) SELECT num FROM t")
    assert info.value.sqlcode == -201
    assert rows(cur, f"SELECT COUNT(*) FROM {o}") == [(3,)]


def test_cte_through_informix_driver(ifx_target, tabs):
    c, _ = tabs
    conn = theirs(ifx_target, autocommit=True)
    try:
        judge = conn.cursor()
        judge.execute(f"WITH t AS (SELECT num, name FROM {c} WHERE num >= ?) "
                      "SELECT name, num FROM t ORDER BY num", (3,))
        assert [d[0] for d in judge.description] == ["name", "num"]
        assert judge.fetchall() == [("cy", 3), ("dee", 4)]
    finally:
        conn.close()


# -- set operations ------------------------------------------------------------------

def test_union_intersect_minus(cur, tabs):
    c, o = tabs
    assert rows(cur, f"SELECT num FROM {c} UNION SELECT cust FROM {o} ORDER BY 1") == \
        [(1,), (2,), (3,), (4,)]
    assert rows(cur, f"SELECT cust FROM {o} UNION ALL SELECT num FROM {c} WHERE num = 1 "
                     "ORDER BY 1") == [(1,), (1,), (1,), (3,)]
    assert rows(cur, f"SELECT num FROM {c} INTERSECT SELECT cust FROM {o} ORDER BY 1") == \
        [(1,), (3,)]
    assert rows(cur, f"SELECT num FROM {c} MINUS SELECT cust FROM {o} ORDER BY 1") == \
        [(2,), (4,)]
    assert names(cur) == ["num"]


def test_union_type_holds_every_branch(cur, tabs):
    """INTEGER UNION DECIMAL(8,2): described so that 5.50 is not cut to 5."""
    c, o = tabs
    got = rows(cur, f"SELECT num FROM {c} WHERE num = 2 UNION SELECT amount FROM {o} "
                    "ORDER BY 1")
    assert got == [(decimal.Decimal("1.25"),), (2,), (decimal.Decimal("5.50"),),
                   (decimal.Decimal("7.00"),)]
    assert names(cur) == ["num"]


def test_union_of_text_and_number_is_refused_not_garbled(request, ifx_target, cur, tabs):
    if ifx_target.kind != "emulator":
        pytest.skip("the emulator's own refusal")
    c, o = tabs
    with pytest.raises(ifx.NotSupportedError):
        cur.execute(f"SELECT name FROM {c} UNION SELECT amount FROM {o}")


# -- FIRST / SKIP / LIMIT --------------------------------------------------------------

def test_first_skip_limit(cur, tabs):
    c, _ = tabs
    assert rows(cur, f"SELECT FIRST 2 num FROM {c} ORDER BY num") == [(1,), (2,)]
    assert rows(cur, f"SELECT SKIP 1 FIRST 2 num FROM {c} ORDER BY num") == [(2,), (3,)]
    assert rows(cur, f"SELECT SKIP 3 num FROM {c} ORDER BY num") == [(4,)]
    assert rows(cur, f"SELECT LIMIT 1 num FROM {c} ORDER BY num DESC") == [(4,)]
    assert rows(cur, f"SELECT SKIP ? FIRST ? num FROM {c} ORDER BY num", (2, 1)) == [(3,)]


# -- outer joins -------------------------------------------------------------------------

ALL_CUSTOMERS = [(1, 10), (1, 11), (2, None), (3, 12), (4, None)]


@pytest.mark.parametrize("join", [
    "{c} x LEFT OUTER JOIN {o} y ON x.num = y.cust",
    "{c} x LEFT JOIN {o} y ON x.num = y.cust",
    "{o} y RIGHT OUTER JOIN {c} x ON x.num = y.cust",
    "{c} x FULL OUTER JOIN {o} y ON x.num = y.cust",
    "{c} x, OUTER {o} y WHERE x.num = y.cust",
    "{c} x, OUTER ({o} y) WHERE y.cust = x.num",
])
def test_outer_joins_keep_every_dominant_row(cur, tabs, join):
    c, o = tabs
    got = rows(cur, f"SELECT x.num, y.num FROM {join.format(c=c, o=o)} ORDER BY 1, 2")
    assert got == ALL_CUSTOMERS
    assert names(cur) == ["num", "num"]


def test_informix_outer_filter_on_the_subservient_table_keeps_dominant_rows(cur, tabs):
    """A WHERE condition on the OUTER table is a join filter (Tutorial, "Outer
    joins"): customer 1 stays, with NULL, when its orders are filtered out;
    a condition on the dominant table filters rows; markers keep their order
    although conditions move into the join."""
    c, o = tabs
    got = rows(cur, f"SELECT x.num, y.num FROM {c} x, OUTER {o} y "
                    "WHERE x.num < ? AND x.num = y.cust AND y.amount > ? ORDER BY 1",
                    (4, decimal.Decimal("6")))
    assert got == [(1, None), (2, None), (3, 12)]


def test_informix_outer_two_subservient_tables(cur, tabs):
    c, o = tabs
    got = rows(cur, f"SELECT x.num, y.num, z.num FROM {c} x, OUTER {o} y, OUTER {c} z "
                    "WHERE x.num = y.cust AND x.num = z.num + 1 ORDER BY 1, 2")
    assert got == [(1, 10, None), (1, 11, None), (2, None, 1), (3, 12, 2), (4, None, 3)]


@pytest.mark.parametrize("form", [
    "FROM {c} x, OUTER {o} y WHERE x.num = y.cust OR x.num = 2",
])
def test_informix_outer_forms_the_emulator_lacks_are_refused(ifx_target, cur, tabs, form):
    if ifx_target.kind != "emulator":
        pytest.skip("the emulator's own refusal; a real server runs these")
    c, o = tabs
    with pytest.raises(ifx.NotSupportedError) as info:
        cur.execute(f"SELECT x.num {form.format(c=c, o=o)}")
    assert info.value.sqlcode == -9999 and "outer join" in str(info.value).lower()


@pytest.mark.parametrize("quantifier", ["ANY", "SOME", "ALL"])
def test_quantified_comparisons_are_refused_as_missing(ifx_target, cur, tabs, quantifier):
    """``x op ANY|SOME|ALL (subquery)`` is valid Informix SQL (Guide to SQL:
    Syntax, "Condition with subquery"): the emulator lacks it and says so,
    never -201 blaming the statement."""
    if ifx_target.kind != "emulator":
        pytest.skip("the emulator's own refusal; a real server runs these")
    c, o = tabs
    with pytest.raises(ifx.NotSupportedError) as info:
        cur.execute(f"SELECT num FROM {c} WHERE num = {quantifier} (SELECT cust FROM {o})")
    assert info.value.sqlcode == -9999 and quantifier in str(info.value)
    cur.execute(f"SELECT COUNT(*) FROM {c}")
    want = cur.fetchone()[0]
    cur.execute(f"SELECT COUNT(*) FROM {o}")
    want += cur.fetchone()[0]
    # ALL elsewhere (SELECT ALL, UNION ALL) is not a quantifier
    cur.execute(f"SELECT ALL num FROM {c} UNION ALL SELECT cust FROM {o}")
    assert len(cur.fetchall()) == want == 7


def test_informix_outer_through_informix_driver(ifx_target, tabs):
    c, o = tabs
    conn = theirs(ifx_target, autocommit=True)
    try:
        judge = conn.cursor()
        judge.execute(f"SELECT x.name, y.amount FROM {c} x, OUTER {o} y "
                      "WHERE x.num = y.cust AND x.num >= ? ORDER BY 1", (2,))
        assert judge.fetchall() == [("bob", None), ("cy", decimal.Decimal("7.00")),
                                    ("dee", None)]
    finally:
        conn.close()


# -- views ---------------------------------------------------------------------------------
# IBM Informix Guide to SQL: Syntax, "CREATE VIEW"/"DROP VIEW"; Reference,
# "SYSTABLES" (tabtype 'V') and "SYSVIEWS" (the statement in viewtext pieces
# numbered by seqno); "DROP TABLE" drops the views defined on the table.

def test_view_reads_describes_and_is_in_the_catalog(cur, tabs):
    c, o = tabs
    v = unique("v")
    cur.execute(f"CREATE VIEW {v} (who, spent) AS SELECT x.name, SUM(y.amount) "
                f"FROM {c} x, {o} y WHERE x.num = y.cust GROUP BY x.name")
    assert rows(cur, f"SELECT * FROM {v} ORDER BY who") == [
        ("ann", decimal.Decimal("6.75")), ("cy", decimal.Decimal("7.00"))]
    assert names(cur) == ["who", "spent"] and cur.description[1][1] == ifx.NUMBER
    assert rows(cur, f"SELECT who FROM {v} WHERE spent > ?", (decimal.Decimal("7"),)) == []
    assert rows(cur, f"SELECT tabtype, ncols FROM systables WHERE tabname = '{v}'") == \
        [("V", 2)]
    pieces = rows(cur, f"SELECT seqno, viewtext FROM sysviews s, systables t "
                       f"WHERE s.tabid = t.tabid AND t.tabname = '{v}' ORDER BY seqno")
    assert len(pieces) > 1 and [p[0] for p in pieces] == list(range(len(pieces)))
    assert "".join(p[1] for p in pieces).rstrip().lower().startswith(f"create view {v}")
    assert rows(cur, f"SELECT c.colname FROM syscolumns c, systables t WHERE c.tabid = "
                     f"t.tabid AND t.tabname = '{v}' ORDER BY c.colno") == [("who",), ("spent",)]
    cur.execute(f"DROP VIEW {v}")
    cur.execute(f"DROP VIEW IF EXISTS {v}")
    with pytest.raises(ifx.ProgrammingError) as info:
        cur.execute(f"SELECT * FROM {v}")
    assert info.value.sqlcode == -206


def test_dropping_a_table_drops_its_views(cur, tabs):
    c, _ = tabs
    v, w = unique("v"), unique("w")
    cur.execute(f"CREATE VIEW {v} AS SELECT num FROM {c} WHERE num > 2")
    cur.execute(f"CREATE VIEW {w} AS SELECT num FROM {v}")
    assert rows(cur, f"SELECT num FROM {w} ORDER BY 1") == [(3,), (4,)]
    cur.execute(f"DROP TABLE {c}")
    assert rows(cur, f"SELECT COUNT(*) FROM systables WHERE tabname IN ('{v}', '{w}')") == \
        [(0,)]


def test_view_through_informix_driver(ifx_target, tabs):
    c, _ = tabs
    v = unique("v")
    conn = theirs(ifx_target, autocommit=True)
    try:
        judge = conn.cursor()
        judge.execute(f"CREATE VIEW {v} AS SELECT num, name FROM {c} WHERE num < 3")
        judge.execute(f"SELECT name FROM {v} ORDER BY num")
        assert judge.fetchall() == [("ann",), ("bob",)]
        judge.execute(f"DROP VIEW {v}")
    finally:
        conn.close()
