"""Speed of the codec hot paths, one operation at a time.

The driver's fetch loop is make_row_decoder, the emulator's serve loop is
make_tuple_encoder, executemany is encode_param and the emulator's SQ_BIND
parsing is read_param; these numbers are the per-row/per-value costs behind
the end-to-end figures of stream_compare.py and serve_rate.py.  Each decode
case also runs the plain reference decoder (``..._ref``,
informix_stream/codec/rowdecode_ref.py) on the same bytes, so the generated
decoder's gain over it is in the same table.

    PYTHONPATH=src python3 -m pytest bench/throughput/test_codec_speed.py -p no:cacheprovider
    python3 bench/throughput/test_codec_speed.py      # timeit medians, no pytest

Every case checks its own result once before it is timed, so a fast but
wrong codec fails here rather than looking good.
"""

from __future__ import annotations

import datetime as dt
import statistics
import struct
import sys
import time
import timeit
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
if str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

import pytest  # noqa: E402

from informix_stream import codecs  # noqa: E402
from informix_stream.codec.rowdecode_ref import reference_decoder  # noqa: E402
from informix_stream.codecs import parse_type  # noqa: E402
from informix_stream.framing import Reader  # noqa: E402
from informix_stream.messages import Reply, parse_reply  # noqa: E402

FIVE_TYPES = [parse_type(t) for t in ("integer", "varchar(64)", "integer", "float", "date")]
FIVE_ROW = (12345, "name-12345", 24690, 1763.57, dt.date(2024, 1, 1))
FIVE_NULLS = (12345, None, 24690, None, dt.date(2024, 1, 1))

# 100 columns cycling through the types a wide report table tends to have.
_WIDE_CYCLE = [
    ("integer", 7), ("varchar(40)", "some text"), ("float", 2.5), ("date", dt.date(2020, 2, 29)),
    ("smallint", -3), ("bigint", 2**40), ("char(8)", "abc     "),
    ("decimal(10,2)", Decimal("123.45")), ("integer", None), ("varchar(20)", None),
]
WIDE_TYPES = [parse_type(_WIDE_CYCLE[i % 10][0]) for i in range(100)]
WIDE_ROW = tuple(_WIDE_CYCLE[i % 10][1] for i in range(100))
# The sales table of issue 13: the DECIMAL and DATETIME cells dominate.
SALES_TYPES = [parse_type(t) for t in ("integer", "varchar(32)", "decimal(12,2)",
                                       "datetime year to second", "date", "varchar(64)")]
SALES_ROW = (42, "customer-42", Decimal("1234567.89"), dt.datetime(2024, 5, 6, 7, 8, 9),
             dt.date(2024, 5, 6), None)

# Issue 12: one VARCHAR of 150 bytes in each code set.  The UTF-8 texts are
# at least half non-ASCII characters (two-byte accented, three-byte CJK);
# the goal is UTF-8 within 1.3x of Latin-1 for the same byte length.
TEXT_TYPES = [parse_type("varchar(200)")]
LATIN1_150 = ("aé" * 75,)
UTF8_150 = ("aé" * 50,)
UTF8_CJK_148 = ("a日" * 37,)

_BIND_HEAD = struct.pack("!hhhh", 4, 0, 5, len(FIVE_ROW))  # SQ_ID 0, SQ_BIND, count
_EXECUTE = struct.pack("!h", 7)


def _decode_case(types, row, make=codecs.make_row_decoder, encoding: str = "iso-8859-1"
                 ) -> tuple[Callable[[], object], object]:
    decode = make(types, encoding)
    image = codecs.make_row_encoder(types, encoding)(row)
    return (lambda: decode(image, 0)), (row, len(image))


def _reply_case(types, row, encoding: str, rows: int = 100
                ) -> tuple[Callable[[], object], object]:
    """A fetch reply of ``rows`` tuples through parse_reply, as the driver
    reads it: the per-row cost a fetch pays, framing included (issue 12's
    UTF-8 target compares these for the text columns too)."""
    decode = codecs.make_row_decoder(types, encoding)
    image = codecs.make_row_encoder(types, encoding)(row)
    buf = _tuple_message(image) * rows + struct.pack("!hhiiihiih", 15, 0, rows, 0, 0,
                                                     55, 0, 0, 12)

    def run() -> object:
        reply = Reply(encoding=encoding)
        parse_reply(buf, 0, reply, decode)
        return reply.rows[-1], len(reply.rows), reply.rowcount
    return run, (row, rows, rows)


def _decode_cases(name: str, types, row) -> dict[str, tuple[Callable[[], object], object]]:
    """The generated decoder and the reference decoder on the same row."""
    return {name: _decode_case(types, row),
            f"{name}_ref": _decode_case(types, row, reference_decoder)}


def _tuple_message(image: bytes) -> bytes:
    return struct.pack("!hhi", 14, 0, len(image)) + image + b"\x00" * (len(image) & 1)


def _param_block(value: object) -> bytes:
    return codecs.encode_param(value)


