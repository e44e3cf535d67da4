"""SAVEPOINT / ROLLBACK TO SAVEPOINT / RELEASE SAVEPOINT through the driver.

Informix has had savepoints since 11.50 (IBM, "SAVEPOINT statement"); reusing
a name replaces the earlier savepoint.  executemany's resume-safe contract
rests on them inside a transaction.
"""

from __future__ import annotations

import pytest

import informix_stream as ifx
from test_driver import connect, unique


def ids(cur, table: str) -> list[int]:
    cur.execute(f"SELECT id FROM {table} ORDER BY id")
    return [r[0] for r in cur.fetchall()]


def test_rollback_to_savepoint_keeps_earlier_work(ifx_target):
    c = connect(ifx_target)
    cur = c.cursor()
    t = unique("sp")
    cur.execute(f"CREATE TABLE {t} (id INTEGER)")
    c.commit()
    cur.execute(f"INSERT INTO {t} VALUES (1)")
    cur.execute("SAVEPOINT a")
    cur.execute(f"INSERT INTO {t} VALUES (2)")
    cur.execute("SAVEPOINT a")                   # replaces the first one
    cur.execute(f"INSERT INTO {t} VALUES (3)")
    cur.execute("ROLLBACK WORK TO SAVEPOINT a")
    assert ids(cur, t) == [1, 2]
    cur.execute("SAVEPOINT b")
    cur.execute(f"INSERT INTO {t} VALUES (4)")
    cur.execute("RELEASE SAVEPOINT b")
    with pytest.raises(ifx.ProgrammingError):
        cur.execute("ROLLBACK TO SAVEPOINT b")   # released: gone
    c.commit()
    assert ids(cur, t) == [1, 2, 4]
    c.close()


def test_savepoint_outside_a_transaction_is_refused(ifx_target):
    c = connect(ifx_target, autocommit=True)
    with pytest.raises(ifx.DatabaseError) as info:
        c.cursor().execute("SAVEPOINT x")
    assert info.value.sqlcode == -255
    c.close()
