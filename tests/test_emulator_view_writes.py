"""INSERT, UPDATE and DELETE through views (issue 11), as IBM documents them.

Where each answer was learned:
- IBM Informix Guide to SQL: Syntax, CREATE VIEW, "Updating Through Views"
  (HCL docs ids_sqs_0649) and UPDATE, "Updating Rows Through a View"
  (ids_sqs_1256): a one-table view is updatable unless its projection has
  aggregates or DISTINCT/UNIQUE, or it has GROUP BY or UNION; a calculated
  column can not be written, but rows can be deleted from such a view.
- Guide to SQL: Tutorial / Database Design, "Use the WITH CHECK OPTION
  keywords" (ids_ddi_096): without it a row written through a view may fall
  outside the view; with it the server tests every inserted or updated row
  against the view's WHERE clause and rejects the statement.
- Codes: IBM JDBC 15.0.1.0 message catalog (sql_en_US.properties): -384
  "Cannot modify non simple view", -234 "Cannot insert into virtual
  column", -8251 (UNION ALL view); -385 for a WITH CHECK OPTION violation
  is the emulator's reading of finderr (see view_writes.py).
"""

from __future__ import annotations

import pytest

import informix_stream as ifx
from test_driver import connect, theirs, unique


@pytest.fixture
def conn(ifx_target):
    c = connect(ifx_target, autocommit=True)
    yield c
    c.close()


@pytest.fixture
def cur(conn):
    return conn.cursor()


@pytest.fixture
def base(cur):
    """item(num INTEGER NOT NULL UNIQUE, name VARCHAR(10), qty INTEGER CHECK qty >= 0)."""
    t = unique("item")
    cur.execute(f"CREATE TABLE {t} (num INTEGER NOT NULL, name VARCHAR(10), "
                f"qty INTEGER CHECK (qty >= 0), UNIQUE (num))")
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?)",
                    [(1, "ann", 5), (2, "bob", 0), (3, "cy", 7), (20, "dee", 1)])
    return t


def rows(cur, sql, params=None):
    cur.execute(sql, params)
    return cur.fetchall()


def code(exc_info) -> int:
    return exc_info.value.sqlcode


def test_insert_update_delete_through_a_renaming_view(cur, base):
    v = unique("v")
    cur.execute(f"CREATE VIEW {v} (n, label) AS SELECT num, name FROM {base} WHERE num < 10")
    cur.execute(f"INSERT INTO {v} VALUES (4, 'eve')")
    assert cur.rowcount == 1
    cur.execute(f"INSERT INTO {v} (label, n) VALUES (?, ?)", ("fay", 30))
    # a row outside the view is allowed without WITH CHECK OPTION; the
    # base table's other columns take their default (NULL)
    assert rows(cur, f"SELECT num, name, qty FROM {base} WHERE num IN (4, 30) ORDER BY 1") \
        == [(4, "eve", None), (30, "fay", None)]
    cur.execute(f"UPDATE {v} SET label = label || '!' WHERE n > ?", (2,))
    assert cur.rowcount == 2                # 3 and 4: 20 and 30 are not in the view
    assert rows(cur, f"SELECT num, name FROM {base} WHERE name LIKE '%!' ORDER BY 1") == \
        [(3, "cy!"), (4, "eve!")]
    cur.execute(f"DELETE FROM {v} WHERE {v}.label = 'cy!'")
    assert cur.rowcount == 1
    cur.execute(f"DELETE FROM {v}")         # only the rows the view shows
    assert cur.rowcount == 3
    assert rows(cur, f"SELECT num FROM {base} ORDER BY 1") == [(20,), (30,)]


