"""The emulator in a child process, for benchmarks and demos.

A separate process keeps the emulator's CPU time and memory out of the
client's figures, which an in-process server thread would not.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_SRC = str(Path(__file__).resolve().parent.parent.parent)


@contextmanager
def spawned(*args: str, src: str | None = None) -> Iterator[tuple[str, int]]:
    """Run ``python -m informix_stream.emulator --port 0 *args``; yield (host, port).
    ``src``: the source tree to run it from (a benchmark's baseline), else this one."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (src or _SRC, os.environ.get("PYTHONPATH")) if p)}
    proc = subprocess.Popen([sys.executable, "-m", "informix_stream.emulator", "--port", "0",
                             *args], stdout=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()
        if not line.startswith("listening on "):
            raise RuntimeError(f"the emulator did not start (it printed {line!r})")
        host, port = line.split()[-1].rsplit(":", 1)
        yield host, int(port)
    finally:
        proc.terminate()          # its stop() is bounded (EmulatorServer.stop)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
