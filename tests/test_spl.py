"""SPL procedures and functions (issue 11 item 3) and callproc (issue 12 item 6).

Behaviour from IBM Informix Guide to SQL: Syntax, "SPL statements" (DEFINE,
LET, IF, FOR, FOREACH, WHILE, EXIT, CONTINUE, RETURN [WITH RESUME], RAISE
EXCEPTION, ON EXCEPTION, CALL, SYSTEM), "CREATE PROCEDURE", "CREATE
FUNCTION", "EXECUTE PROCEDURE", "DROP PROCEDURE"; the catalog from IBM Guide
to SQL: Reference ("SYSPROCEDURES", "SYSPROCBODY"); error codes from IBM's
message catalog (JDBC 15.0.1.0, sql_en_US.properties): -674 routine can not
be resolved, -673 same signature exists, -684/-685 too many/few values,
-694 too many arguments, -697 STEP zero, -284 more than one row, -9722 RAISE
EXCEPTION 0, -746 the user's message.  -9999 is the emulator's own "not
supported by the emulator".
"""

from __future__ import annotations

import asyncio
import datetime as dt
from decimal import Decimal

import pytest

import informix_stream as ifx
from test_driver import connect, unique


@pytest.fixture
def conn(ifx_target):
    c = connect(ifx_target, autocommit=True)
    yield c
    c.close()


def make(cur, text: str) -> None:
    cur.execute(text)


def rows(cur, sql: str, params=None) -> list[tuple]:
    cur.execute(sql, params)
    return [tuple(r) for r in cur.fetchall()]


def test_function_let_if_and_execute_function(conn):
    cur = conn.cursor()
    f = unique("grade")
    make(cur, f"""CREATE FUNCTION {f}(score INT, bonus INT DEFAULT 0)
        RETURNING VARCHAR(10) AS grade;
        DEFINE total INT;
        LET total = score + bonus;
        IF total >= 90 THEN RETURN 'A';
        ELIF total >= 80 THEN RETURN 'B';
        ELSE RETURN 'C';
        END IF
    END FUNCTION;""")
    assert rows(cur, f"EXECUTE FUNCTION {f}(95)") == [("A",)]
    assert cur.description[0][0] == "grade"
    assert rows(cur, f"EXECUTE FUNCTION {f}(?, ?)", [75, 8]) == [("B",)]
    assert rows(cur, f"EXECUTE FUNCTION {f}(?)", [10]) == [("C",)]       # DEFAULT used
    cur.execute(f"DROP FUNCTION {f}")


def test_for_while_exit_continue_and_return_with_resume(conn):
    cur = conn.cursor()
    p = unique("loops")
    make(cur, f"""CREATE PROCEDURE {p}(n INT) RETURNING INT AS i, INT AS sq;
        DEFINE i, k INT;
        FOR i = 1 TO n STEP 2
            IF i = 5 THEN CONTINUE FOR; END IF
            RETURN i, i * i WITH RESUME;
        END FOR
        FOR i IN (100, 200 TO 202)
            RETURN i, 0 WITH RESUME;
        END FOR
        LET k = 0;
        WHILE 1 = 1
            LET k = k + 1;
            IF k > 3 THEN EXIT WHILE; END IF
        END WHILE
        RETURN -1, k;
    END PROCEDURE""")
    assert rows(cur, f"EXECUTE PROCEDURE {p}(9)") == [
        (1, 1), (3, 9), (7, 49), (9, 81), (100, 0), (200, 0), (201, 0), (202, 0), (-1, 4)]
    assert [d[0] for d in cur.description] == ["i", "sq"]


