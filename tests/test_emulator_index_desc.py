"""DESC index keys in the catalog: sysindexes.partN holds the key's colno,
negative when the key is descending (IBM Informix Guide to SQL: Reference,
"SYSINDEXES"), which is how reflection (SQLAlchemy's column_sorting) learns
the order.  Runs on the emulator or, with IFX_*, a real server."""

from __future__ import annotations

import pytest

import informix_stream as ifx
from test_driver import connect, unique


@pytest.fixture
def cur(ifx_target):
    with connect(ifx_target, autocommit=True) as conn:
        yield conn.cursor()


def _parts(cur, index: str) -> list:
    cur.execute("SELECT part1, part2, part3, part4 FROM sysindexes WHERE idxname = ?",
                (index,))
    return list(cur.fetchone())


def test_desc_keys_are_negative_parts(cur):
    t, ix = unique("tdesc"), unique("ixdesc")
    cur.execute(f"CREATE TABLE {t} (a INT, b INT, c INT)")
    cur.execute(f"CREATE INDEX {ix} ON {t} (a, b DESC, c ASC)")
    assert _parts(cur, ix)[:3] == [1, -2, 3]


def test_desc_follows_a_renamed_index_and_not_a_recreated_one(cur):
    t, ix, renamed = unique("tdesc"), unique("ixdesc"), unique("ixren")
    cur.execute(f"CREATE TABLE {t} (a INT, b INT)")
    cur.execute(f"CREATE INDEX {ix} ON {t} (a DESC, b)")
    cur.execute(f"RENAME INDEX {ix} TO {renamed}")
    assert _parts(cur, renamed)[:2] == [-1, 2]
    cur.execute(f"DROP INDEX {renamed}")
    cur.execute(f"CREATE INDEX {renamed} ON {t} (a, b)")
    assert _parts(cur, renamed)[:2] == [1, 2]


def test_junk_after_an_index_key_is_a_syntax_error(cur):
    t = unique("tdesc")
    cur.execute(f"CREATE TABLE {t} (a INT, b INT)")
    with pytest.raises(ifx.ProgrammingError) as err:
        cur.execute(f"CREATE INDEX {unique('ix')} ON {t} (a b)")
    assert err.value.sqlcode == -201
