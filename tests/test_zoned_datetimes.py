"""A datetime or time carrying a time zone is refused on every path, with a
DataError naming the parameter (or Arrow column) and the row.

Informix DATETIME has no time zone.  Before this rule, each path stored the
value's own wall time with the zone dropped, so 12:00+02:00 and 12:00-05:00
both became 12:00 without a word (found by the adversary).  Neither
reference driver defines a conversion (scalars.refuse_zone says where that
was checked), so the caller says which wall time is meant.  The paths: bind
(execute), executemany on the prepared and the insert-cursor path (row
images, the column-wise encoder), Arrow ingest on both paths and
load_arrow -- all with executemany's contract: ``row_index`` is the row,
exactly the rows before it are applied.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest

import informix_stream as ifx
from informix_stream.codec.params import encode_param
from informix_stream.codecs import make_row_encoder, parse_type
from informix_stream.insert_cursor import BATCH_ROWS, InsertCursor, value_check
from test_driver import connect, unique

PLUS2 = dt.timezone(dt.timedelta(hours=2))
MINUS5 = dt.timezone(dt.timedelta(hours=-5))
PARIS = zoneinfo.ZoneInfo("Europe/Paris")
AWARE = [dt.datetime(2024, 3, 1, 12, 0, tzinfo=PLUS2),
         dt.datetime(2024, 3, 1, 12, 0, 0, 250000, tzinfo=dt.timezone.utc),
         dt.datetime(2024, 7, 14, 9, 30, tzinfo=PARIS)]


# -- the encoders, without a server ---------------------------------------------

@pytest.mark.parametrize("value", AWARE, ids=["+02:00", "utc-fraction", "zoneinfo"])
def test_bind_refuses_an_aware_datetime_and_says_how_to_convert(value):
    with pytest.raises(ifx.DataError) as info:
        encode_param(value)
    text = str(info.value)
    assert "time zone" in text and "astimezone(zone).replace(tzinfo=None)" in text
    assert str(value.tzinfo) in text


def test_bind_refuses_an_aware_time():
    with pytest.raises(ifx.DataError, match=r"replace\(tzinfo=None\)"):
        encode_param(dt.time(12, 0, tzinfo=MINUS5))


def test_the_naive_wall_time_the_message_suggests_binds():
    """The two offsets differ once converted: what the refusal protects."""
    a, b = (v.astimezone(dt.timezone.utc).replace(tzinfo=None)
            for v in (dt.datetime(2024, 3, 1, 12, tzinfo=PLUS2),
                      dt.datetime(2024, 3, 1, 12, tzinfo=MINUS5)))
    assert encode_param(a) != encode_param(b)
    assert encode_param(dt.time(12, 0)) == encode_param(dt.time(12, 0, tzinfo=None))


@pytest.mark.parametrize("ddl", ["datetime year to second", "datetime year to fraction(3)",
                                 "datetime hour to second", "datetime year to minute"])
def test_the_row_image_encoder_refuses_it_too(ddl):
    """make_row_encoder is public; its fast and reference cell encoders agree."""
    ctype = parse_type(ddl)
    encode = make_row_encoder([ctype])
    value = dt.time(12, tzinfo=PLUS2) if "hour to" in ddl else AWARE[0]
    with pytest.raises(ifx.DataError, match="time zone"):
        encode((value,))
    naive = value.replace(tzinfo=None)
    assert encode((naive,))


def test_the_column_wise_encoder_gives_the_row_at_a_time_error():
    types = [parse_type("integer"), parse_type("datetime year to second")]
    put = InsertCursor(1, types, [value_check(t, "utf-8") for t in types], "utf-8",
                       lambda blocks: b"")
    rows = [(i, dt.datetime(2024, 1, 1) + dt.timedelta(minutes=i)) for i in range(50)]
    rows[37] = (37, AWARE[2])
    items = put.batch_items(rows, None, 2, "utf-8")
    got = [next(items) for _ in range(37)]
    assert all(type(item) is bytes for item in got)      # the rows before it: images
    with pytest.raises(ifx.DataError) as batch:
        next(items)
    with pytest.raises(ifx.DataError) as one:
        put.item(rows[37], None, 2, "utf-8")
    assert str(batch.value) == str(one.value) and "parameter 2" in str(one.value)


# -- against the emulator -------------------------------------------------------

@pytest.fixture
def events(ifx_target):
    t = unique("tz")
    with connect(ifx_target, autocommit=True) as c:
        c.cursor().execute(f"CREATE TABLE {t} (id INTEGER, at DATETIME YEAR TO SECOND, "
                           "note VARCHAR(10))")        # columns the insert cursor sends
    yield t
    with connect(ifx_target, autocommit=True) as c:
        c.cursor().execute(f"DROP TABLE {t}")


def _ids(cur, t: str) -> list[int]:
    cur.execute(f"SELECT id FROM {t} ORDER BY id")
    return [r[0] for r in cur.fetchall()]


def test_execute_refuses_before_sending_and_the_connection_goes_on(ifx_target):
    with connect(ifx_target, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute("CREATE TEMP TABLE clocks (id INTEGER, at DATETIME YEAR TO FRACTION(5), "
                    "clock DATETIME HOUR TO SECOND)")
        sql = "INSERT INTO clocks VALUES (?, ?, ?)"
        with pytest.raises(ifx.DataError, match="parameter 2: .*time zone"):
            cur.execute(sql, (1, AWARE[0], None))
        with pytest.raises(ifx.DataError, match="parameter 3: .*time zone"):
            cur.execute(sql, (2, None, dt.time(8, 15, tzinfo=PARIS)))
        wall = AWARE[0].astimezone(dt.timezone.utc).replace(tzinfo=None)
        cur.execute(sql, (3, wall, dt.time(8, 15)))
        cur.execute("SELECT id, at, clock FROM clocks")
        assert cur.fetchall() == [(3, dt.datetime(2024, 3, 1, 10, 0), dt.time(8, 15))]


def _rows(n: int, bad: int, value) -> list[tuple]:
    rows = [(i, dt.datetime(2024, 1, 1) + dt.timedelta(seconds=i), None) for i in range(n)]
    rows[bad] = (bad, value, None)
    return rows


@pytest.mark.parametrize("insert_cursor", [False, True], ids=["prepared", "insert-cursor"])
@pytest.mark.parametrize("autocommit", [True, False], ids=["autocommit", "transaction"])
@pytest.mark.parametrize("bad", [0, 7, BATCH_ROWS + 3])
def test_executemany_stops_at_the_aware_row(ifx_target, events, insert_cursor, autocommit, bad):
    rows = _rows(BATCH_ROWS + 40, bad, AWARE[bad % 3])
    with connect(ifx_target, autocommit=autocommit) as conn:
        cur = conn.cursor()
        with pytest.raises(ifx.DataError) as info:
            cur.executemany(f"INSERT INTO {events} VALUES (?, ?, ?)", rows, chunk_size=100,
                            insert_cursor=insert_cursor)
        assert info.value.row_index == bad
        assert f"row {bad}: parameter 2: " in str(info.value)
        if not autocommit:
            conn.commit()
        assert _ids(cur, events) == list(range(bad))


@pytest.mark.parametrize("insert_cursor", [False, True], ids=["prepared", "insert-cursor"])
def test_executemany_with_batch_errors_also_stops_there(ifx_target, events, insert_cursor):
    """batch_errors collects the server's refusals; a value the driver cannot
    bind at all raises, as any unencodable value does, rows before it applied."""
    rows = _rows(30, 12, dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc))
    with connect(ifx_target, autocommit=True) as conn:
        cur = conn.cursor()
        with pytest.raises(ifx.DataError) as info:
            cur.executemany(f"INSERT INTO {events} VALUES (?, ?, ?)", rows, chunk_size=5,
                            insert_cursor=insert_cursor, batch_errors=True)
        assert info.value.row_index == 12
        assert _ids(cur, events) == list(range(12))


# -- Arrow ----------------------------------------------------------------------

def _arrow_table(n: int = 3000):
    pa = pytest.importorskip("pyarrow", reason="Arrow ingest needs the arrow extra")
    # pyarrow reads these naive values as UTC; row 0 is NULL: the column's
    # type decides, not a cell
    stamps = [None if i == 0 else dt.datetime(2024, 3, 1, 12) + dt.timedelta(minutes=i)
              for i in range(n)]
    return pa.table({"id": pa.array(range(n), pa.int32()),
                     "at": pa.array(stamps, pa.timestamp("us", tz="Europe/Paris")),
                     "note": pa.array(["n"] * n)})


class Bad(Exception):
    def __init__(self, error):
        super().__init__(error)
        self.error = error


def test_arrow_encoders_and_their_references_refuse_the_column_alike():
    from informix_stream.arrow import ingest, put_images
    table = _arrow_table(10)
    with pytest.raises(Bad) as fast:
        list(ingest.encoded_rows(table, None, 3, Bad))
    with pytest.raises(ifx.DataError) as plain:
        list(ingest.reference_rows(table, None, 3))
    assert str(fast.value.error) == str(plain.value)
    text = str(plain.value)
    assert "column 'at'" in text and "timestamp[us, tz=Europe/Paris]" in text
    assert "local_timestamp" in text and "pyarrow.timestamp('us')" in text
    types = [parse_type(d) for d in ("integer", "datetime year to second", "varchar(10)")]
    put = InsertCursor(1, types, [value_check(t, "utf-8") for t in types], "utf-8",
                       lambda blocks: b"")
    with pytest.raises(Bad) as fast_put:
        list(put_images.put_items(table, None, 3, put, "utf-8", Bad))
    with pytest.raises(ifx.DataError) as plain_put:
        list(put_images.reference_items(table, None, 3, put, "utf-8"))
    assert str(fast_put.value.error) == str(plain_put.value) == text


@pytest.mark.parametrize("insert_cursor", [False, True], ids=["prepared", "insert-cursor"])
@pytest.mark.parametrize("how", ["executemany", "load_arrow", "stream"])
def test_an_aware_arrow_column_is_refused_before_any_row_is_sent(
        ifx_target, events, insert_cursor, how):
    pa = pytest.importorskip("pyarrow", reason="Arrow ingest needs the arrow extra")
    table = _arrow_table()
    with connect(ifx_target, autocommit=True) as conn:
        cur = conn.cursor()
        with pytest.raises(ifx.DataError) as info:
            if how == "executemany":
                cur.executemany(f"INSERT INTO {events} VALUES (?, ?, ?)", table,
                                chunk_size=500, insert_cursor=insert_cursor)
            elif how == "load_arrow":
                cur.load_arrow(events, table, chunk_size=500, insert_cursor=insert_cursor)
            else:
                reader = pa.RecordBatchReader.from_batches(table.schema,
                                                           table.to_batches(max_chunksize=700))
                cur.load_arrow(events, reader, columns=["id", "at"], insert_cursor=insert_cursor)
        assert info.value.row_index == 0
        assert "row 0: column 'at': " in str(info.value)
        assert _ids(cur, events) == []


@pytest.mark.parametrize("insert_cursor", [False, True], ids=["prepared", "insert-cursor"])
def test_the_conversions_the_message_names_store_the_wall_time_chosen(
        ifx_target, events, insert_cursor):
    pc = pytest.importorskip("pyarrow.compute", reason="Arrow ingest needs the arrow extra")
    pa = pytest.importorskip("pyarrow", reason="Arrow ingest needs the arrow extra")
    table = _arrow_table(4)
    at = table.column("at")
    local = table.set_column(1, "at", pc.local_timestamp(at))
    utc = table.set_column(1, "at", at.cast(pa.timestamp("us")))
    with connect(ifx_target, autocommit=True) as conn:
        cur = conn.cursor()
        cur.load_arrow(events, local, insert_cursor=insert_cursor)
        cur.load_arrow(events, utc.set_column(0, "id", pa.array(range(10, 14), pa.int32())),
                       insert_cursor=insert_cursor)
        cur.load_arrow(events, table, columns=["id", "note"])     # the zoned column unbound
        cur.execute(f"SELECT id, at FROM {events} WHERE at IS NOT NULL ORDER BY id")
        got = cur.fetchall()
    utc_wall = [dt.datetime(2024, 3, 1, 12) + dt.timedelta(minutes=i) for i in (1, 2, 3)]
    assert got == [(i, d + dt.timedelta(hours=1)) for i, d in zip((1, 2, 3), utc_wall)] + \
        list(zip((11, 12, 13), utc_wall))           # Paris is UTC+01:00 in March
