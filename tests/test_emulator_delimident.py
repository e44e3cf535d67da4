"""Delimited identifiers (DELIMIDENT) in the emulator.

IBM Informix Guide to SQL: Syntax, "Delimited Identifiers": with DELIMIDENT
set in the client's environment, text in double quotes is an identifier
whose lettercase is kept ("MixedCase" is not mixedcase), may hold spaces,
symbols and reserved words, and single quotes alone delimit strings; without
it, double quotes delimit strings.  Undelimited identifiers fold to lower
case.  The catalog stores a delimited name exactly as written.
"""

from __future__ import annotations

import pytest

import informix_stream as ifx
from informix_stream.emulator.server import EmulatorServer


@pytest.fixture(scope="module")
def server():
    s = EmulatorServer(databases={"dq": "en_US.utf8"}).start()
    yield s
    s.stop()


def _connect(server, delimident: bool):
    env = {"DELIMIDENT": "y"} if delimident else {}
    return ifx.connect(host="127.0.0.1", port=server.port, password="in4mix",
                       database="dq", env=env, autocommit=True, read_timeout=30)


@pytest.fixture
def dq(server):
    c = _connect(server, True)
    yield c
    c.close()


def test_double_quotes_name_a_column_single_quotes_a_string(dq):
    cur = dq.cursor()
    cur.execute('SELECT "tabname", \'tabname\' FROM systables WHERE tabid = 1')
    assert cur.fetchall() == [("systables", "tabname")]


def test_delimited_names_keep_case_symbols_and_reserved_words(dq):
    cur = dq.cursor()
    cur.execute('CREATE TABLE "Mixed % Case" ("Col One" INTEGER, "select" INTEGER, Plain INTEGER)')
    try:
        cur.execute('INSERT INTO "Mixed % Case" VALUES (1, 2, 3)')
        cur.execute('INSERT INTO "Mixed % Case" ("Col One", "select", plain) VALUES (?, ?, ?)',
                    (4, 5, 6))
        cur.execute('SELECT "Col One", "select", PLAIN FROM "Mixed % Case" m '
                    'WHERE m."select" = ?', (5,))
        assert [d[0] for d in cur.description] == ["Col One", "select", "plain"]
        assert cur.fetchall() == [(4, 5, 6)]
        cur.execute("SELECT tabname FROM systables WHERE tabname = 'Mixed % Case'")
        assert cur.fetchall() == [("Mixed % Case",)]
        cur.execute("SELECT colname FROM syscolumns c, systables t WHERE c.tabid = t.tabid "
                    "AND t.tabname = 'Mixed % Case' ORDER BY colno")
        assert cur.fetchall() == [("Col One",), ("select",), ("plain",)]
    finally:
        cur.execute('DROP TABLE "Mixed % Case"')


def test_delimited_name_is_case_sensitive(dq):
    cur = dq.cursor()
    cur.execute('CREATE TABLE "CaseT" (k INTEGER)')
    try:
        with pytest.raises(ifx.ProgrammingError) as err:
            cur.execute("SELECT k FROM caset")
        assert err.value.sqlcode == -206
        cur.execute('SELECT k FROM "CaseT"')
        assert cur.fetchall() == []
    finally:
        cur.execute('DROP TABLE "CaseT"')


def test_undelimited_names_fold_to_lower_case(dq):
    cur = dq.cursor()
    cur.execute("CREATE TABLE FoldMe (K INTEGER)")
    try:
        cur.execute('SELECT "k" FROM "foldme"')
        assert cur.fetchall() == []
        cur.execute("SELECT tabname FROM systables WHERE tabname = 'foldme'")
        assert cur.fetchall() == [("foldme",)]
    finally:
        cur.execute("DROP TABLE foldme")


def test_empty_delimited_identifier_is_a_syntax_error(dq):
    with pytest.raises(ifx.ProgrammingError) as err:
        dq.cursor().execute('SELECT "" FROM systables WHERE tabid = 1')
    assert err.value.sqlcode == -201


def test_same_text_means_a_string_without_delimident(server, dq):
    """The translation cache is shared by every session of a database: the
    same text prepared with and without DELIMIDENT must not share one."""
    sql = 'SELECT "tabname" FROM systables WHERE tabid = 1'
    cur = dq.cursor()
    cur.execute(sql)
    assert cur.fetchall() == [("systables",)]
    plain = _connect(server, False)
    try:
        cur = plain.cursor()
        cur.execute(sql)
        assert cur.fetchall() == [("tabname",)]
    finally:
        plain.close()
