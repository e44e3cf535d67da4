"""The emulator's fast readers of packed parameter blocks (DECIMAL, MONEY,
DATETIME, INTERVAL: codec/params._packed_param_reader) against the general
reader they shortcut: the same value, the same reader position, the same
error, on blocks clients send and on arbitrary bytes after a packed head."""

from __future__ import annotations

import datetime as dt
import struct

from hypothesis import given, settings, strategies as st

from informix_stream.codec import params
from informix_stream.codecs import TypeCode, encode_param
from informix_stream.framing import Reader

_PACKED = [TypeCode.DECIMAL, TypeCode.MONEY, TypeCode.DATETIME, TypeCode.INTERVAL]


def _outcome(read, buf: bytes):
    reader = Reader(buf)
    try:
        value = read(reader)
    except Exception as exc:  # noqa: BLE001 - the error is what is compared
        return ("error", type(exc), str(exc))
    return ("value", type(value), value, reader.pos)


def _both(buf: bytes) -> None:
    fast = _outcome(params.read_param, buf)
    slow = _outcome(lambda r: params._read_any(r, "iso-8859-1"), buf)
    assert fast == slow


@settings(max_examples=300, deadline=None)
@given(st.one_of(
    st.decimals(allow_nan=False, allow_infinity=False, places=None).filter(
        lambda d: len(d.as_tuple().digits) <= 32 and -120 < d.adjusted() < 120),
    st.datetimes(dt.datetime(1, 1, 1)), st.times(),
    st.timedeltas(min_value=dt.timedelta(days=-10**6), max_value=dt.timedelta(days=10**6))))
def test_bound_packed_values_read_as_the_general_reader_reads_them(value) -> None:
    _both(encode_param(value) + b"\x00\x07")


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(_PACKED), st.integers(-1, 1), st.integers(-(2**15), 2**15 - 1),
       st.integers(-2, 20), st.one_of(st.binary(max_size=24),   # and the NULL pairs:
                                      st.binary(max_size=22).map(lambda b: b"\x00\x00" + b)))
def test_any_packed_block_reads_as_the_general_reader_reads_it(code, indicator, prec, n, body):
    _both(struct.pack("!hhhh", code, indicator, prec, n) + body)