def test_base_table_constraints_apply_and_nothing_is_half_done(cur, base):
    v = unique("v")
    cur.execute(f"CREATE VIEW {v} AS SELECT * FROM {base}")
    with pytest.raises(ifx.IntegrityError) as e:
        cur.execute(f"INSERT INTO {v} VALUES (1, 'dup', 0)")
    assert code(e) == -268
    with pytest.raises(ifx.IntegrityError) as e:
        cur.execute(f"INSERT INTO {v} (name) VALUES ('nonum')")
    assert code(e) == -391
    with pytest.raises(ifx.IntegrityError) as e:
        cur.execute(f"UPDATE {v} SET qty = qty - 1")   # bob's 0 would go below 0
    assert code(e) == -530
    assert rows(cur, f"SELECT SUM(qty), COUNT(*) FROM {base}") == [(13, 4)]


def test_rollback_undoes_writes_through_a_view(ifx_target, base):
    c = connect(ifx_target)
    try:
        k = c.cursor()
        v = unique("v")
        k.execute(f"CREATE VIEW {v} AS SELECT num, qty FROM {base}")
        c.commit()
        k.execute(f"INSERT INTO {v} VALUES (9, 9)")
        k.execute(f"UPDATE {v} SET qty = 100 WHERE num = 1")
        k.execute(f"DELETE FROM {v} WHERE num = 2")
        assert rows(k, f"SELECT COUNT(*), SUM(qty) FROM {base}") == [(4, 117)]
        c.rollback()
        assert rows(k, f"SELECT COUNT(*), SUM(qty) FROM {base}") == [(4, 13)]
    finally:
        c.close()


def test_with_check_option_rejects_rows_outside_the_view(cur, base):
    v = unique("v")
    cur.execute(f"CREATE VIEW {v} AS SELECT x.* FROM {base} x WHERE x.qty > 0 "
                "WITH CHECK OPTION")
    with pytest.raises(ifx.Error) as e:
        cur.execute(f"INSERT INTO {v} VALUES (8, 'zero', 0)")
    assert code(e) == -385
    with pytest.raises(ifx.Error) as e:
        cur.execute(f"UPDATE {v} SET qty = qty - 1")      # dee's 1 would leave the view
    assert code(e) == -385
    assert rows(cur, f"SELECT SUM(qty), COUNT(*) FROM {base}") == [(13, 4)]   # all undone
    cur.execute(f"INSERT INTO {v} SELECT num + 100, name, 1 FROM {base}")
    assert cur.rowcount == 4
    cur.execute(f"UPDATE {v} SET qty = qty + 1 WHERE num > 100")
    assert cur.rowcount == 4
    cur.executemany(f"INSERT INTO {v} VALUES (?, ?, ?)", [(200, "a", 1), (201, "b", 2)])
    with pytest.raises(ifx.Error) as e:
        cur.executemany(f"INSERT INTO {v} VALUES (?, ?, ?)", [(300, "a", 1), (301, "b", 0)])
    assert code(e) == -385
    assert rows(cur, f"SELECT COUNT(*) FROM {base} WHERE num = 301") == [(0,)]


def test_check_option_of_the_view_underneath_applies(cur, base):
    low, top = unique("low"), unique("top")
    cur.execute(f"CREATE VIEW {low} AS SELECT num, qty FROM {base} WHERE qty < 10 "
                "WITH CHECK OPTION")
    cur.execute(f"CREATE VIEW {top} (k, q) AS SELECT num, qty FROM {low} WHERE num > 1")
    with pytest.raises(ifx.Error) as e:
        cur.execute(f"INSERT INTO {top} VALUES (50, 99)")
    assert code(e) == -385
    cur.execute(f"UPDATE {top} SET q = q + 1 WHERE k = 3")
    assert rows(cur, f"SELECT qty FROM {base} WHERE num = 3") == [(8,)]
    cur.execute(f"DELETE FROM {top} WHERE q = 8")
    assert rows(cur, f"SELECT COUNT(*) FROM {base}") == [(3,)]


