"""Named ROW types' fields from sysattrtypes rows (core/named_rows.py): the
row layouts of both kinds of catalog (a composite field pointing at a type
of its own, as the emulator keeps it; or the whole tree under one type, as
JDBC's loadStructInfo also accepts), opaque built-ins by extended id, and
catalogs the driver must refuse rather than guess from."""

from __future__ import annotations

import pytest

from informix_stream.codec import composite as cc
from informix_stream.core import named_rows as nr
from informix_stream.errors import NotSupportedError

# (extended_id, seqno, levelno, parent_no, fieldname, fieldno, type, length, xtd_type_id)
OWN_TYPES = {
    101: [(101, 1, 0, 0, None, 0, 22 | 0x1000, 0, 101),
          (101, 2, 1, 1, "name", 1, 13, 20, 0),
          (101, 3, 1, 1, "age", 2, 2 | 0x100, 4, 0),
          (101, 4, 1, 1, "tags", 3, 19, 0, 102),
          (101, 5, 1, 1, "ok", 4, 41, 1, 5),
          (101, 6, 1, 1, "note", 5, 40, 40, 1)],
    102: [(102, 1, 0, 0, None, 0, 19, 0, 102),
          (102, 2, 1, 1, None, 1, 2 | 0x100, 4, 0)],
}


def test_fields_from_a_type_per_composite_field():
    text = nr._type_text(OWN_TYPES, 101, "person_t", 0)
    assert text == ("row(name varchar(20),age integer not null,tags set(integer not null),"
                    "ok boolean,note lvarchar(40))")
    shape = cc.parse_shape(text)
    assert cc.parse_value(shape, "ROW('Al',3,SET{1},'t','x')") == ("Al", 3, {1}, True, "x")


def test_fields_from_one_tree():
    tree = {7: [(7, 1, 0, 0, None, 0, 22 | 0x1000, 0, 7),
                (7, 2, 1, 1, "a", 1, 2, 4, 0),
                (7, 3, 1, 1, "b", 2, 21, 0, 0),
                (7, 4, 2, 3, None, 1, 13 | 0x100, 8, 0),
                (7, 5, 1, 1, "c", 3, 22, 0, 0),
                (7, 6, 2, 5, "x", 1, 5, (6 << 8) | 2, 0)]}
    assert nr._type_text(tree, 7, "t", 0) == \
        "row(a integer,b list(varchar(8) not null),c row(x decimal(6,2)))"


@pytest.mark.parametrize("rows, match", [
    ({}, "no sysattrtypes rows"),
    ({5: [(5, 2, 1, 1, "a", 1, 2, 4, 0)]}, "seqno 1"),
    ({5: [(5, 1, 0, 0, None, 0, 22, 0, 5)]}, "no fields"),
    ({5: [(5, 1, 0, 0, None, 0, 22, 0, 5), (5, 2, 1, 1, "j", 1, 40, 0, 25)]}, "extended id 25"),
    ({5: [(5, 1, 0, 0, None, 0, 22, 0, 5), (5, 2, 1, 1, "z", 1, 99, 0, 0)]}, "type code 99"),
    ({5: [(5, 1, 0, 0, None, 0, 22, 0, 5), (5, 2, 1, 1, "s", 1, 19, 0, 6)]},  # points nowhere
     "extended id 6"),
    ({5: [(5, 1, 0, 0, None, 0, 22, 0, 5), (5, 2, 1, 1, "s", 1, 22, 0, 5)]},  # loops
     "nest|extended id"),
])
def test_catalogs_that_cannot_be_read_are_refused(rows, match):
    with pytest.raises(NotSupportedError, match=match):
        nr._type_text(rows, 5, "t", 0)


def test_cache_keeps_by_id_never_by_name():
    """A name may mean other fields once another connection recreated the
    type; an id cannot (tests/test_adversary_row_types.py)."""
    cache = nr.RowTypeCache()
    cache.check_epoch(0)
    cache.put(101, "a_t", "row(a integer)")
    cache.put(0, "b_t", "row(b integer)")
    assert cache.get(101, "a_t") == "row(a integer)"
    assert cache.get(0, "b_t") is None
    cache.check_epoch(1)                    # another database: nothing kept
    assert cache.get(101, "a_t") is None
