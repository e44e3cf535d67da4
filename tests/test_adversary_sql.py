"""Adversary: emulator answers compared with what the SQL means, computed
independently in Python over the rows the test put in: Informix outer
groups ``OUTER (b, c)`` / ``OUTER (b, OUTER c)`` (semantics: HCL Informix
Guide to SQL: Tutorial, ids_sqt_169/170, as tests/test_emulator_outer_groups.py
cites), MERGE, and writes through a view, with NULLs, duplicates and empty
tables (hypothesis-generated)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from faults.emu import DATABASE, connect, rows
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(300)
SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])

small = st.one_of(st.none(), st.integers(0, 2))
table = st.lists(st.tuples(small, small), max_size=4)


@pytest.fixture(scope="module")
def cur():
    with EmulatorServer(databases=(DATABASE,)) as srv:
        conn = connect(srv, autocommit=True)
        yield conn.cursor()
        conn.close()


def _fill(cur, name: str, cols: str, data: list[tuple]) -> list[tuple]:
    """(id, *values) rows of a fresh table ``name``."""
    cur.execute(f"DROP TABLE IF EXISTS {name}")
    cur.execute(f"CREATE TABLE {name} (id INT, {cols})")
    out = [(i, *row) for i, row in enumerate(data)]
    if out:
        marks = ", ".join("?" * len(out[0]))
        cur.executemany(f"INSERT INTO {name} VALUES ({marks})", out)
    return out


def _eq(x, y) -> bool:
    """SQL '=': NULL equals nothing."""
    return x is not None and y is not None and x == y


def _key(row):
    return tuple((v is None, v or 0) for v in row)


@SETTINGS
@given(a=table, b=table, c=table)
def test_outer_group_of_two_tables(cur, a, b, c):
    A = _fill(cur, "oa", "x INT, y INT", a)
    B = _fill(cur, "ob", "x INT, y INT", b)
    C = _fill(cur, "oc", "x INT, y INT", c)
    got = rows(cur.connection, "SELECT oa.id, ob.id, oc.id FROM oa, OUTER (ob, oc)"
                               " WHERE oa.x = ob.x AND ob.y = oc.y AND oc.x <> 2")
    inner = [(bb, cc) for bb in B for cc in C if _eq(bb[2], cc[2]) and _eq(cc[1], 0) |
             _eq(cc[1], 1)]
    want = []
    for ra in A:
        hits = [(bb[0], cc[0]) for bb, cc in inner if _eq(ra[1], bb[1])]
        want += [(ra[0], *h) for h in hits] or [(ra[0], None, None)]
    assert sorted(got, key=_key) == sorted(want, key=_key)


@SETTINGS
@given(a=table, b=table, c=table)
def test_nested_outer(cur, a, b, c):
    A = _fill(cur, "oa", "x INT, y INT", a)
    B = _fill(cur, "ob", "x INT, y INT", b)
    C = _fill(cur, "oc", "x INT, y INT", c)
    got = rows(cur.connection, "SELECT oa.id, ob.id, oc.id FROM oa, OUTER (ob, OUTER oc)"
                               " WHERE oa.x = ob.x AND ob.y = oc.y")
    want = []
    for ra in A:
        bs = [bb for bb in B if _eq(ra[1], bb[1])]
        if not bs:
            want.append((ra[0], None, None))
        for bb in bs:
            cs = [cc[0] for cc in C if _eq(bb[2], cc[2])]
            want += [(ra[0], bb[0], k) for k in cs] or [(ra[0], bb[0], None)]
    assert sorted(got, key=_key) == sorted(want, key=_key)


@SETTINGS
@given(target=st.lists(st.tuples(st.integers(0, 5), small), max_size=5, unique_by=lambda r: r[0]),
       source=st.lists(st.tuples(st.one_of(st.none(), st.integers(0, 8)), small), max_size=5))
def test_merge_updates_matched_and_inserts_the_rest(cur, target, source):
    """Source keys are unique among non-NULL ones (a target row matched
    twice is an error, not tested here); a NULL key matches nothing."""
    seen, src = set(), []
    for k, v in source:
        if k is None or k not in seen:
            src.append((k, v))
            seen.add(k)
    _fill(cur, "mt", "k INT, v INT", target)
    _fill(cur, "ms", "k INT, v INT", src)
    cur.execute("MERGE INTO mt USING ms ON mt.k = ms.k"
                " WHEN MATCHED THEN UPDATE SET v = ms.v"
                " WHEN NOT MATCHED THEN INSERT (k, v) VALUES (ms.k, ms.v)")
    want = [(k, v) for k, v in target]
    for sk, sv in src:
        hit = [i for i, (k, _) in enumerate(target) if _eq(k, sk)]
        if hit:
            want[hit[0]] = (sk, sv)
        else:
            want.append((sk, sv))
    assert cur.rowcount == len(src)
    got = rows(cur.connection, "SELECT k, v FROM mt")
    assert sorted(got, key=_key) == sorted(want, key=_key)


@SETTINGS
@given(data=st.lists(st.tuples(small, small), max_size=6), bump=st.integers(-3, 3),
       limit=small)
def test_update_and_delete_through_a_view(cur, data, bump, limit):
    """A view with a WHERE: only the rows it shows are updated or deleted;
    the rows it hides are untouched, NULLs included."""
    base = _fill(cur, "vt", "k INT, v INT", data)
    cur.execute("DROP VIEW IF EXISTS vv")
    cur.execute("CREATE VIEW vv (ident, key, val) AS SELECT id, k, v FROM vt WHERE v > 0")
    cur.execute("UPDATE vv SET val = val + ? WHERE key < ? OR key IS NULL", (bump, limit))
    shown = [r for r in base if r[2] is not None and r[2] > 0]
    hit = {r[0] for r in shown if r[1] is None or (limit is not None and r[1] < limit)}
    assert cur.rowcount == len(hit)
    want = [(i, k, v + bump if i in hit else v) for i, k, v in base]
    assert sorted(rows(cur.connection, "SELECT id, k, v FROM vt"), key=_key) == \
        sorted(want, key=_key)
    cur.execute("DELETE FROM vv WHERE val <> ?", (limit,))
    gone = {i for i, k, v in want if v is not None and v > 0 and limit is not None
            and v != limit}
    assert cur.rowcount == len(gone)
    left = sorted(rows(cur.connection, "SELECT id, k, v FROM vt"), key=_key)
    assert left == sorted([r for r in want if r[0] not in gone], key=_key)
