"""SET statements in the emulator: SET ISOLATION and SET LOCK MODE are
checked word by word (a misspelt level is the server's -201, not a silent
success), the plan/diagnostic options IBM's JDBC sends when it resets a
pooled connection succeed as no-ops, and a SET the emulator does not know
is refused as not supported (IBM Informix Guide to SQL: Syntax, SET
ISOLATION, SET LOCK MODE; IfxSqliConnect.resetDatabaseProperties)."""

from __future__ import annotations

import pytest

import informix_stream as ifx
from faults.emu import connect

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def cur(server):
    conn = connect(server, autocommit=True)
    yield conn.cursor()
    conn.close()


@pytest.mark.parametrize("sql", [
    "SET ISOLATION TO DIRTY READ", "set isolation to dirty read with warning",
    "SET ISOLATION COMMITTED READ", "SET ISOLATION TO COMMITTED READ LAST COMMITTED",
    "SET ISOLATION TO CURSOR STABILITY RETAIN UPDATE LOCKS", "SET ISOLATION TO REPEATABLE READ",
    "SET LOCK MODE TO WAIT", "SET LOCK MODE TO WAIT 3", "set lock mode to not wait",
    # what IBM's JDBC sends to reset a pooled connection
    "set dataskip default", "set explain off", "set optimization high",
    "set pdqpriority default", "set role null",
])
def test_accepted(cur, sql):
    cur.execute(sql)
    cur.execute("SELECT COUNT(*) FROM systables WHERE tabid = 1")
    assert cur.fetchone() == (1,)


@pytest.mark.parametrize("sql", [
    "SET ISOLATION TO NO SUCH LEVEL", "SET ISOLATION TO DIRTY", "SET ISOLATION",
    "SET ISOLATION TO REPEATABLE READ RETAIN UPDATE", "SET LOCK MODE WAIT",
    "SET LOCK MODE TO WAIT FOREVER", "SET LOCK MODE TO NOT",
])
def test_a_malformed_isolation_or_lock_mode_is_a_syntax_error(cur, sql):
    with pytest.raises(ifx.ProgrammingError) as info:
        cur.execute(sql)
    assert info.value.sqlcode == -201


def test_an_unknown_set_is_refused_as_not_supported(cur):
    with pytest.raises(ifx.NotSupportedError) as info:
        cur.execute("SET SESSION AUTHORIZATION TO 'bob'")
    assert info.value.sqlcode == -9999
    assert "SET SESSION" in str(info.value) and "emulator" in str(info.value)
