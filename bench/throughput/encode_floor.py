"""The floor of the Arrow encode bar (issue 14 item 3, "Arrow/INTEGER <= 2"):
what the numpy passes a type's insert-cursor cell needs at the least cost on
this machine, against INTEGER's whole encode -- which bars no numpy encoder
can meet, and by how much.  numpy_floor.py does the same for decoding.

For each type the passes are the fewest this project knows for building
the cell from Arrow's buffers with numpy (listed in ``FLOORS``: a cell's
bytes come from a division per base-100 quad and a gather per table, and
numpy runs each as its own pass over the column).  Each pass is timed on
the intermediate arrays the encoder really has for encode_per_type.py's
column (the same 20,000 values: the gathers' index patterns and the
branches are the bench's), CPU time of this thread, best of ``--repeat``;
the floor is their sum.  Beside it: INTEGER's whole encode (the bar's
base: ``arrow.put_cells.column_cells``) and the type's own encode now.
What the floor leaves out is the per-call cost (~1 us a numpy call, and
the rule's Python; at a load's 4,096-row batches that is 5-25 us a column)
and the NULL handling.

    python bench/throughput/encode_floor.py [--values 20000] [--repeat 15] [--write]

``--write`` puts the table into bench/README.md between its encode_floor
markers.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
README = HERE.parent / "README.md"
START, END = "<!-- encode_floor:start -->", "<!-- encode_floor:end -->"
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from common import best_ns, floor_table_main  # noqa: E402

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402

import encode_per_type  # noqa: E402
from informix_stream.arrow import base100, civil, put_cells  # noqa: E402
from informix_stream.codecs import parse_type  # noqa: E402
from informix_stream.insert_cursor import value_check  # noqa: E402

ENC = encode_per_type.ENC
u, u4 = np.uint64, np.uint32
Passes = list[tuple[str, Callable[[], object]]]


def column(name: str, n: int):
    """(column type, Arrow array) of encode_per_type's column ``name``."""
    for tname, ddl, atype, make, _ in encode_per_type.TYPES:
        if tname == name:
            return parse_type(ddl), pa.array([make(i) for i in range(n)], atype)
    raise KeyError(name)


def integer_passes(array) -> Passes:
    values = np.frombuffer(array.buffers()[1], np.int32, count=len(array))
    return [("byte-order cast (astype >i4)", lambda: values.astype(">i4")),
            ("NULL-sentinel compare", lambda: values != np.int32(-2 ** 31))]


