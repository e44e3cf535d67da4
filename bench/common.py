"""Shared by the benchmarks: an emulator in its own process, the 5-column
table, and the raw-bytes floor client.

The emulator runs as a separate process so that a client's CPU time and
memory are its own; the table is loaded once per emulator with the
pipelined executemany.
"""

from __future__ import annotations

import argparse
import datetime
import socket
import struct
import sys
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
if str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

import informix_stream  # noqa: E402
from informix_stream.emulator.process import spawned  # noqa: E402
from informix_stream.framing import Writer  # noqa: E402
from informix_stream.login import LoginRequest, build_login_request, read_sl_pdu  # noqa: E402
from informix_stream.messages import Reply, Tag, parse_reply  # noqa: E402

TABLE = "bench_rows"
DDL = (f"CREATE TABLE {TABLE} (id INTEGER NOT NULL, name VARCHAR(64), counter INTEGER, "
       "value FLOAT, created DATE)")
SELECT = f"SELECT id, name, counter, value, created FROM {TABLE}"


def rows(n: int, start: int = 0):
    """Rows start..start+n of the 5-column table (narrow_row, below)."""
    return map(narrow_row, range(start, start + n))


# The benchmark tables, each as (column list, row i): "narrow" is the 5-column
# table above, "sales" the realistic table of issues 13 and 14 (DECIMAL,
# DATETIME, 10% NULLs), "fixed" its fixed-width cousin (no strings).  Every
# benchmark takes them from here so a figure always means the same shape.
D0, T0 = datetime.date(2020, 1, 1), datetime.datetime(2020, 1, 1, 8)


def narrow_row(i: int) -> tuple:
    return (i, f"name-{i:08d}", i * 7 % 1000, i / 3.0, D0 + datetime.timedelta(days=i % 1500))


def sales_row(i: int) -> tuple:
    return (i, f"SKU-{i % 9973:06d}", Decimal(i % 100000) / 100,
            T0 + datetime.timedelta(seconds=i * 37), D0 + datetime.timedelta(days=i % 3000),
            None if i % 10 == 0 else f"note {i}")


def fixed_row(i: int) -> tuple:
    return (i, i * 1_000_003, i / 7.0, D0 + datetime.timedelta(days=i % 3000),
            T0 + datetime.timedelta(seconds=i * 37), Decimal(i % 100000) / 100)


SHAPES = {
    "narrow": ("id INTEGER, name VARCHAR(64), counter INTEGER, value FLOAT, created DATE",
               narrow_row),
    "sales": ("id INTEGER, sku VARCHAR(32), amount DECIMAL(12,2), sold DATETIME YEAR TO SECOND, "
              "day DATE, note VARCHAR(64)", sales_row),
    "fixed": ("id INTEGER, big BIGINT, value FLOAT, day DATE, "
              "sold DATETIME YEAR TO SECOND, amount DECIMAL(12,2)", fixed_row),
}


def emulator_process(*extra: str, src: str | None = None):
    """(host, port) of an emulator running in a child process (from the
    source tree ``src``, a baseline to compare with, else this one)."""
    return spawned(*extra, src=src)


def connect(host: str, port: int, **kw):
    return informix_stream.connect(host=host, port=port, user="informix", password="in4mix",
                                   database="testdb", **kw)


def load_table(host: str, port: int, n: int, table: str = TABLE) -> None:
    with connect(host, port) as conn:
        cur = conn.cursor()
        cur.execute(DDL.replace(TABLE, table))
        cur.executemany(f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?)", rows(n))


_TAG = struct.Struct("!h")
_TUPLE = struct.Struct("!hhi")


