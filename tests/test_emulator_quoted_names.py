"""Delimited names holding quotes and blanks (DELIMIDENT=y) through every
piece of SQLite text the emulator builds: tables, columns, constraints and
their triggers, indexes, views, ALTER TABLE rebuilds, BYTE/TEXT triggers.
Before, a ``"`` or ``'`` in such a name ended the emulator's own quoting
(-201, or a constraint error naming part of the constraint)."""

from __future__ import annotations

import pytest

import informix_stream as ifx
from faults.emu import DATABASE, connect
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(60)
TABLE, VIEW = "\"it's \"\"odd\"\" [%]\"", '"view ""odd"""'


@pytest.fixture(scope="module")
def cur():
    with EmulatorServer(databases=(DATABASE,)) as srv:
        conn = connect(srv, autocommit=True, env={"DELIMIDENT": "y"})
        yield conn.cursor()
        conn.close()


def test_quoted_names_round_trip(cur):
    cur.execute('CREATE TABLE "par ""ent""" ("k ""1""" INTEGER PRIMARY KEY)')
    cur.execute('INSERT INTO "par ""ent""" VALUES (1)')
    cur.execute(f'CREATE TABLE {TABLE} ("i""d" INTEGER NOT NULL, "na\'me" VARCHAR(20), t TEXT,'
                ' PRIMARY KEY ("i""d") CONSTRAINT "pk ""x"" \'y\'",'
                ' UNIQUE ("na\'me") CONSTRAINT "uq \'x\'",'
                ' FOREIGN KEY ("i""d") REFERENCES "par ""ent""" CONSTRAINT "fk \'x\' ""y""")')
    cur.execute(f'CREATE INDEX "ix ""x""" ON {TABLE} ("na\'me")')
    cur.execute(f"INSERT INTO {TABLE} VALUES (1, 'a', 'text')")
    with pytest.raises(ifx.IntegrityError) as info:
        cur.execute(f"INSERT INTO {TABLE} VALUES (2, 'b', NULL)")      # no parent 2
    assert info.value.sqlcode == -691
    assert info.value.near == "fk 'x' \"y\""               # the whole name, blanks and all
    cur.execute(f'ALTER TABLE {TABLE} ADD ("n""ew" INTEGER)')
    cur.execute(f'CREATE VIEW {VIEW} AS SELECT "i""d", "na\'me", t FROM {TABLE}')
    cur.execute(f'UPDATE {TABLE} SET "n""ew" = 7, t = ? WHERE "i""d" = 1', ("other",))
    cur.execute(f'SELECT "i""d", "na\'me", t, "n""ew" FROM {TABLE}')
    assert cur.fetchall() == [(1, "a", "other", 7)]
    cur.execute(f"SELECT * FROM {VIEW}")
    assert cur.fetchall() == [(1, "a", "other")]
    with pytest.raises(ifx.IntegrityError):
        cur.execute('DELETE FROM "par ""ent"""')          # still referenced after ALTER
    cur.execute(f"DROP VIEW {VIEW}")
    cur.execute(f"DROP TABLE {TABLE}")
    cur.execute('DELETE FROM "par ""ent"""')
    assert cur.rowcount == 1
