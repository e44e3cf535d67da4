"""FOREIGN KEY / REFERENCES enforced as Informix enforces them (issue 11).

IBM Informix Guide to SQL: Syntax, "REFERENCES clause" and "DROP TABLE";
codes from IBM's message catalog (JDBC 15.0.1.0, sql_en_US.properties):
-691 a child key with no parent row, -692 a parent row still referenced,
-297 no unique or primary key to reference.  The emulator used to accept
the clauses and enforce nothing, so a test passed here that a real server
fails.
"""

from __future__ import annotations

import pytest

import informix_stream as ifx
from test_driver import connect, unique


@pytest.fixture
def cur(ifx_target):
    conn = connect(ifx_target, autocommit=True)
    yield conn.cursor()
    conn.close()


def codes(cur, sql, params=()):
    with pytest.raises(ifx.DatabaseError) as info:
        cur.execute(sql, params)
    return info.value.sqlcode


def test_child_rows_need_a_parent_and_parents_stay_while_referenced(cur):
    p, c = unique("fkp"), unique("fkc")
    cur.execute(f"CREATE TABLE {p} (id INTEGER PRIMARY KEY, name VARCHAR(10))")
    cur.execute(f"CREATE TABLE {c} (id INTEGER, pid INTEGER REFERENCES {p}, note VARCHAR(10))")
    cur.execute(f"INSERT INTO {p} VALUES (1, 'one')")
    cur.execute(f"INSERT INTO {c} VALUES (10, 1, 'ok')")
    cur.execute(f"INSERT INTO {c} VALUES (11, NULL, 'no parent needed')")
    assert codes(cur, f"INSERT INTO {c} VALUES (12, 2, 'orphan')") == -691
    assert codes(cur, f"UPDATE {c} SET pid = 3 WHERE id = 10") == -691
    assert codes(cur, f"DELETE FROM {p} WHERE id = 1") == -692
    assert codes(cur, f"UPDATE {p} SET id = 5 WHERE id = 1") == -692
    cur.execute(f"SELECT count(*) FROM {c}")
    assert cur.fetchone() == (2,)                       # nothing the errors touched changed
    cur.execute(f"DELETE FROM {c} WHERE pid = 1")
    cur.execute(f"DELETE FROM {p} WHERE id = 1")        # no longer referenced
    cur.execute(f"DROP TABLE {c}")
    cur.execute(f"DROP TABLE {p}")


def test_table_level_foreign_key_with_cascade_and_drop_cascade(cur):
    p, c = unique("fkp"), unique("fkc")
    cur.execute(f"CREATE TABLE {p} (a INTEGER, b CHAR(3), UNIQUE (a, b) CONSTRAINT {p}_u)")
    cur.execute(f"CREATE TABLE {c} (x INTEGER, y CHAR(3), FOREIGN KEY (x, y) REFERENCES "
                f"{p} (a, b) ON DELETE CASCADE CONSTRAINT {c}_fk)")
    cur.execute(f"INSERT INTO {p} VALUES (1, 'abc')")
    cur.executemany(f"INSERT INTO {c} VALUES (?, ?)", [(1, "abc"), (1, "abc")])
    with pytest.raises(ifx.IntegrityError) as info:
        cur.execute(f"INSERT INTO {c} VALUES (1, 'zzz')")
    assert info.value.sqlcode == -691 and f"{c}_fk" in str(info.value)
    cur.execute(f"DELETE FROM {p}")                     # cascades to the children
    cur.execute(f"SELECT count(*) FROM {c}")
    assert cur.fetchone() == (0,)
    cur.execute(f"DROP TABLE {p}")                      # drops the constraint with it
    cur.execute(f"INSERT INTO {c} VALUES (7, 'any')")
    cur.execute(f"DROP TABLE {c}")


def test_a_reference_needs_a_key_to_point_at(cur):
    p, c = unique("fkp"), unique("fkc")
    cur.execute(f"CREATE TABLE {p} (a INTEGER, b INTEGER)")
    assert codes(cur, f"CREATE TABLE {c} (x INTEGER REFERENCES {p})") == -297
    assert codes(cur, f"CREATE TABLE {c} (x INTEGER REFERENCES {p} (a))") == -297
    assert codes(cur, f"CREATE TABLE {c} (x INTEGER REFERENCES no_such_table)") == -206
    cur.execute(f"DROP TABLE {p}")


def test_self_reference(cur):
    t = unique("tree")
    cur.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, up INTEGER REFERENCES {t} (id))")
    cur.execute(f"INSERT INTO {t} VALUES (1, NULL)")
    cur.execute(f"INSERT INTO {t} VALUES (2, 1)")
    cur.execute(f"INSERT INTO {t} VALUES (3, 3)")        # its own parent, in the same row
    assert codes(cur, f"INSERT INTO {t} VALUES (4, 9)") == -691
    assert codes(cur, f"DELETE FROM {t} WHERE id = 1") == -692
    cur.execute(f"DROP TABLE {t}")


def test_a_temp_table_reference_says_the_emulator_lacks_it(cur):
    p = unique("fkp")
    cur.execute(f"CREATE TABLE {p} (id INTEGER PRIMARY KEY)")
    with pytest.raises(ifx.NotSupportedError):
        cur.execute(f"CREATE TEMP TABLE t_{p} (x INTEGER REFERENCES {p})")
    cur.execute(f"DROP TABLE {p}")
