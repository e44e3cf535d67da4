"""The client session state machine, driven with bytes only (no sockets)."""

from __future__ import annotations

import pytest

from informix_stream import codecs
from informix_stream.core.session import ClientSession
from informix_stream.errors import DataError, OperationalError, ProtocolError
from informix_stream.framing import Writer
from informix_stream.messages import Tag, write_done, write_tuple_header

INT = codecs.parse_type("INTEGER")
DEC = codecs.parse_type("DECIMAL(5,2)")
EOT = Writer().short(Tag.EOT).getvalue()


def tuple_msg(payload: bytes, size: int | None = None) -> bytes:
    w = Writer()
    write_tuple_header(w, len(payload) if size is None else size)
    w.padded(payload)
    return w.getvalue()


def done(rows: int = 0) -> bytes:
    w = Writer()
    write_done(w, rows)
    return w.getvalue()


def int_row(v: int) -> bytes:
    return tuple_msg(v.to_bytes(4, "big", signed=True))


def session(**kw) -> ClientSession:
    kw.setdefault("max_message_size", 4096)
    return ClientSession(**kw)


def test_replies_fill_their_own_expects_in_order_across_any_split():
    data = int_row(1) + int_row(2) + done(2) + EOT + int_row(3) + done(1) + EOT
    for cut in range(len(data) + 1):
        s = session()
        dec = codecs.make_row_decoder([INT])
        a = s.send(b"A", decode=dec, budget=1024)
        b = s.send(b"B", decode=dec, budget=1024)
        s.receive(data[:cut]) if cut else None
        if cut < len(data):
            s.receive(data[cut:])
        assert a.done and b.done
        assert a.reply.rows == [(1,), (2,)] and b.reply.rows == [(3,)]
        assert not s.awaiting_reply and s.broken is None


def test_requests_queue_with_cleanup_in_front_and_eot_after():
    s = session()
    s.defer_cleanup(b"CL")
    s.owe(b"OW")
    s.send(b"REQ")
    assert bytes(s.data_to_send()) == b"OW" + EOT + b"CL" + b"REQ" + EOT
    s.sent(3)
    assert bytes(s.data_to_send()) == EOT[1:] + b"CL" + b"REQ" + EOT


@pytest.mark.parametrize("data, why", [
    (int_row(1), "no request outstanding"),
])
def test_bytes_with_nothing_outstanding_break_the_session(data, why):
    s = session()
    with pytest.raises(ProtocolError, match=why):
        s.receive(data)
    assert s.broken is not None
    with pytest.raises(OperationalError, match="unusable"):
        s.check()


def test_bytes_after_the_last_reply_break_the_session():
    s = session()
    s.send(b"A")
    with pytest.raises(ProtocolError, match="after the last reply"):
        s.receive(done() + EOT + b"\x00\x0f")
    assert s.broken


@pytest.mark.parametrize("size", [-1, -2 ** 31, 5000, 2 ** 31 - 1])
def test_absurd_tuple_sizes_break_the_session(size):
    s = session()
    s.send(b"A", decode=codecs.make_row_decoder([INT]), budget=1024)
    with pytest.raises(ProtocolError, match="SQ_TUPLE declares"):
        s.receive(tuple_msg(b"\x00\x00\x00\x01", size=size) + b"\x00" * 16)
    assert s.broken


@pytest.mark.parametrize("payload", [b"\x00\x00\x00\x01\x00\x00", b"\x00\x00\x00\x01\xff\xff\xff\xff"])
def test_a_row_that_does_not_fill_its_tuple_exactly_breaks_the_session(payload):
    s = session()
    s.send(b"A", decode=codecs.make_row_decoder([INT]), budget=1024)
    with pytest.raises(ProtocolError, match="do not match"):
        s.receive(tuple_msg(payload) + done() + EOT)
    assert s.broken


def test_a_reply_longer_than_its_fetch_asked_for_breaks_the_session():
    s = session(max_message_size=1024)
    s.send(b"A", decode=codecs.make_row_decoder([INT]), budget=64)
    with pytest.raises(ProtocolError, match="far more"):
        for _ in range(400):
            s.receive(int_row(7))
    assert s.broken


def test_an_unbounded_message_breaks_the_session():
    s = session(max_message_size=1024)
    s.send(b"A")
    err = Writer().short(Tag.ERR).short(-201).short(0).int(0).short(30000).getvalue()
    with pytest.raises(ProtocolError):
        s.receive(err)
        for _ in range(40):
            s.receive(b"x" * 1000)


def test_unknown_message_tag_breaks_the_session():
    s = session()
    s.send(b"A")
    with pytest.raises(ProtocolError, match="tag"):
        s.receive(b"\x7f\x7f\x00\x00")
    assert s.broken


def test_an_undecodable_value_is_a_data_error_and_the_stream_stays_aligned():
    s = session()
    dec = codecs.make_row_decoder([DEC])
    a = s.send(b"A", decode=dec, budget=1024)
    b = s.send(b"B", decode=dec, budget=1024)
    from decimal import Decimal
    good = codecs.make_row_encoder([DEC])((Decimal("1.25"),))
    bad = good[:1] + b"\xff" + good[2:]       # a base-100 digit of 255
    s.receive(tuple_msg(bad) + tuple_msg(good) + done() + EOT + tuple_msg(good) + done() + EOT)
    assert a.done and b.done and s.broken is None
    assert isinstance(a.reply.decode_error, DataError)
    assert b.reply.decode_error is None and len(b.reply.rows) == 1


def test_end_op_breaks_only_when_an_exchange_was_cut():
    s = session()
    s.begin_op()
    s.send(b"A")
    s.sent(1)
    s.end_op(KeyboardInterrupt())                  # half-sent
    assert s.broken and "interrupted" in s.broken

    s = session()
    s.begin_op()
    e = s.send(b"A")
    s.sent(len(s.data_to_send()))
    s.end_op(KeyboardInterrupt())                  # its reply still owed
    assert s.broken

    s = session()
    s.begin_op()
    e = s.send(b"A")
    s.sent(len(s.data_to_send()))
    s.receive(done() + EOT)
    assert e.done
    s.end_op(ValueError("raised after the reply was complete"))
    assert s.broken is None

    s = session()
    s.begin_op()
    s.send(b"A", detached=True)                    # a read-ahead may stay in flight
    s.sent(len(s.data_to_send()))
    s.end_op(KeyboardInterrupt())
    assert s.broken is None


def test_implicit_begin_and_transaction_state_follow_the_replies():
    s = session()
    s.logged = True
    e = s.send(b"PREP", begin=True)
    assert bytes(s.data_to_send()).startswith(Writer().short(Tag.BEGIN).getvalue())
    s.sent(len(s.data_to_send()))
    assert not s.in_transaction
    s.receive(done() + EOT)
    assert e.done and s.in_transaction
    s.send(b"NEXT", begin=True)
    assert not bytes(s.data_to_send()).startswith(Writer().short(Tag.BEGIN).getvalue())
