"""What one small statement costs on an open connection (issue 11's target).

    python bench/throughput/statement_cost.py [--n 2000] [--rounds 5]

A user's test suite runs thousands of tiny statements; each pays the round
trip plus what the emulator spends translating and running it.  Measured
side by side in one run, interleaved in rounds, against one emulator in its
own process:

* tcp: a bare loopback round trip to an echo server in its own process
  (the floor every statement pays);
* select: ``SELECT 1 FROM systables WHERE tabid = 1``, fetched;
* insert: a one-row ``INSERT`` with two bound parameters (autocommit);

each with this driver and with informix-driver.  Prints microseconds per
statement (median of the rounds) and the ratio to the bare round trip.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import connect, emulator_process  # noqa: E402

SELECT = "SELECT 1 FROM systables WHERE tabid = 1"
INSERT = "INSERT INTO stmt_cost (id, name) VALUES (?, ?)"
ECHO = """
import socket, sys
srv = socket.create_server(("127.0.0.1", 0))
print(srv.getsockname()[1], flush=True)
conn, _ = srv.accept()
conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
while True:
    data = conn.recv(65536)
    if not data:
        break
    conn.sendall(data)
"""


def echo_rtt(n: int, port: int, sock: socket.socket) -> float:
    message = b"x" * 64
    start = time.perf_counter()
    for _ in range(n):
        sock.sendall(message)
        got = 0
        while got < len(message):
            got += len(sock.recv(65536))
    return time.perf_counter() - start


def ours_select(cur, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        cur.execute(SELECT)
        cur.fetchall()
    return time.perf_counter() - start


def ours_insert(cur, n: int, base: int) -> float:
    start = time.perf_counter()
    for i in range(n):
        cur.execute(INSERT, (base + i, "x"))
    return time.perf_counter() - start


def theirs_connect(host: str, port: int):
    import informix_db
    return informix_db.connect(host=host, port=port, user="informix", password="in4mix",
                               database="testdb", server="informix", autocommit=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=2000, help="statements per round and kind")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()

    echo = subprocess.Popen([sys.executable, "-c", ECHO], stdout=subprocess.PIPE, text=True)
    try:
        echo_port = int(echo.stdout.readline())
        tcp = socket.create_connection(("127.0.0.1", echo_port))
        tcp.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with emulator_process() as (host, port):
            run(args, host, port, tcp, echo_port)
        tcp.close()
    finally:
        echo.kill()
        echo.wait()


def run(args, host: str, port: int, tcp: socket.socket, echo_port: int) -> None:
    ours = connect(host, port, autocommit=True)
    ocur = ours.cursor()
    ocur.execute("CREATE TABLE stmt_cost (id INTEGER, name VARCHAR(20))")
    try:
        theirs = theirs_connect(host, port)
        tcur = theirs.cursor()
    except ImportError:
        theirs = tcur = None
    times: dict[str, list[float]] = {}
    base = 0
    for _ in range(args.rounds):
        kinds = {"tcp": lambda: echo_rtt(args.n, echo_port, tcp),
                 "select ours": lambda: ours_select(ocur, args.n),
                 "insert ours": lambda: ours_insert(ocur, args.n, base)}
        if tcur is not None:
            kinds["select informix-driver"] = lambda: ours_select(tcur, args.n)
            kinds["insert informix-driver"] = lambda: ours_insert(tcur, args.n, base + args.n)
        for name, measure in kinds.items():
            times.setdefault(name, []).append(measure() / args.n * 1e6)
        base += 2 * args.n
    floor = statistics.median(times["tcp"])
    print(f"{'statement':<26}{'us/stmt':>10}{'x tcp':>8}   (n={args.n}, rounds={args.rounds},"
          " median)")
    for name, values in times.items():
        us = statistics.median(values)
        print(f"{name:<26}{us:>10.1f}{us / floor:>8.1f}")
    ours.close()
    if theirs is not None:
        theirs.close()


if __name__ == "__main__":
    main()
