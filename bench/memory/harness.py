"""What the memory runner, its consumers and the strategy lab share: the
target server (emulator or a real Informix from IFX_* variables), one table
per row count, and an RSS sampler.

Each row count gets its own table (``bench_rows_<n>``) so that one server
can hold every size at once, and so that a real server loaded by an earlier
run is not loaded again.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import threading
import time
from array import array
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import DDL, ROOT, SELECT, TABLE, emulator_process, rows  # noqa: E402

import informix_stream  # noqa: E402

CONSUMER = Path(__file__).resolve().parent / "consumer.py"


@dataclass(frozen=True)
class Target:
    """Where the benchmarks connect; credentials default to the emulator's."""

    host: str
    port: int
    user: str = "informix"
    password: str = "in4mix"
    database: str = "testdb"
    server: str = "informix"
    real: bool = False    # the raw-bytes floor client only knows the emulator's login

    def ours(self, **kw) -> informix_stream.Connection:
        return informix_stream.connect(host=self.host, port=self.port, user=self.user,
                                       password=self.password, database=self.database,
                                       server=self.server, **kw)

    def theirs(self, **kw):
        """An informix-driver connection; imported here so only its users load it."""
        import informix_db
        return informix_db.connect(host=self.host, port=self.port, user=self.user,
                                   password=self.password, database=self.database,
                                   server=self.server, **kw)


def target_at(host: str, port: int) -> Target:
    """The target at host:port, with credentials from IFX_* when a real server is used."""
    env = os.environ
    if not env.get("IFX_HOST"):
        return Target(host, port)
    return Target(host, port, env.get("IFX_USER", "informix"), env.get("IFX_PASSWORD", ""),
                  env.get("IFX_DATABASE", "testdb"), env.get("IFX_SERVER", "informix"),
                  real=True)


@contextmanager
def target() -> Iterator[Target]:
    """A real server when IFX_HOST is set, else an emulator in a child process."""
    if os.environ.get("IFX_HOST"):
        yield target_at(os.environ["IFX_HOST"], int(os.environ.get("IFX_PORT", "9088")))
        return
    with emulator_process() as (host, port):
        yield target_at(host, port)


def table_for(n: int) -> str:
    return f"{TABLE}_{n}"


def select_for(n: int) -> str:
    return SELECT.replace(TABLE, table_for(n))


def progress(items: Iterable, total: int, label: str) -> Iterator:
    """Pass ``items`` through, drawing a bar on stderr (a 1M-row load takes a while).

    On a terminal the bar redraws in place; in a log it prints every tenth.
    """
    tty = sys.stderr.isatty()
    step = max(total // (50 if tty else 10), 1)
    for i, item in enumerate(items, 1):
        if i % step == 0 or i == total:
            done = i * 50 // total
            line = f"  {label} [{'#' * done}{'.' * (50 - done)}] {i:,}/{total:,}"
            if tty:
                sys.stderr.write("\r" + line + ("\n" if i == total else ""))
            else:
                sys.stderr.write(line + "\n")
        yield item


def load(t: Target, n: int) -> None:
    """Create and fill ``table_for(n)`` unless it already holds exactly n rows."""
    table = table_for(n)
    with t.ours() as conn:
        cur = conn.cursor()
        try:
            cur.execute(f"SELECT COUNT(*) FROM {table}")
            if cur.fetchone()[0] == n:
                return
            cur.execute(f"DROP TABLE {table}")
        except informix_stream.DatabaseError:
            conn.rollback()   # no such table yet
        cur.execute(DDL.replace(TABLE, table))
        cur.executemany(f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?)",
                        progress(rows(n), n, f"loading {table}"))


def consumer_command(t: Target, name: str, n: int, *extra: str) -> list[str]:
    return [sys.executable, str(CONSUMER), name, str(n), t.host, str(t.port), *extra]


def consume(t: Target, name: str, n: int, *extra: str) -> dict:
    """Run one consumer (bench/memory/consumer.py) in a fresh interpreter; its JSON result."""
    out = subprocess.run(consumer_command(t, name, n, *extra), capture_output=True, text=True,
                         check=False)
    if out.returncode:
        raise RuntimeError(f"{name} at {n:,} rows failed:\n{out.stderr}")
    result = json.loads(out.stdout.splitlines()[-1])
    if not extra and result["rows"] != n:
        raise RuntimeError(f"{name} consumed {result['rows']:,} rows, not {n:,}")
    return result


def machine_note() -> str:
    """For the reports: figures from a shared machine are only comparable as ratios."""
    load1, load5, _ = os.getloadavg()
    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, "
            f"Python {platform.python_version()}; load average {load1:.1f}/{load5:.1f} "
            "(1/5 min) as the run started (the machine is shared, so compare ratios, "
            "not absolute figures)")


def code_note() -> str:
    """Which driver and emulator were measured: HEAD, and whether src/ had local edits."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True,
                              text=True, check=True).stdout.strip()
    try:
        head, dirty = git("rev-parse", "--short", "HEAD"), git("status", "--porcelain", "src")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return f"commit {head}" + (" with uncommitted changes in src/" if dirty else "")


class RssSampler:
    """Samples this process's current RSS on a thread, with the consumer's row count.

    Current RSS, not ``ru_maxrss``: the high-water mark includes whatever the
    interpreter touched before the measurement started, and says nothing
    about how memory moves while rows flow.  The consumer bumps ``rows``.

    The sampler must not grow itself, or a slow consumer would look like a
    leak: ``peak`` is exact over every sample, while the time series lives in
    a buffer allocated up front; when it fills, each pair of neighbours is
    merged into the one with the higher RSS and only every other sample is
    kept from then on.  The thread needs the GIL to run, so under a busy
    consumer the real interval is the interpreter's switch interval (5 ms)
    rather than ``interval``.
    """

    CAPACITY = 512     # points kept for the plot

    def __init__(self, interval: float = 0.002) -> None:
        import psutil
        self._proc = psutil.Process()
        self.interval = interval
        self.rows = 0
        self.peak = 0
        self.count = 0                     # samples taken
        self._buf = array("d", bytes(8 * 3 * self.CAPACITY))   # (seconds, rows, rss)...
        self._kept = 0
        self._stride = 1
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._t0 = 0.0

    def rss(self) -> int:
        return self._proc.memory_info().rss

    def sample(self, keep: bool = False) -> None:
        """Take one sample; ``keep`` records it even between strides (first and last)."""
        rss = self.rss()
        self.peak = max(self.peak, rss)
        self.count += 1
        if self.count % self._stride and not keep:
            return
        if self._kept == self.CAPACITY:
            self._halve()
        buf, i = self._buf, 3 * self._kept
        buf[i], buf[i + 1], buf[i + 2] = time.perf_counter() - self._t0, self.rows, rss
        self._kept += 1

    def _halve(self) -> None:
        buf = self._buf
        for j in range(self.CAPACITY // 2):
            a = 6 * j
            k = a + 3 if buf[a + 5] > buf[a + 2] else a
            buf[3 * j], buf[3 * j + 1], buf[3 * j + 2] = buf[k], buf[k + 1], buf[k + 2]
        self._kept = self.CAPACITY // 2
        self._stride *= 2

    @property
    def samples(self) -> list[tuple[float, int, int]]:
        """The kept (seconds since start, rows, rss bytes) points, oldest first."""
        b = self._buf
        return [(b[i], int(b[i + 1]), int(b[i + 2])) for i in range(0, 3 * self._kept, 3)]

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def __enter__(self) -> RssSampler:
        self._t0 = time.perf_counter()
        self.sample(keep=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.sample(keep=True)   # the end, while the consumer's data is still alive