class RawClient:
    """The floor: logs in, then drains fetch replies by skipping over tuples.

    It decodes nothing but the message framing (it must find each reply's
    SQ_EOT), so the rows/s it reaches is what the emulator and the socket
    allow; a real client can only be slower.
    """

    def __init__(self, host: str, port: int) -> None:
        self.sock = socket.create_connection((host, port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.sendall(build_login_request(LoginRequest("informix", "in4mix", "informix")))
        buf = b""
        while True:
            buf += self.sock.recv(65536)
            try:
                read_sl_pdu(buf)
                break
            except Exception:  # noqa: BLE001 - incomplete until the PDU is whole
                continue
        self._request(Writer().short(Tag.PROTOCOLS).short_string(bytes(8)))
        self._request(Writer().short(Tag.DBOPEN).short_string(b"testdb").short(0))

    def _request(self, w: Writer) -> tuple[int, int, bytes]:
        """Send, then read to EOT: (tuples seen, bytes read, the non-tuple tail)."""
        self.sock.sendall(w.getvalue() + b"\x00\x0c")
        buf, pos, tuples, total = b"", 0, 0, 0
        recv = self.sock.recv
        while True:
            while pos + 8 <= len(buf):
                tag, _warn, size = _TUPLE.unpack_from(buf, pos)
                end = pos + 8 + size + (size & 1)
                if tag != Tag.TUPLE or end > len(buf):
                    break
                pos = end
                tuples += 1
            if pos + 2 <= len(buf) and _TAG.unpack_from(buf, pos)[0] != Tag.TUPLE:
                # Past the tuples: the rest of the reply is a few short messages.
                end, done = parse_reply(buf, pos, Reply())
                if done:
                    return tuples, total, buf[pos:end]
            chunk = recv(1 << 20)
            if not chunk:
                raise ConnectionError("server closed the connection")
            total += len(chunk)
            buf = buf[pos:] + chunk
            pos = 0

    def drain(self, sql: str, bufsize: int = 64 * 1024) -> int:
        """Prepare, open and fetch ``sql`` to the end; returns the rows seen."""
        data = sql.encode()
        _, _, tail = self._request(Writer().short(Tag.PREPARE).short(0).int(len(data))
                                   .padded(data).short(Tag.NDESCRIBE).short(Tag.WANTDONE))
        stmt_id = struct.unpack_from("!h", tail, 4)[0]
        w = Writer().short(Tag.ID).short(stmt_id).short(Tag.CURNAME).short_string(b"rawcur")
        w.short(Tag.OPEN).short(Tag.NFETCH).int(bufsize).short(0)
        count = 0
        while True:
            n, _, tail = self._request(w)
            count += n
            if n == 0 or tail.startswith(b"\x00\x0f"):
                break
            w = Writer().short(Tag.ID).short(stmt_id).short(Tag.NFETCH).int(bufsize).short(0)
        self._request(Writer().short(Tag.ID).short(stmt_id).short(Tag.CLOSE).short(Tag.RELEASE))
        return count

    def close(self) -> None:
        self.sock.close()


def best_ns(run, repeat: int, clock=time.perf_counter_ns) -> float:
    """The fastest of ``repeat`` runs of ``run()``, in nanoseconds of
    ``clock`` (wall time; ``time.thread_time_ns`` for CPU time)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = clock()
        run()
        best = min(best, clock() - t0)
    return best


def write_readme_block(readme: Path, start: str, end: str, heading: str, text: str) -> None:
    """Put ``text`` between the ``start``/``end`` markers of ``readme``
    (a generated table); appended under ``heading`` the first time."""
    content = readme.read_text()
    block = f"{start}\n{text}\n{end}"
    if start in content:
        head, rest = content.split(start, 1)
        content = head + block + rest.split(end, 1)[1]
    else:
        content = content.rstrip("\n") + f"\n\n## {heading}\n\n" + block + "\n"
    readme.write_text(content)


def floor_table_main(doc: str, table, readme: Path, start: str, end: str,
                     heading: str) -> None:
    """The command line of the floor scripts (numpy_floor.py, encode_floor.py):
    ``table(values, repeat)`` printed, and with ``--write`` put in ``readme``."""
    import argparse
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--values", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--write", action="store_true", help="update bench/README.md")
    args = ap.parse_args()
    text = table(args.values, args.repeat)
    print(text)
    if args.write:
        write_readme_block(readme, start, end, heading, text)


def per_type_rows(types, measure_one) -> list[tuple[str, bool, dict]]:
    """The per-type tables' rows: each type of ``types`` (its name first)
    measured by ``measure_one(type, nulls)`` without NULLs, then with, and
    ``vs_int`` its Arrow figure over INTEGER's in the same pass."""
    rows = []
    for nulls in (False, True):
        results = {t[0]: measure_one(t, nulls) for t in types}
        base = results["INTEGER"]["arrow"]
        for name, r in results.items():
            r["vs_int"] = r["arrow"] / base
            rows.append((name, nulls, r))
    return rows


def per_type_parser(doc: str) -> argparse.ArgumentParser:
    """The per-type scripts' options: values per column, repeats, --write."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--values", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--write", action="store_true", help="update bench/README.md")
    ap.add_argument("--only", help="comma-separated type name prefixes (INTEGER is always "
                    "measured, as the ratios' base), e.g. DECIMAL,VARCHAR; not with --write")
    return ap


def only_types(types: list, only: list[str] | None) -> list:
    """``types`` (rows whose first item is the name) whose name starts with
    one of the prefixes ``only`` (--only split at commas), and INTEGER."""
    return [t for t in types if only is None or t[0] == "INTEGER"
            or any(t[0].startswith(prefix) for prefix in only)]
