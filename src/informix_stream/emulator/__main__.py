"""Command line: ``python -m informix_stream.emulator --port 9088 --database testdb``.

Prints ``listening on HOST:PORT`` (flushed) once clients can connect, so a
script that starts it can read the port when ``--port 0`` picked one.
SIGINT and SIGTERM stop it cleanly.
"""

from __future__ import annotations

import argparse
import logging
import signal
import ssl
import sys

from ..errors import NotSupportedError
from ..locales import parse_locale
from .server import EmulatorServer


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m informix_stream.emulator",
                                description="SQLI (Informix) server emulator backed by SQLite")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=9088, help="0 picks a free port")
    p.add_argument("--database", action="append", dest="databases", metavar="NAME[=LOCALE]",
                   help="a logged database to serve, optionally with its locale, e.g. "
                        "utf8db=en_US.utf8 (repeatable; default testdb in en_US.8859-1)")
    p.add_argument("--data-dir", help="keep databases as SQLite files here (default: in memory)")
    p.add_argument("--user", default="informix")
    p.add_argument("--password", default="in4mix")
    p.add_argument("--server-name", default="informix", help="the INFORMIXSERVER name")
    p.add_argument("--tls-cert", help="serve TLS with this PEM certificate (chain)")
    p.add_argument("--tls-key", help="private key for --tls-cert (if not in the same file)")
    p.add_argument("--long-transaction-rows", type=int, default=None, metavar="N",
                   help="abort (-458) and roll back a transaction that writes more than "
                        "N rows (a real server's LTXHWM; emulator/long_tx.py); off by default")
    p.add_argument("--verbose", action="store_true", help="log each client connection")
    return p


def _databases(specs: list[str]) -> dict[str, str | None]:
    """``NAME`` or ``NAME=LOCALE`` -> {name: locale}; an unknown locale is refused."""
    out: dict[str, str | None] = {}
    for spec in specs:
        name, _, locale = spec.partition("=")
        if locale:
            parse_locale(locale, f"--database {name}")
        out[name] = locale or None
    return out


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if not 0 <= args.port <= 65535:
        _parser().error(f"--port must be 0..65535, not {args.port}")
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING)
    tls = None
    if args.tls_cert:
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        try:
            tls.load_cert_chain(args.tls_cert, args.tls_key)
        except (OSError, ssl.SSLError) as exc:
            print(f"cannot load the TLS certificate: {exc}", file=sys.stderr)
            return 1
    elif args.tls_key:
        _parser().error("--tls-key needs --tls-cert")
    try:
        databases = _databases(args.databases or ["testdb"])
    except NotSupportedError as exc:
        _parser().error(str(exc))
    try:
        server = EmulatorServer(args.host, args.port, databases=databases,
                                data_dir=args.data_dir, user=args.user,
                                password=args.password, server_name=args.server_name,
                                tls=tls, long_transaction_rows=args.long_transaction_rows)
    except OSError as exc:
        print(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1

    def _stop(_signum, _frame) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    print(f"listening on {server.host}:{server.port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
