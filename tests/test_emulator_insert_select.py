"""INSERT ... SELECT whose select items carry labels (``expr AS anon_1``),
as SQLAlchemy writes ``insert().from_select()`` (issue 15,
InsertBehaviorTest.test_insert_from_select_with_defaults).  A label in the
Projection clause is allowed (Guide to SQL: Syntax, "Projection Clause",
display label) and names nothing in an INSERT: the values go to the listed
columns by position (Guide to SQL: Syntax, INSERT, "Inserting Rows Through
a SELECT")."""

from __future__ import annotations

import pytest

from test_driver import connect, unique


@pytest.fixture
def cur(ifx_target):
    c = connect(ifx_target, autocommit=True)
    yield c.cursor()
    c.close()


@pytest.mark.parametrize("key", ["SERIAL", "INTEGER"])
def test_labelled_computed_items_insert_by_position(cur, key):
    t = unique("ins")
    cur.execute(f"CREATE TABLE {t} (id {key} NOT NULL, data VARCHAR(50), x INTEGER, "
                "y INTEGER, PRIMARY KEY (id))")
    cur.executemany(f"INSERT INTO {t} (id, data) VALUES (?, ?)",
                    [(1, "data1"), (2, "data2"), (3, "data3")])
    cur.execute(f"INSERT INTO {t} (id, data, x, y) SELECT {t}.id + CAST(? AS INTEGER) AS anon_1, "
                f"{t}.data, CAST(? AS INTEGER) AS anon_2, (2 + CAST(? AS INTEGER)) anon_3 "
                f"\nFROM {t} \nWHERE {t}.data IN (?, ?)", (5, 5, 2, "data2", "data3"))
    assert cur.rowcount == 2
    cur.execute(f"SELECT id, data, x, y FROM {t} WHERE id > 3 ORDER BY id")
    assert cur.fetchall() == [(7, "data2", 5, 4), (8, "data3", 5, 4)]


def test_serial_from_a_labelled_zero_is_numbered(cur):
    """A 0 into a SERIAL column is a new number, labelled or not."""
    t = unique("ser")
    cur.execute(f"CREATE TABLE {t} (id SERIAL, data VARCHAR(10))")
    cur.execute(f"INSERT INTO {t} VALUES (0, 'a')")
    cur.execute(f"INSERT INTO {t} (id, data) SELECT 0 AS z, data || 'b' AS d FROM {t}")
    cur.execute(f"SELECT id, data FROM {t} ORDER BY id")
    assert cur.fetchall() == [(1, "a"), (2, "ab")]
