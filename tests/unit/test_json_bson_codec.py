"""The built-in opaque JSON and BSON types in the codec: described as UDTVAR
with extended id 25 / 26 (JDBC IfxTypes IFX_XID_JSON / IFX_XID_BSON), a
value in the opaque-type envelope; JSON read as str in the session's code
set (as IBM's JDBC decodes it), BSON as bytes; both decoders agree."""

from __future__ import annotations

import pytest

from informix_stream import codecs
from informix_stream.codec import rowdecode_ref
from informix_stream.codec.rowencode import make_row_encoder
from informix_stream.codec.typeinfo import TypeCode, parse_type
from informix_stream.errors import DataError, NotSupportedError

BSON_DOC = bytes.fromhex("0c0000001061000100000000")   # {"a": 1} as BSON


def _described(text: str):
    t = parse_type(text)
    return codecs.column_type_from_describe(t.describe_code, t.extended_id, t.length,
                                            t.extended_name)


def test_described_as_a_server_describes_them():
    j, b = parse_type("JSON"), parse_type("bson")
    assert (j.describe_code, j.extended_id, j.extended_name) == (40, 25, "json")
    assert (b.describe_code, b.extended_id, b.extended_name) == (40, 26, "bson")
    assert _described("json").code == TypeCode.JSON
    assert _described("bson").code == TypeCode.BSON
    assert parse_type("json", nullable=False).describe_code == 40 | 0x100


@pytest.mark.parametrize("code", [125, 126, 101, 102])
def test_our_own_codes_are_refused_on_the_wire(code):
    with pytest.raises(NotSupportedError):
        codecs.column_type_from_describe(code, 0, 10)


@pytest.mark.parametrize("locale", ["iso-8859-1", "utf-8"])
def test_round_trip_both_decoders(locale):
    cols = [parse_type("int"), parse_type("json"), parse_type("bson"), parse_type("char(2)")]
    rows = [(1, '{"name": "Zoë", "n": [1, 2]}', BSON_DOC, "ok"), (2, None, None, "nu"),
            (3, "", b"", "em")]
    enc = make_row_encoder(cols, locale)
    types = [_described(t.sql()) for t in cols]
    fast = codecs.make_row_decoder(types, locale)
    ref = rowdecode_ref.reference_decoder(types, locale)
    for row in rows:
        image = enc(row)
        assert image[4:9] == (b"\x01\x00\x00\x00\x00" if row[1] is None
                              else b"\x00" + len(row[1].encode(locale)).to_bytes(4, "big"))
        got, end = fast(image, 0)
        assert tuple(got) == row and end == len(image)
        assert tuple(ref(image, 0)[0]) == row


def test_json_that_is_not_utf8_is_a_data_error():
    types = [_described("json")]
    image = b"\x00\x00\x00\x00\x02\xff\xfe"
    with pytest.raises(DataError, match="column 1 .JSON"):
        codecs.make_row_decoder(types, "utf-8")(image, 0)