def test_foreach_select_into_and_dml_inside(conn):
    cur = conn.cursor()
    t, p = unique("sp_t"), unique("sp_move")
    cur.execute(f"CREATE TABLE {t} (id INT, name VARCHAR(20), amount DECIMAL(10,2))")
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?)",
                    [(1, "a", Decimal("1.50")), (2, "b", Decimal("2.25")), (3, "c", None)])
    make(cur, f"""CREATE PROCEDURE {p}(lim INT) RETURNING INT, VARCHAR(20), DECIMAL(10,2);
        DEFINE v_id INT; DEFINE v_name VARCHAR(20); DEFINE v_amt, total DECIMAL(10,2);
        LET total = 0;
        FOREACH c1 FOR SELECT id, name, amount INTO v_id, v_name, v_amt FROM {t}
                WHERE id <= lim ORDER BY id
            IF v_amt IS NULL THEN CONTINUE FOREACH; END IF
            LET total = total + v_amt;
            UPDATE {t} SET name = v_name || '!' WHERE id = v_id;
        END FOREACH
        SELECT count(*) INTO v_id FROM {t} WHERE name LIKE '%!';
        INSERT INTO {t} VALUES (99, 'sum', total);
        RETURN v_id, 'total', total;
    END PROCEDURE""")
    assert rows(cur, f"EXECUTE PROCEDURE {p}(3)") == [(2, "total", Decimal("3.75"))]
    assert rows(cur, f"SELECT id, name FROM {t} ORDER BY id") == [
        (1, "a!"), (2, "b!"), (3, "c"), (99, "sum")]


def test_let_from_select_and_from_function_and_call(conn):
    cur = conn.cursor()
    pair, user = unique("pair"), unique("user")
    make(cur, f"""CREATE FUNCTION {pair}(x INT) RETURNING INT, INT;
        RETURN x, x * 10;
    END FUNCTION""")
    make(cur, f"""CREATE FUNCTION {user}() RETURNING INT, INT, INT, DATE;
        DEFINE a, b, c INT; DEFINE d DATE;
        LET a, b = {pair}(4);
        CALL {pair}(5) RETURNING c, a;
        LET c, d = (SELECT tabid, DATE('2024-02-29') FROM systables WHERE tabid = 1);
        RETURN a, b, c, d;
    END FUNCTION""")
    assert rows(cur, f"EXECUTE FUNCTION {user}()") == [(50, 40, 1, dt.date(2024, 2, 29))]


def test_function_in_select_and_where_with_its_type_described(conn):
    cur = conn.cursor()
    t, f = unique("sp_sel"), unique("twice")
    cur.execute(f"CREATE TABLE {t} (n INT)")
    cur.executemany(f"INSERT INTO {t} VALUES (?)", [(1,), (2,), (3,)])
    make(cur, f"""CREATE FUNCTION {f}(x INT) RETURNING DECIMAL(8,1);
        RETURN x * 2.5;
    END FUNCTION""")
    assert rows(cur, f"SELECT n, {f}(n) FROM {t} WHERE {f}(n) > 3 ORDER BY n") == [
        (2, Decimal("5.0")), (3, Decimal("7.5"))]
    assert cur.description[1][1] == 5                                    # DECIMAL


def test_function_in_a_query_may_only_read(conn):
    cur = conn.cursor()
    t, f = unique("sp_ro"), unique("writer")
    cur.execute(f"CREATE TABLE {t} (n INT)")
    cur.executemany(f"INSERT INTO {t} VALUES (?)", [(1,), (2,)])
    make(cur, f"""CREATE FUNCTION {f}(x INT) RETURNING INT;
        INSERT INTO {t} VALUES (x);
        RETURN x;
    END FUNCTION""")
    with pytest.raises(ifx.DatabaseError) as info:       # -675, never an endless scan
        rows(cur, f"SELECT {f}(n) FROM {t}")
    assert info.value.sqlcode == -675
    assert rows(cur, f"EXECUTE FUNCTION {f}(3)") == [(3,)]      # called alone it may write
    assert rows(cur, f"SELECT count(*) FROM {t}") == [(3,)]


def test_raise_exception_reaches_the_client(conn):
    cur = conn.cursor()
    p = unique("boom")
    make(cur, f"""CREATE PROCEDURE {p}(code INT)
        RAISE EXCEPTION code, -111, 'custom failure';
    END PROCEDURE""")
    with pytest.raises(ifx.DatabaseError) as info:
        cur.execute(f"EXECUTE PROCEDURE {p}(-746)")
    assert info.value.sqlcode == -746 and info.value.isam_code == -111
    assert "custom failure" in str(info.value)
    with pytest.raises(ifx.DatabaseError) as info:
        cur.execute(f"EXECUTE PROCEDURE {p}(0)")
    assert info.value.sqlcode == -9722
    assert rows(cur, "SELECT 1 FROM systables WHERE tabid = 1") == [(1,)]   # still usable