def _read_case(block: bytes, expected: object) -> tuple[Callable[[], object], object]:
    read = codecs.read_param
    return (lambda: read(Reader(block))), expected


def _bind_body() -> bytes:
    enc = codecs.encode_param
    return _BIND_HEAD + b"".join([enc(v) for v in FIVE_ROW]) + _EXECUTE


def _read_bind(body: bytes) -> list:
    r = Reader(body, 8)
    read = codecs.read_param
    return [read(r) for _ in range(5)]


PARAM_VALUES = {
    "int": 12345, "bigint": 2**40, "str": "name-12345", "float": 1763.57,
    "date": dt.date(2024, 1, 1), "none": None, "bool": True,
    "decimal": Decimal("123.45"), "datetime": dt.datetime(2024, 5, 6, 7, 8, 9),
}
# What the emulator receives: JDBC's SMALLINT form has no encode_param twin.
READ_BLOCKS = {
    "smallint": (struct.pack("!hhhh", 1, 0, 0x0500, -2), -2),
    "varchar": (struct.pack("!hhhh", 13, 0, 64, 10) + b"name-12345", "name-12345"),
}


def _cases() -> dict[str, tuple[Callable[[], object], object]]:
    tuple_enc = codecs.make_tuple_encoder(FIVE_TYPES)
    row_enc = codecs.make_row_encoder(FIVE_TYPES)
    wide_enc = codecs.make_tuple_encoder(WIDE_TYPES)
    image = row_enc(FIVE_ROW)
    tuple_msg = _tuple_message(image)
    cases = {
        **_decode_cases("decode_1_integer", [parse_type("integer")], (12345,)),
        **_decode_cases("decode_5_columns", FIVE_TYPES, FIVE_ROW),
        **_decode_cases("decode_5_columns_nulls", FIVE_TYPES, FIVE_NULLS),
        **_decode_cases("decode_100_columns", WIDE_TYPES, WIDE_ROW),
        **_decode_cases("decode_sales_row", SALES_TYPES, SALES_ROW),
        "decode_varchar_latin1_150B": _decode_case(TEXT_TYPES, LATIN1_150),
        "decode_varchar_utf8_150B": _decode_case(TEXT_TYPES, UTF8_150, encoding="utf-8"),
        "decode_varchar_utf8_cjk_148B": _decode_case(TEXT_TYPES, UTF8_CJK_148,
                                                     encoding="utf-8"),
        "reply_100_varchar_latin1_150B": _reply_case(TEXT_TYPES, LATIN1_150, "iso-8859-1"),
        "reply_100_varchar_utf8_150B": _reply_case(TEXT_TYPES, UTF8_150, "utf-8"),
        "reply_100_varchar_utf8_cjk_148B": _reply_case(TEXT_TYPES, UTF8_CJK_148, "utf-8"),
        "encode_row_5_columns": ((lambda: row_enc(FIVE_ROW)), image),
        "encode_tuple_5_columns": ((lambda: tuple_enc(FIVE_ROW)), tuple_msg),
        "encode_tuple_5_columns_nulls": ((lambda: tuple_enc(FIVE_NULLS)), _tuple_message(
            row_enc(FIVE_NULLS))),
        "encode_tuple_100_columns": ((lambda: wide_enc(WIDE_ROW)), _tuple_message(
            codecs.make_row_encoder(WIDE_TYPES)(WIDE_ROW))),
    }
    enc = codecs.encode_param
    for name, value in PARAM_VALUES.items():
        cases[f"encode_param_{name}"] = ((lambda v=value: enc(v)), _param_block(value))
        expected = ("t" if value else "f") if isinstance(value, bool) else value
        cases[f"read_param_{name}"] = _read_case(_param_block(value), expected)
    for name, (block, value) in READ_BLOCKS.items():
        cases[f"read_param_{name}"] = _read_case(block, value)
    body = _bind_body()
    cases["bind_execute_body_5"] = (_bind_body, body)
    cases["read_bind_5"] = ((lambda: _read_bind(body)), list(FIVE_ROW))
    return cases


CASES = _cases()


def _check(name: str) -> Callable[[], object]:
    fn, expected = CASES[name]
    assert fn() == expected, name
    return fn


@pytest.mark.parametrize("name", list(CASES))
def test_codec_speed(benchmark, name: str) -> None:
    benchmark(_check(name))


def main(repeat: int = 15) -> None:
    """Microseconds per operation: median and best of ``repeat`` timeit runs
    of about 50 ms each.  CPU time, not wall time, so that other work on a
    shared machine inflates the figures less."""
    print(f"{'case':26s} {'median':>9s} {'best':>9s}  (us per op, CPU time)")
    for name in CASES:
        fn = _check(name)
        once = timeit.timeit(fn, number=100, timer=time.process_time) / 100
        number = max(1, int(0.05 / max(once, 1e-9)))
        runs = [t / number * 1e6 for t in
                timeit.repeat(fn, number=number, repeat=repeat, timer=time.process_time)]
        print(f"{name:26s} {statistics.median(runs):9.3f} {min(runs):9.3f}")


if __name__ == "__main__":
    main()
