"""The login PDU pair, parsed and built as both outside clients lay it out."""

from __future__ import annotations

import pytest

from informix_stream.errors import ProtocolError
from informix_stream.framing import Incomplete
from informix_stream.login import (SL_CONACC, SL_CONREJ, SL_CONREQ, LoginRequest,
                                   build_login_reply, build_login_request,
                                   parse_login_reply, parse_login_request,
                                   read_sl_pdu)


def _request(**kw) -> bytes:
    req = LoginRequest(user="informix", password="in4mix", server="ol_informix",
                       database=kw.pop("database", None),
                       env={"CLIENT_LOCALE": "en_US.8859-1", "DBDATE": "Y4MD-"}, **kw)
    return build_login_request(req)


def test_request_round_trip_keeps_every_field():
    sl_type, body, used = read_sl_pdu(_request(database="stores"))
    assert (sl_type, used) == (SL_CONREQ, len(_request(database="stores")))
    req = parse_login_request(body)
    assert (req.user, req.password, req.server, req.database) == (
        "informix", "in4mix", "ol_informix", "stores")
    assert req.env == {"CLIENT_LOCALE": "en_US.8859-1", "DBDATE": "Y4MD-"}
    assert req.caps == (316, 0, 0)


def test_request_without_password_or_database():
    req = LoginRequest(user="u", password=None, server="s")
    parsed = parse_login_request(read_sl_pdu(build_login_request(req))[1])
    assert parsed.password is None and parsed.database is None


def test_header_bytes_match_jdbc_layout():
    pdu = _request()
    assert int.from_bytes(pdu[:2], "big") == len(pdu)
    assert pdu[2:6] == b"\x01\x3c\x00\x00"          # CONREQ, SQLI 6.00, no options
    assert pdu[6:12] == b"\x00\x64\x00\x65\x00\x00"  # ASSOC, ASCBINARY, int 61 ...


def test_partial_pdu_is_incomplete_not_an_error():
    pdu = _request()
    for cut in (1, 5, len(pdu) - 1):
        with pytest.raises(Incomplete):
            read_sl_pdu(pdu[:cut])


@pytest.mark.parametrize("total", [0, 5, 40000])
def test_absurd_length_is_a_protocol_error(total):
    with pytest.raises(ProtocolError):
        read_sl_pdu(total.to_bytes(2, "big") + b"\x01\x3c\x00\x00" + bytes(10))


@pytest.mark.parametrize("cut", [4, 30, 100])
def test_truncated_body_is_a_protocol_error(cut):
    body = read_sl_pdu(_request())[1]
    with pytest.raises(ProtocolError):
        parse_login_request(body[:cut])


def test_garbage_body_is_a_protocol_error():
    with pytest.raises(ProtocolError):
        parse_login_request(b"\x00\x01\x00\x02" + bytes(50))


def test_accept_and_reject_replies_decode():
    ok = build_login_reply(accepted=True, version="IBM Informix Dynamic Server Version 14.10.FC10",
                           serial="x", caps=(316, 0, 0))
    sl_type, body, _ = read_sl_pdu(ok)
    reply = parse_login_reply(sl_type, body)
    assert sl_type == SL_CONACC and reply.accepted and reply.error == 0
    assert reply.version.endswith("14.10.FC10") and reply.caps == (316, 0, 0)

    bad = build_login_reply(accepted=False, version="v", serial="x", caps=(316, 0, 0),
                            error=-951, message="Incorrect password")
    sl_type, body, _ = read_sl_pdu(bad)
    reply = parse_login_reply(sl_type, body)
    assert sl_type == SL_CONREJ and not reply.accepted
    assert (reply.error, reply.message) == (-951, "Incorrect password")