def test_on_exception_set_resume_and_block_exit(conn):
    cur = conn.cursor()
    boom, p = unique("boom"), unique("guard")
    make(cur, f"""CREATE PROCEDURE {boom}(code INT)
        RAISE EXCEPTION code, 0, 'from callee';
    END PROCEDURE""")
    make(cur, f"""CREATE PROCEDURE {p}() RETURNING INT, VARCHAR(40);
        DEFINE c, isam INT; DEFINE msg VARCHAR(40);
        BEGIN
            ON EXCEPTION IN (-206) SET c
                RETURN c, 'missing table' WITH RESUME;
            END EXCEPTION WITH RESUME
            INSERT INTO no_such_table_xyz VALUES (1);
            RETURN 1, 'resumed' WITH RESUME;
        END
        BEGIN
            ON EXCEPTION SET c, isam, msg      -- sqlcode, ISAM code, text: by position
                RETURN c, msg WITH RESUME;
            END EXCEPTION
            CALL {boom}(-1234);
            RETURN 2, 'not reached' WITH RESUME;
        END
        RETURN 3, 'after the block';
    END PROCEDURE""")
    assert rows(cur, f"EXECUTE PROCEDURE {p}()") == [
        (-206, "missing table"), (1, "resumed"), (-1234, "from callee"), (3, "after the block")]


def test_on_exception_in_list_does_not_catch_other_codes(conn):
    cur = conn.cursor()
    p = unique("narrow")
    make(cur, f"""CREATE PROCEDURE {p}()
        ON EXCEPTION IN (-206) END EXCEPTION
        RAISE EXCEPTION -999, 0, 'other';
    END PROCEDURE""")
    with pytest.raises(ifx.DatabaseError) as info:
        cur.execute(f"EXECUTE PROCEDURE {p}()")
    assert info.value.sqlcode == -999


def test_many_rows_stream_through_a_small_fetch_buffer(ifx_target):
    with connect(ifx_target, autocommit=True, fetch_buffer_size=512) as c:
        cur = c.cursor()
        p = unique("many")
        make(cur, f"""CREATE PROCEDURE {p}(n INT) RETURNING INT, CHAR(40);
            DEFINE i INT;
            FOR i = 1 TO n
                RETURN i, 'row' WITH RESUME;
            END FOR
        END PROCEDURE""")
        cur.execute(f"EXECUTE PROCEDURE {p}(5000)")
        got = [r[0] for r in cur]
        assert got == list(range(1, 5001))
        assert cur.fetchone() is None


def test_errors_of_calls_and_routine_ddl(conn):
    cur = conn.cursor()
    p = unique("one")
    make(cur, f"CREATE PROCEDURE {p}(a INT) END PROCEDURE")
    cur.execute(f"EXECUTE PROCEDURE {p}(1)")                            # no RETURNING: runs
    assert cur.description is None
    cases = [(f"EXECUTE PROCEDURE {p}(1, 2)", -694),
             (f"EXECUTE PROCEDURE {p}()", -674),
             ("EXECUTE PROCEDURE no_such_routine_xyz()", -674),
             (f"CREATE PROCEDURE {p}(a INT) END PROCEDURE", -673),
             ("DROP PROCEDURE no_such_routine_xyz", -674),
             (f"DROP FUNCTION {p}", -674),                 # a procedure, not a function
             ("CREATE FUNCTION f_noret() END FUNCTION", -9702)]
    for sql, code in cases:
        with pytest.raises(ifx.DatabaseError) as info:
            cur.execute(sql)
        assert info.value.sqlcode == code, sql
    cur.execute(f"DROP PROCEDURE {p}")
    cur.execute(f"DROP PROCEDURE IF EXISTS {p}")


def test_runtime_errors(conn):
    cur = conn.cursor()
    p, t = unique("rt"), unique("rt_t")
    cur.execute(f"CREATE TABLE {t} (n INT)")
    cur.executemany(f"INSERT INTO {t} VALUES (?)", [(1,), (2,)])
    make(cur, f"""CREATE PROCEDURE {p}(what INT) RETURNING INT;
        DEFINE i INT;
        IF what = 1 THEN FOR i = 1 TO 3 STEP 0 END FOR END IF
        IF what = 2 THEN SELECT n INTO i FROM {t}; END IF
        IF what = 3 THEN RETURN 1, 2; END IF
        RETURN 0;
    END PROCEDURE""")
    for what, code in ((1, -697), (2, -284), (3, -684)):
        with pytest.raises(ifx.DatabaseError) as info:
            rows(cur, f"EXECUTE PROCEDURE {p}(?)", [what])
        assert info.value.sqlcode == code