def datetime_passes(array) -> Passes:
    ticks = np.frombuffer(array.buffers()[1], np.int64, count=len(array))
    since = ticks - put_cells._FIRST_SECOND
    high = (since >> 7).astype(u4)
    days, clock = put_cells._days_and_clock(np, since)
    era = days // u4(civil.ERA_DAYS)
    day_of_era = days - era * u4(civil.ERA_DAYS)
    clock_table, era_table = put_cells._clock_table(np, 0xC7), civil.era_tables(np)
    words = clock_table.take(clock)
    return [
        ("offset subtract (int64)", lambda: ticks - put_cells._FIRST_SECOND),
        ("range compare", lambda: since.view(u) < u(put_cells._SPAN_SECONDS)),
        ("shift + narrow to uint32", lambda: (since >> 7).astype(u4)),
        ("uint32 division by 675 (the day)", lambda: high // u4(675)),
        ("second of the day (multiply, subtract, shift, OR)", lambda: (
            ((high - days * u4(675)) << u4(7)) | (since & 127))),
        ("era and day of era (uint32 divide, multiply, subtract)", lambda: (
            days - (days // u4(civil.ERA_DAYS)) * u4(civil.ERA_DAYS))),
        ("gather, 86,400-entry clock table", lambda: clock_table.take(clock)),
        ("gather, 146,097-entry era table", lambda: era_table.take(day_of_era)),
        ("OR + the era's centuries (shift, add)", lambda: words | (era << u4(10))),
    ]


def decimal_passes(array, pairs: int) -> Passes:
    n = len(array)
    words = np.frombuffer(array.buffers()[1], "<i8", count=2 * n)
    low = words[0::2].copy()
    negative = low < 0
    magnitude = np.abs(low).view(u)
    limit = u(10 ** (array.type.precision))
    used = put_cells._pair_count(np, magnitude, pairs)
    index = negative * np.uint8(pairs + 1) + used
    left = base100.pow100(np).take(np.uint8(pairs) - used) * magnitude
    heads = put_cells._decimal_heads(np, pairs, 2)
    quads = base100.quad_table(np)
    high = left // u(10 ** 8)
    rest = (left - high * u(10 ** 8)).astype(u4)
    quad = rest % u4(10 ** 4)
    word = quads.take(quad)
    split = [("quad split: uint64 division, multiply, subtract, narrow", lambda: (
                 left - (left // u(10 ** 8)) * u(10 ** 8)).astype(u4)),
             ("quad split: uint32 division, multiply, subtract", lambda: (
                 rest - (rest // u4(10 ** 4)) * u4(10 ** 4)))]
    if pairs > 6:
        high4 = high.astype(u4)
        split.append(("quad split of the high half (narrow, uint32 division, multiply, "
                      "subtract)", lambda: high4 - (high.astype(u4) // u4(10 ** 4)) * u4(10 ** 4)))
    count = (pairs + 1) // 2
    passes = [
        ("strided read of the low word", lambda: words[0::2].copy()),
        ("high word fits (strided compare)", lambda: words[1::2] == (low >> 63)),
        ("sign compare", lambda: low < 0),
        ("absolute value", lambda: np.abs(low)),
        ("magnitude < 10**digits", lambda: magnitude < limit),
        ("pair count: a compare and a uint8 add a power of 100",
         lambda: put_cells._pair_count(np, magnitude, pairs)),
        ("left-align: gather 100**(pairs - used), multiply", lambda: (
            base100.pow100(np).take(np.uint8(pairs) - used) * magnitude)),
        *[("complement the negatives (np.where; skipped without any)", lambda: np.where(
            negative, u(100 ** pairs) - left, left))][:1 if negative.any() else 0],
        *split,
        *[(f"gather {q + 1} of {count}, 10,000-entry quad table", lambda: quads.take(quad))
          for q in range(count)],
        *[(f"OR quad {q + 2}", lambda: word | word) for q in range(count - 1)],
        ("head: gather by pair count and sign", lambda: heads.take(index)),
    ]
    if pairs == 8:
        buf = np.empty(9 * n + 7, np.uint8)
        passes += [("pair word: strided 8-byte store", lambda: np.ndarray(
                        (n,), "<u8", buf, 1, (9,)).__setitem__(..., word)),
                   ("head: strided byte store", lambda: np.ndarray(
                        (n,), np.uint8, buf, 0, (9,)).__setitem__(..., word))]
    else:
        passes += [("OR the head", lambda: word | word)]
    return passes


def varchar_passes(array) -> Passes:
    n = len(array)
    bounds = np.frombuffer(array.buffers()[1], np.int32, count=n + 1)
    data = np.frombuffer(array.buffers()[2], np.uint8)[:bounds[-1]]
    sizes = np.diff(bounds).astype(np.int64)
    size = int(sizes.max())
    padded = np.zeros(len(data) + size + 2, np.uint8)
    windows = np.lib.stride_tricks.sliding_window_view(padded, size + 1)
    starts = bounds[:-1].astype(np.int64)
    cells = windows[starts]
    return [("sizes from the offsets (diff)", lambda: np.diff(bounds)),
            ("longest value (max)", lambda: sizes.max()),
            ("row gather: a window of the data a row (fancy index)", lambda: windows[starts]),
            ("length byte store (strided)", lambda: cells.__setitem__((slice(None), 0), sizes))]


FLOORS: dict[str, Callable[[object], Passes]] = {
    "INTEGER": integer_passes,
    "DATETIME YEAR TO SECOND": datetime_passes,
    "DECIMAL(12,2)": lambda a: decimal_passes(a, 6),
    "MONEY(16,2)": lambda a: decimal_passes(a, 8),
    "VARCHAR(64)": varchar_passes,
}


def cpu_us(run, repeat: int) -> float:
    return best_ns(run, repeat, time.thread_time_ns) / 1000


def measure(n: int, repeat: int) -> list[tuple[str, list[tuple[str, float]], float]]:
    """(type, [(pass, us)], its whole encode now in us) per type."""
    out = []
    for name, passes in FLOORS.items():
        ctype, array = column(name, n)
        check = value_check(ctype, ENC)
        timed = [(what, cpu_us(run, repeat)) for what, run in passes(array)]
        whole = cpu_us(lambda: put_cells.column_cells(np, array, ctype, check, ENC), repeat)
        out.append((name, timed, whole))
    return out


def table(n: int, repeat: int) -> str:
    rows = measure(n, repeat)
    base = rows[0][2]
    lines = [f"{n:,} values a column (encode_per_type.py's), microseconds of CPU time, best "
             f"of {repeat}; INTEGER's whole encode: {base:.1f} us, so the bar (2x) is "
             f"{2 * base:.1f} us.", "",
             "| type | passes at the least | floor, us | floor / INTEGER | encode now, us "
             "| now / INTEGER | now / floor |", "|---|---:|---:|---:|---:|---:|---:|"]
    for name, timed, whole in rows:
        floor = sum(us for _, us in timed)
        lines.append(f"| {name} | {len(timed)} | {floor:.1f} | {floor / base:.1f} | "
                     f"{whole:.1f} | {whole / base:.1f} | {whole / floor:.2f} |")
    lines += ["", "Each pass, us:", ""]
    for name, timed, _ in rows:
        lines.append(f"- {name}: " + "; ".join(f"{what} {us:.1f}" for what, us in timed))
    lines += ["", "Regenerate: `python bench/throughput/encode_floor.py --write`."]
    return "\n".join(lines)


def main() -> None:
    floor_table_main(__doc__, table, README, START, END, "The encode floor (issue 14)")


if __name__ == "__main__":
    main()
