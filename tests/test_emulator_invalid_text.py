"""Text whose bytes are no characters of the database's code set (issue 11,
emulator fidelity): a client sending ISO 8859-1 bytes to a UTF-8 database.

The server checks incoming character data against the database's locale:
with EILSEQ_COMPAT_MODE at its default 0 it "returns error -202 if any
characters are not valid" (HCL Informix Administrator's Reference 12.10 and
14.10, "EILSEQ_COMPAT_MODE configuration parameter"); -202 is "An illegal
character has been found in the statement" (IBM JDBC 15.0.1.0 message
catalog).  The emulator used to answer -408 and drop the connection.  Here:
-202 on every path a value arrives by (a bound value, a pipelined batch of
inserts, an SQ_PUT block, the statement text), nothing of the statement
stored, and the connection usable after."""

from __future__ import annotations

import informix_db
import pytest

import informix_stream
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(60)

USER, PASSWORD = "informix", "in4mix"


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases={"utf8db": "en_US.utf8"}) as srv:
        yield srv


@pytest.fixture
def latin_ours(server):
    """Our driver, made to send ISO 8859-1 bytes to the UTF-8 database (as a
    client with the wrong locale would)."""
    conn = informix_stream.connect(host="127.0.0.1", port=server.port, user=USER,
                                   password=PASSWORD, database="utf8db", autocommit=True,
                                   read_timeout=30)
    cur = conn.cursor()
    cur.execute("DROP TABLE IF EXISTS u")
    cur.execute("CREATE TABLE u (id INTEGER, v VARCHAR(20), l LVARCHAR(100))")
    conn._session.encoding = "iso-8859-1"  # noqa: SLF001 - the wrong-locale client
    yield conn, cur
    conn.close()


def _count(cur) -> list:
    cur.execute("SELECT id, v FROM u ORDER BY id")
    return cur.fetchall()


def test_informix_driver_with_a_latin1_client_gets_202_and_goes_on(server):
    conn = informix_db.connect(host="127.0.0.1", port=server.port, user=USER,
                               password=PASSWORD, database="utf8db",
                               client_locale="en_US.8859-1", env={"DB_LOCALE": "en_US.8859-1"},
                               read_timeout=10, autocommit=True)
    try:
        cur = conn.cursor()
        cur.execute("DROP TABLE IF EXISTS t202")
        cur.execute("CREATE TABLE t202 (id INT, v VARCHAR(20))")
        with pytest.raises(informix_db.Error) as info:
            cur.execute("INSERT INTO t202 VALUES (?, ?)", (1, "h\u00e9llo"))
        assert "-202" in str(info.value)
        cur.execute("INSERT INTO t202 VALUES (?, ?)", (2, "ascii"))
        cur.execute("SELECT id, v FROM t202")
        assert cur.fetchall() == [(2, "ascii")]
    finally:
        conn.close()


@pytest.mark.parametrize("column", ["v", "l"])
def test_a_bound_value_is_refused_and_nothing_stored(latin_ours, column):
    conn, cur = latin_ours
    with pytest.raises(informix_stream.DatabaseError) as info:
        cur.execute(f"INSERT INTO u (id, {column}) VALUES (?, ?)", (1, "caf\u00e9"))
    assert info.value.sqlcode == -202
    cur.execute("INSERT INTO u (id, v) VALUES (?, ?)", (2, "plain"))
    assert _count(cur) == [(2, "plain")]


def test_in_a_transaction_the_work_before_stays_and_commits(latin_ours):
    conn, cur = latin_ours
    conn.autocommit = False
    cur.execute("INSERT INTO u (id, v) VALUES (?, ?)", (1, "before"))
    with pytest.raises(informix_stream.DatabaseError) as info:
        cur.execute("UPDATE u SET v = ? WHERE id = 1", ("\u00e9t\u00e9",))
    assert info.value.sqlcode == -202
    conn.commit()
    assert _count(cur) == [(1, "before")]


@pytest.mark.parametrize("insert_cursor", [False, True])
def test_executemany_refuses_the_block_on_both_paths(latin_ours, insert_cursor):
    """BIND+EXECUTE requests pipelined (the emulator's batched insert path)
    and SQ_PUT blocks (the insert cursor)."""
    conn, cur = latin_ours
    rows = [(i, f"row {i}") for i in range(40)]
    rows[17] = (17, "na\u00efve")
    with pytest.raises(informix_stream.DatabaseError) as info:
        cur.executemany("INSERT INTO u (id, v) VALUES (?, ?)", rows,
                        insert_cursor=insert_cursor)
    assert info.value.sqlcode == -202
    stored = _count(cur)
    assert (17, "na\u00efve") not in stored and all(r == rows[r[0]] for r in stored)
    cur.execute("INSERT INTO u (id, v) VALUES (?, ?)", (100, "after"))
    assert _count(cur)[-1] == (100, "after")


def test_statement_text_is_refused_too(latin_ours):
    conn, cur = latin_ours
    with pytest.raises(informix_stream.DatabaseError) as info:
        cur.execute("INSERT INTO u (id, v) VALUES (1, 'gar\u00e7on')")
    assert info.value.sqlcode == -202
    assert _count(cur) == []
