"""CPU ns per row of decoding fetch replies through ``parse_reply``, as a
cursor decodes them (the shape's bulk hook included, no I/O), for the
replay tables of common.SHAPES.  CPU time of this thread, best of
``--repeat``: steadier than wall-clock rates on a shared machine, so two
source trees can be compared in alternation:

    PYTHONPATH=src python bench/throughput/reply_decode.py fixed sales narrow
    PYTHONPATH=/tmp/before/src python /tmp/before/bench/throughput/reply_decode.py fixed sales

(replay_compare.py's "decode-only ceiling, tuples" times the row decoder
called per image, which is not the path a fetch takes on fixed shapes.)
"""

from __future__ import annotations

import argparse
import struct
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import SHAPES  # noqa: E402

from informix_stream.codecs import make_row_decoder, make_row_encoder, parse_type  # noqa: E402
from informix_stream.connect_params import DEFAULT_FETCH_BUFFER  # noqa: E402
from informix_stream.messages import Reply, parse_reply  # noqa: E402


def replies(table: str, n: int) -> tuple[list, list[bytearray]]:
    """The table's first n rows as SQ_TUPLE messages cut into fetch buffers."""
    ddl, make = SHAPES[table]
    types = [parse_type(col.split(" ", 1)[1]) for col in ddl.split(", ")]
    encode = make_row_encoder(types)
    out, buf = [], bytearray()
    for i in range(n):
        image = encode(make(i))
        if len(buf) + 9 + len(image) > DEFAULT_FETCH_BUFFER:
            out.append(buf)
            buf = bytearray()
        buf += struct.pack("!hhI", 14, 0, len(image)) + image + b"\x00" * (len(image) & 1)
    out.append(buf)
    return types, out


def ns_per_row(table: str, n: int, repeat: int) -> float:
    types, bufs = replies(table, n)
    decode = make_row_decoder(types)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.thread_time_ns()
        for buf in bufs:
            parse_reply(buf, 0, Reply(), decode)
        best = min(best, time.thread_time_ns() - t0)
    return best / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tables", nargs="*", default=["fixed", "sales", "narrow"],
                    choices=list(SHAPES))
    ap.add_argument("--rows", type=int, default=65536)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    print(" | ".join(f"{t} {ns_per_row(t, args.rows, args.repeat):.0f} ns/row"
                     for t in args.tables))


if __name__ == "__main__":
    main()
