"""The emulator's peak RSS while one large BYTE or TEXT value is written.

    PYTHONPATH=src python bench/lobs/emulator_write_rss.py [MB] [--kind byte|text]

Starts the emulator in its own process with an on-disk database (an
in-memory one would count the stored value in the RSS) (``python -m informix_stream.emulator``,
from whatever ``informix_stream`` is on PYTHONPATH, so an older tree can be
measured the same way), connects, and writes one value of MB megabytes from
a generator of 1 MiB pieces (the driver sends it as SQ_BBIND then 1024-byte
SQ_BLOB chunks in one request).  Reports the emulator's ``VmHWM`` (peak
resident set, /proc/PID/status) after connecting and after the write, and
checks the stored length.  Issue 12: the request's memory stays bounded
(the emulator spools SQ_BLOB chunks to disk, emulator/spool.py); what is
left is the value the engine binds to SQLite and SQLite's own copies.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import uuid

import informix_stream as ifx

MB = 1 << 20


def _hwm_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc status")


def _pieces(mb: int):
    for k in range(mb):
        yield bytes([k % 251]) * MB


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mb", type=int, nargs="?", default=200)
    ap.add_argument("--kind", choices=("byte", "text"), default="byte")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ifx-rss-") as data_dir:
        _measure(args, data_dir)


def _measure(args: argparse.Namespace, data_dir: str) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "informix_stream.emulator", "--port", "0",
                             "--data-dir", data_dir],
                            stdout=subprocess.PIPE, text=True, env=os.environ.copy())
    try:
        line = proc.stdout.readline()           # "listening on HOST:PORT"
        host, port = line.rsplit(" ", 1)[1].strip().rsplit(":", 1)
        conn = ifx.connect(host=host, port=int(port), password="in4mix", database="testdb",
                           autocommit=True, read_timeout=600)
        cur = conn.cursor()
        t = f"w_{uuid.uuid4().hex[:8]}"
        col = "BYTE" if args.kind == "byte" else "TEXT"
        cur.execute(f"CREATE TABLE {t} (id INTEGER, v {col})")
        base = _hwm_mb(proc.pid)
        value = _pieces(args.mb) if args.kind == "byte" else ifx.Text(_pieces(args.mb))
        outcome = "stored"
        try:
            cur.execute(f"INSERT INTO {t} VALUES (1, ?)", (value,))
        except ifx.Error as exc:
            outcome = f"refused: {type(exc).__name__}: {exc}"
        peak = _hwm_mb(proc.pid)
        if outcome == "stored":
            cur.execute(f"SELECT COUNT(*) FROM {t}")
            outcome = f"stored ({cur.fetchone()[0]} row)"
        conn.close()
        print(f"{args.kind} {args.mb} MB: emulator peak RSS {base:.0f} MB after connecting, "
              f"{peak:.0f} MB after the write (+{peak - base:.0f} MB); {outcome}")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