@pytest.mark.parametrize("body, construct", [
    ("SYSTEM 'ls';", "SYSTEM"),
    ("DEFINE GLOBAL g INT DEFAULT 0;", "DEFINE GLOBAL"),
    ("GOTO somewhere;", "GOTO"),
])
def test_unsupported_constructs_say_so(conn, body, construct):
    cur = conn.cursor()
    p = unique("ns")
    with pytest.raises(ifx.NotSupportedError) as info:
        cur.execute(f"CREATE PROCEDURE {p}() {body} END PROCEDURE")
        cur.execute(f"EXECUTE PROCEDURE {p}()")      # SYSTEM is refused when it runs
    assert info.value.sqlcode == -9999
    assert construct in str(info.value) and "not supported by the emulator" in str(info.value)


def test_catalog_rows_and_trace_ignored_and_document(conn):
    cur = conn.cursor()
    f = unique("cat")
    text = f"""CREATE FUNCTION {f}(a INT, b VARCHAR(10)) RETURNING INT;
        TRACE ON;
        RETURN a;
    END FUNCTION
    DOCUMENT 'returns its first argument'"""
    make(cur, text)
    assert rows(cur, "SELECT procname, numargs, isproc FROM sysprocedures WHERE procname = ?",
                [f]) == [(f, 2, "f")]
    cur.execute("SELECT b.data FROM sysprocbody b, sysprocedures p WHERE p.procid = b.procid"
                " AND p.procname = ? AND b.datakey = 'T' ORDER BY b.seqno", [f])
    assert "".join(r[0] for r in cur.fetchall()).rstrip() == text
    assert rows(cur, f"EXECUTE FUNCTION {f}(7, 'x')") == [(7,)]


def test_routine_sees_the_session_transaction_and_temp_tables(ifx_target):
    c = connect(ifx_target)
    cur = c.cursor()
    p, t = unique("tx"), unique("tx_t")
    cur.execute(f"CREATE TEMP TABLE {t} (n INT)")
    make(cur, f"""CREATE PROCEDURE {p}(x INT) RETURNING INT;
        DEFINE k INT;
        INSERT INTO {t} VALUES (x);
        SELECT count(*) INTO k FROM {t};
        RETURN k;
    END PROCEDURE""")
    assert rows(cur, f"EXECUTE PROCEDURE {p}(5)") == [(1,)]
    c.rollback()                      # the routine, its insert: all undone
    with pytest.raises(ifx.DatabaseError) as info:
        cur.execute(f"EXECUTE PROCEDURE {p}(5)")
    assert info.value.sqlcode == -674
    c.close()


def test_callproc_sync(conn):
    cur = conn.cursor()
    p = unique("cp")
    make(cur, f"""CREATE PROCEDURE {p}(a INT, b VARCHAR(40)) RETURNING INT, VARCHAR(40);
        RETURN a + 1, b || '!' WITH RESUME;
        RETURN a + 2, b;
    END PROCEDURE""")
    params = (41, "x'; DROP TABLE t --")
    assert cur.callproc(p, params) is params
    assert cur.fetchall() == [(42, "x'; DROP TABLE t --!"), (43, "x'; DROP TABLE t --")]
    with pytest.raises(ifx.ProgrammingError):
        cur.callproc(f"{p}(); DROP TABLE x", ())


def test_callproc_async(ifx_target):
    async def main():
        c = await ifx.connect_async(host=ifx_target.host, port=ifx_target.port,
                                    user=ifx_target.user, password=ifx_target.password,
                                    database=ifx_target.database, server=ifx_target.server,
                                    autocommit=True)
        try:
            cur = c.cursor()
            p = unique("acp")
            await cur.execute(f"""CREATE FUNCTION {p}(n INT) RETURNING INT;
                DEFINE i INT;
                FOR i = 1 TO n RETURN i WITH RESUME; END FOR
            END FUNCTION""")
            assert await cur.callproc(p, [3]) == [3]
            return await cur.fetchall()
        finally:
            await c.close()
    assert [tuple(r) for r in asyncio.run(asyncio.wait_for(main(), 60))] == [(1,), (2,), (3,)]
