"""The emulator's peak RSS while one large BYTE, TEXT, BLOB or CLOB value is
written and then read back.

    PYTHONPATH=src python bench/lobs/emulator_lob_rss.py [MB] [--kinds byte,text,blob,clob]
                                                         [--memory]

Starts the emulator in its own process (``python -m informix_stream.emulator``,
from whatever ``informix_stream`` is on PYTHONPATH, so an older tree can be
measured the same way) with an on-disk database, or an in-memory one with
``--memory`` (where the stored value itself is in the RSS: one copy).  Per
kind it writes one value of MB megabytes from a generator of 1 MiB pieces
(the driver sends it as SQ_BBIND and 1024-byte SQ_BLOB chunks in one
request), then reads it back as a stream (``cursor(lob="stream")``: SQ_FETCHBLOB
for BYTE/TEXT, SQ_LODATA reads for BLOB/CLOB) and compares SHA-256 digests.

Before each phase the emulator's peak is reset (``5`` written to
/proc/PID/clear_refs); the figure is its ``VmHWM`` after the phase less its
``VmRSS`` before, in MB and as a multiple of the value (issue 12: the
emulator's peak for a 200 MB LOB at most ~2-3x the value).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import uuid

import informix_stream as ifx

MB = 1 << 20
COLUMN = {"byte": "BYTE", "text": "TEXT", "blob": "BLOB", "clob": "CLOB"}


def _status(pid: int) -> dict[str, float]:
    with open(f"/proc/{pid}/status") as f:
        return {line.split(":")[0]: int(line.split()[1]) / 1024 for line in f
                if line.startswith(("VmHWM:", "VmRSS:"))}


def _reset_peak(pid: int) -> float:
    """Reset the process's VmHWM; its RSS now (MB)."""
    with open(f"/proc/{pid}/clear_refs", "w") as f:
        f.write("5")
    return _status(pid)["VmRSS"]


def _pieces(mb: int, digest=None):
    for k in range(mb):
        piece = bytes([k % 251]) * (MB - 1) + bytes([k % 7])
        if digest is not None:
            digest.update(piece)
        yield piece


def _phase(pid: int, mb: int, run) -> tuple[float, object]:
    base = _reset_peak(pid)
    out = run()
    growth = _status(pid)["VmHWM"] - base
    return growth, out


def _measure_kind(conn, pid: int, kind: str, mb: int) -> str:
    cur = conn.cursor()
    t = f"w_{uuid.uuid4().hex[:8]}"
    cur.execute(f"CREATE TABLE {t} (id INTEGER, v {COLUMN[kind]})")
    sent = hashlib.sha256()
    value = _pieces(mb, sent)
    if kind in ("text", "clob"):
        value = ifx.Text(value)
    write, _ = _phase(pid, mb, lambda: cur.execute(f"INSERT INTO {t} VALUES (1, ?)", (value,)))

    def read() -> tuple[int, str]:
        rcur = conn.cursor(lob="stream")
        rcur.execute(f"SELECT v FROM {t}")
        got, n = hashlib.sha256(), 0
        reader = rcur.fetchone()[0]
        buf = bytearray(MB)
        view = memoryview(buf)
        while k := reader.readinto(buf) if hasattr(reader, "readinto") else 0:
            got.update(view[:k])
            n += k
        rcur.close()
        return n, got.hexdigest()
    rd, (n, digest) = _phase(pid, mb, read)
    same = "same bytes" if n == mb * MB and digest == sent.hexdigest() else \
        f"DIFFERENT ({n} bytes read)"
    cur.execute(f"DROP TABLE {t}")
    return (f"{kind:5} {mb} MB: write +{write:.0f} MB ({write / mb:.2f}x), "
            f"read +{rd:.0f} MB ({rd / mb:.2f}x); {same}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mb", type=int, nargs="?", default=200)
    ap.add_argument("--kinds", default="byte,text,blob,clob")
    ap.add_argument("--memory", action="store_true", help="an in-memory database")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ifx-rss-") as data_dir:
        extra = [] if args.memory else ["--data-dir", data_dir]
        proc = subprocess.Popen([sys.executable, "-m", "informix_stream.emulator", "--port", "0",
                                 *extra], stdout=subprocess.PIPE, text=True,
                                env=os.environ.copy())
        try:
            line = proc.stdout.readline()           # "listening on HOST:PORT"
            host, port = line.rsplit(" ", 1)[1].strip().rsplit(":", 1)
            conn = ifx.connect(host=host, port=int(port), password="in4mix", database="testdb",
                               autocommit=True, read_timeout=600)
            print(f"emulator RSS after connecting: {_status(proc.pid)['VmRSS']:.0f} MB "
                  f"({'in-memory' if args.memory else 'on-disk'} database)")
            for kind in args.kinds.split(","):
                print(_measure_kind(conn, proc.pid, kind, args.mb), flush=True)
            conn.close()
        finally:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()
