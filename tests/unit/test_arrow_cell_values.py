"""arrow/cell_values.column_values: a column's Python values, or the first
row that has none (issue 9: no pyarrow ValueError/OverflowError/
UnicodeDecodeError reaches a caller, no time of day read round the clock)."""

from __future__ import annotations

import pytest

pa = pytest.importorskip("pyarrow", reason="the Arrow paths need the arrow extra")

from informix_stream.arrow.cell_values import (  # noqa: E402
    NoPythonValue, column_values, python_value)


def _first_bad(array) -> int:
    with pytest.raises(NoPythonValue) as caught:
        column_values(array)
    return caught.value.row


def test_a_good_column_is_to_pylist():
    times = pa.array([0, None, 86_399], pa.time32("s"))
    assert column_values(times) == times.to_pylist()
    assert column_values(pa.array(["a", None, "é"])) == ["a", None, "é"]


@pytest.mark.parametrize("array,row", [
    (pa.array([1, 2, 100 * 3600], pa.time32("s")), 2),
    (pa.array([5, -1, 7], pa.time64("us")), 1),
    (pa.array([5, -1, 7], pa.time64("us")).dictionary_encode(), 1),
    (pa.array([0, 2**62], pa.timestamp("ms")), 1),
    (pa.array([2**62, 0], pa.duration("s")), 0),
    (pa.array([0, 0, 2932897], pa.int32()).cast(pa.date32()), 2),
    (pa.Array.from_buffers(pa.string(), 2, pa.array([b"x", b"\xc3"]).buffers()), 1),
], ids=["time32", "time64-negative", "dictionary", "timestamp", "duration", "date32", "utf8"])
def test_the_first_cell_with_no_python_value_is_named_by_row(array, row):
    assert _first_bad(array) == row


def test_a_run_end_encoded_time_past_24_hours_has_no_value():
    """Its scalar wraps the time's: unwrapped like a dictionary's."""
    pc = pytest.importorskip("pyarrow.compute", reason="run_end_encode is a compute function")
    ree = pc.run_end_encode(pa.array([3600, 3600, 100 * 3600], pa.time32("s")))
    with pytest.raises(ValueError, match="no time of day"):
        python_value(ree, 2)
    assert _first_bad(ree) == 2


def test_an_unused_dictionary_entry_is_no_cell():
    """The whole-column check fails on the dictionary; the scan finds every
    used value good and returns them."""
    unused = pa.DictionaryArray.from_arrays(pa.array([0, None, 0], pa.int8()),
                                            pa.array([7, 100 * 3600], pa.time32("s")))
    assert column_values(unused) == unused.to_pylist()
