"""Informix's parenthesised OUTER joins, ``FROM a, OUTER (b, c)`` and
``FROM a, OUTER (b, OUTER c)`` (issue 11).

Where each answer was learned:
- HCL Informix 14.10 Guide to SQL: Syntax, "Informix-Extension Outer Joins"
  (ids_sqs_1035): the syntax diagram allows a parenthesised list after
  OUTER, itself holding OUTER items; a condition relating two subordinate
  tables needs the parentheses.
- Guide to SQL: Tutorial, "Outer join for a simple join to a third table"
  (ids_sqt_169): ``customer c, OUTER (orders o, items i) WHERE
  c.customer_num = o.customer_num AND o.order_num = i.order_num AND
  manu_code IN ('KAR', 'SHM')`` first joins orders and items (only orders
  with such items), then outer-joins that to every customer.
- Tutorial, "Outer join of two tables to a third table" (ids_sqt_170): a
  join condition between two sibling subservient tables is an error (the
  two-sided outer join, -393 in IBM JDBC 15.0.1.0's message catalog).
"""

from __future__ import annotations

import pytest

import informix_stream as ifx
from test_driver import connect, theirs, unique


@pytest.fixture
def cur(ifx_target):
    c = connect(ifx_target, autocommit=True)
    yield c.cursor()
    c.close()


@pytest.fixture
def shop(cur):
    """customer 1..4; orders 10 (cust 1), 20 (cust 2), 30 (cust 3);
    items: order 10 has KAR and XXX, order 20 only XXX, order 30 none."""
    c, o, i = unique("cust"), unique("ord"), unique("item")
    cur.execute(f"CREATE TABLE {c} (customer_num INTEGER, lname VARCHAR(10))")
    cur.execute(f"CREATE TABLE {o} (order_num INTEGER, customer_num INTEGER)")
    cur.execute(f"CREATE TABLE {i} (order_num INTEGER, manu_code CHAR(3), quantity SMALLINT)")
    cur.executemany(f"INSERT INTO {c} VALUES (?, ?)",
                    [(1, "ann"), (2, "bob"), (3, "cy"), (4, "dee")])
    cur.executemany(f"INSERT INTO {o} VALUES (?, ?)", [(10, 1), (20, 2), (30, 3)])
    cur.executemany(f"INSERT INTO {i} VALUES (?, ?, ?)",
                    [(10, "KAR", 1), (10, "XXX", 2), (20, "XXX", 3)])
    return c, o, i


def rows(cur, sql, params=None):
    cur.execute(sql, params)
    return cur.fetchall()


def test_outer_simple_join_to_a_third_table(cur, shop):
    c, o, i = shop
    got = rows(cur, f"SELECT c.customer_num, o.order_num, i.manu_code, i.quantity "
                    f"FROM {c} c, OUTER ({o} o, {i} i) "
                    "WHERE c.customer_num = o.customer_num AND o.order_num = i.order_num "
                    "AND i.manu_code IN ('KAR', 'SHM') ORDER BY 1")
    # only order 10 has a KAR item: the group (order, item) exists for it
    # alone; every customer is kept, with NULLs for the whole group
    assert got == [(1, 10, "KAR", 1), (2, None, None, None), (3, None, None, None),
                   (4, None, None, None)]
    # the columns keep their types (the group's tables are in scope)
    assert [d[1] for d in cur.description][1:] == [ifx.NUMBER, ifx.STRING, ifx.NUMBER]


def test_nested_outer_keeps_the_middle_table(cur, shop):
    c, o, i = shop
    got = rows(cur, f"SELECT c.customer_num, o.order_num, i.manu_code "
                    f"FROM {c} c, OUTER ({o} o, OUTER {i} i) "
                    "WHERE c.customer_num = o.customer_num AND o.order_num = i.order_num "
                    "AND i.manu_code = ? ORDER BY 1", ("KAR",))
    # items are outer to orders, orders outer to customers: every order stays
    assert got == [(1, 10, "KAR"), (2, 20, None), (3, 30, None), (4, None, None)]


def test_nested_outer_all_rows_and_dominant_filter(cur, shop):
    c, o, i = shop
    got = rows(cur, f"SELECT c.lname, o.order_num, i.manu_code "
                    f"FROM {c} c, OUTER ({o} o, OUTER ({i} i)) "
                    "WHERE c.customer_num > ? AND c.customer_num = o.customer_num "
                    "AND o.order_num = i.order_num ORDER BY 1, 3", (1,))
    assert got == [("bob", 20, "XXX"), ("cy", 30, None), ("dee", None, None)]


def test_condition_between_sibling_outer_tables_is_393(cur, shop):
    c, o, i = shop
    with pytest.raises(ifx.Error) as info:
        cur.execute(f"SELECT c.customer_num FROM {c} c, OUTER {o} o, OUTER {i} i "
                    "WHERE c.customer_num = o.customer_num AND o.order_num = i.order_num")
    assert info.value.sqlcode == -393


def test_outer_group_through_informix_driver(ifx_target, shop):
    c, o, i = shop
    conn = theirs(ifx_target, autocommit=True)
    try:
        judge = conn.cursor()
        judge.execute(f"SELECT c.lname, o.order_num, i.quantity "
                      f"FROM {c} c, OUTER ({o} o, OUTER {i} i) "
                      "WHERE c.customer_num = o.customer_num AND o.order_num = i.order_num "
                      "AND i.manu_code = ? ORDER BY 1", ("XXX",))
        assert judge.fetchall() == [("ann", 10, 2), ("bob", 20, 3), ("cy", 30, None),
                                    ("dee", None, None)]
    finally:
        conn.close()
