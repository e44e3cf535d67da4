"""Per-row cost of building one BIND+EXECUTE request, ours vs informix-driver,
measured on their own (no server, no socket).

    python bench/throughput/request_build_cost.py

Ours: what executemany does per row (encode the five values, frame the
request).  informix-driver: its cursor's own BIND+EXECUTE PDU builder, the
function its executemany calls per row.
"""

from __future__ import annotations

import statistics
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import rows  # noqa: E402

from informix_stream.executemany import _chunks  # noqa: E402
from informix_stream.framing import Writer  # noqa: E402
from informix_stream.messages import Tag  # noqa: E402

N = 20_000


def ours(data) -> None:
    prefix = Writer().short(Tag.ID).short(0).getvalue()
    for _ in _chunks(data, None, 5, prefix, 1000, 1 << 30):
        pass


def theirs(data) -> None:
    import informix_db
    from informix_db.cursors import Cursor

    class _Conn:                       # only what the PDU builder reads
        encoding = "iso-8859-1"
        _closed = False
    cur = Cursor.__new__(Cursor)
    cur._conn = _Conn()
    build = cur._build_bind_execute_pdu
    for params in data:
        build(params)
    del informix_db


def main() -> None:
    data = list(rows(N))
    for name, fn in (("ours", ours), ("informix-driver", theirs)):
        times = timeit.repeat(lambda: fn(data), number=1, repeat=5)
        print(f"{name:16s} {statistics.median(times) / N * 1e6:6.2f} us per row "
              f"(median of 5 x {N:,} rows)")


if __name__ == "__main__":
    main()