@pytest.mark.parametrize("select, expected", [
    ("SELECT COUNT(*) AS n FROM {t}", -384),
    ("SELECT DISTINCT name FROM {t}", -384),
    ("SELECT name, SUM(qty) AS s FROM {t} GROUP BY name", -384),
    ("SELECT a.num FROM {t} a, {t} b WHERE a.num = b.num", -384),
    ("SELECT num FROM {t} UNION SELECT num FROM {t}", -384),
    ("SELECT num FROM {t} UNION ALL SELECT num FROM {t}", -8251),
])
def test_non_simple_views_are_refused_with_the_servers_codes(cur, base, select, expected):
    v = unique("v")
    cur.execute(f"CREATE VIEW {v} AS " + select.format(t=base))
    for sql in (f"INSERT INTO {v} VALUES (9)", f"UPDATE {v} SET num = 9", f"DELETE FROM {v}"):
        with pytest.raises(ifx.Error) as e:
            cur.execute(sql)
        assert code(e) == expected, sql
    assert rows(cur, f"SELECT COUNT(*) FROM {base}") == [(4,)]


def test_calculated_columns_are_not_written_but_rows_can_be_deleted(cur, base):
    v = unique("v")
    cur.execute(f"CREATE VIEW {v} (num, twice) AS SELECT num, qty * 2 FROM {base}")
    with pytest.raises(ifx.Error) as e:
        cur.execute(f"INSERT INTO {v} VALUES (9, 18)")
    assert code(e) == -234
    with pytest.raises(ifx.Error) as e:
        cur.execute(f"UPDATE {v} SET twice = 0")
    assert code(e) == -234
    cur.execute(f"INSERT INTO {v} (num) VALUES (9)")
    cur.execute(f"DELETE FROM {v} WHERE twice = 14")
    assert cur.rowcount == 1
    assert rows(cur, f"SELECT num FROM {base} ORDER BY 1") == [(1,), (2,), (9,), (20,)]


def test_columns_the_view_does_not_show_are_not_found(cur, base):
    v = unique("v")
    cur.execute(f"CREATE VIEW {v} AS SELECT num, name FROM {base}")
    # qty is the base table's, not the view's: never read from the table
    for sql in (f"INSERT INTO {v} (qty) VALUES (1)", f"UPDATE {v} SET qty = 1",
                f"DELETE FROM {v} WHERE qty = 5", f"UPDATE {v} SET num = qty",
                f"UPDATE {v} SET name = 'x' WHERE qty > 0"):
        with pytest.raises(ifx.Error) as e:
            cur.execute(sql)
        assert code(e) == -217, sql
    assert rows(cur, f"SELECT SUM(qty), COUNT(*) FROM {base}") == [(13, 4)]


def test_set_reads_the_views_column_names_not_the_tables(cur, base):
    v = unique("v")
    # the view swaps the names: its "qty" is the table's num and back
    cur.execute(f"CREATE VIEW {v} (qty, num) AS SELECT num, qty FROM {base}")
    cur.execute(f"UPDATE {v} SET num = qty * 10 WHERE qty = 3")
    assert rows(cur, f"SELECT num, qty FROM {base} WHERE num = 3") == [(3, 30)]


def test_writes_through_a_view_by_informix_driver(ifx_target, base):
    v = unique("v")
    conn = theirs(ifx_target, autocommit=True)
    try:
        judge = conn.cursor()
        judge.execute(f"CREATE VIEW {v} (n, label) AS SELECT num, name FROM {base} "
                      "WHERE num < 10 WITH CHECK OPTION")
        judge.execute(f"INSERT INTO {v} VALUES (?, ?)", (7, "gus"))
        judge.execute(f"UPDATE {v} SET label = ? WHERE n = ?", ("GUS", 7))
        judge.execute(f"SELECT label FROM {v} WHERE n = 7")
        assert judge.fetchall() == [("GUS",)]
        with pytest.raises(Exception) as e:
            judge.execute(f"INSERT INTO {v} VALUES (?, ?)", (70, "out"))
        assert "-385" in str(e.value) or getattr(e.value, "sqlcode", None) == -385
        judge.execute(f"DELETE FROM {v} WHERE n = 7")
        judge.execute(f"SELECT COUNT(*) FROM {base}")
        assert judge.fetchall() == [(4,)]
    finally:
        conn.close()
