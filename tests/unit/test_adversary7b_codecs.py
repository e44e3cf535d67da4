"""Issue 9, adversary round 7b: the column-at-a-time floating DECIMAL and
INTERVAL decoders (codec/packedcolumns.py: trailing fraction zeros as
blanks by ``_trim_marks``, day-time INTERVALs as ``unit * count`` in 4- or
8-byte lanes) and the DECIMAL/MONEY column encoder (codec/colencode.py)
held to their plain references on the values most likely to break them.

Decoders: every value with one non-zero digit at every position, zeros
straddling the point (100.001, 0.000001, 1E+20), every head exponent,
negatives, NULLs between, in columns mixing values with and without
fractions; INTERVAL cells of every qualifier with pairs of 0 and 99 (the
largest counts every lane must hold, days past timedelta's range).  Each
cell the column form answers is the reference's value, with its exponent;
it may answer None (the cell code's turn), and may raise only where the
reference refuses a cell too (rowblock then runs the per-row decoder).

Encoder: -0, -0E+5, exponents, NaN/sNaN/Infinity, exactly the column's
precision and one digit more, .5 at the scale, huge and tiny exponents,
one negative among thousands of positives, subclasses, ints and floats,
NULLs, under odd thread contexts: every row's image is the reference's or
the row is declined, and the batch's outcomes are the reference's.
"""

from __future__ import annotations

import decimal
import random
from decimal import Decimal

import pytest
from test_colencode_differential import _batch_outcomes, _cursor, _outcome, _reference_outcomes
from test_packedcolumns import block, reference, same

from informix_stream.codec.packedcells import temporal_head
from informix_stream.codec.packedcolumns import packed_column
from informix_stream.codecs import (TU_DAY, TU_HOUR, TU_MINUTE, TU_MONTH, TU_SECOND, TU_YEAR,
                                    ColumnType, TypeCode, make_row_encoder, qualifier)


def _answers(ctype: ColumnType, images: list[bytes], lead: int) -> list | None:
    """The column form's values (None: the cell code's turn); raising is
    allowed only where the reference refuses some cell."""
    data, at, stride = block(ctype, images, lead)
    convert = packed_column(ctype, at, stride)
    assert convert is not None
    try:
        got = convert(data, len(images))
        return None if got is None else list(got)
    except Exception:
        assert any(reference(ctype, image)[0] == "error" for image in images), images
        return None


def _agree(ctype: ColumnType, images: list[bytes], lead: int = 0) -> bool:
    got = _answers(ctype, images, lead)
    if got is None:
        return False
    assert len(got) == len(images)
    for value, image in zip(got, images):
        kind, want = reference(ctype, image)
        assert kind == "value" and same(value, want), (ctype, image.hex(), value, want)
    return True


# ---------------------------------------------------------------- floating DECIMAL

def _one_digit_values(p: int) -> list[Decimal]:
    """A 5 at every position of every digit count up to p, the point at
    every place: every run of zeros before, after and around the point."""
    out = []
    for digits in range(1, p + 1):
        for pos in range(digits):
            text = "".join("5" if k == pos else "0" for k in range(digits))
            for point in range(digits + 1):
                out.append(Decimal(f"{text[:point] or '0'}.{text[point:]}"))
    return out


_FIXED_TEXTS = ["100.001", "0.000001", "1E+20", "10", "1000000", "1", "0.1", "0.01", "1.1",
                "10.01", "1E-12", "1E-11", "99", "0", "-0", "-1", "-100.001", "-0.000001",
                "-10", "-1000000", "1.000001", "0.0000000000010", "-9.9E-13"]


def _floating_values(p: int) -> list[Decimal]:
    values = [Decimal(t) for t in _FIXED_TEXTS]
    for e in range(-30, 33):
        values += [Decimal(f"{m}E{e:+d}") for m in ("1", "-1", "10", "1.01", "-9.9")]
    values += _one_digit_values(min(p, 12))
    return [v for v in values if len(v.as_tuple().digits) <= p]


@pytest.mark.parametrize("p", [1, 2, 3, 5, 8, 12, 16, 31, 32])
def test_floating_decimal_columns_of_sparse_digits(p):
    ctype = ColumnType(TypeCode.DECIMAL, (p << 8) | 0xFF, True)
    encode = make_row_encoder([ctype])
    values = _floating_values(p)
    rng = random.Random(p)
    answered = 0
    for trial in range(60):
        column = rng.sample(values, min(len(values), rng.randint(1, 40)))
        column = [None if rng.random() < 0.15 else v for v in column]
        answered += _agree(ctype, [encode((v,)) for v in column], rng.randint(0, 3))
    for v in values:                      # each alone: no neighbour hides it
        answered += _agree(ctype, [encode((v,))])
    assert answered, "the column form never answered: the test checks nothing"


def test_floating_decimal_random_zero_heavy_columns():
    rng = random.Random(7)
    answered = 0
    for trial in range(400):
        p = rng.randint(1, 32)
        ctype = ColumnType(TypeCode.DECIMAL, (p << 8) | 0xFF, rng.random() < 0.5)
        encode = make_row_encoder([ctype])
        column = []
        for _ in range(rng.randint(1, 30)):
            if rng.random() < 0.1:
                column.append(None)
                continue
            n = rng.randint(1, p)
            digits = [rng.choice((1, 5, 9))] + [rng.choice((0, 0, 0, 9)) for _ in range(n - 1)]
            column.append(Decimal((rng.random() < 0.4, tuple(digits),
                                   rng.randint(-n - 12, p - n))))
        answered += _agree(ctype, [encode((v,)) for v in column], rng.randint(0, 3))
    assert answered > 50, answered


# ---------------------------------------------------------------- INTERVAL

def _interval_types() -> list[ColumnType]:
    out = []
    for start, ends in ((TU_YEAR, (TU_YEAR, TU_MONTH)), (TU_MONTH, (TU_MONTH,))):
        out += [ColumnType(TypeCode.INTERVAL, qualifier(lead + end - start, start, end))
                for end in ends for lead in range(1, 10)]
    for start in (TU_DAY, TU_HOUR, TU_MINUTE, TU_SECOND):
        for end in (TU_DAY, TU_HOUR, TU_MINUTE, TU_SECOND, 11, 12, 13, 14, 15):
            if end >= start:
                out += [ColumnType(TypeCode.INTERVAL, qualifier(lead + end - start, start, end))
                        for lead in (1, 2, 5, 8, 9)]
    return out


@pytest.mark.parametrize("ctype", _interval_types(), ids=str)
def test_interval_cells_of_zeros_and_nines(ctype):
    """All-99 pairs spell the largest count a lane must hold (and days past
    timedelta's range for DAY(9)); 0/99 mixes spell the counts at the lane
    edges' neighbourhoods; zero heads are NULLs among them."""
    head, width = temporal_head(ctype), ctype.wire_width
    rng = random.Random(str(ctype))
    answered = clean = 0
    for trial in range(25):
        images = []
        for _ in range(rng.randint(1, 16)):
            if rng.random() < 0.1:
                images.append(bytes(width))
                continue
            mode = rng.random()
            images.append(bytes([head]) + bytes(
                99 if mode < 0.2 else 0 if mode < 0.3 else rng.choice((0, 99, rng.randint(0, 99)))
                for _ in range(width - 1)))
        answered += _agree(ctype, images, rng.randint(0, 3))
        clean += all(reference(ctype, image)[0] == "value" for image in images)
    # DAY(9)'s nines overflow timedelta: such a column is the cell code's
    assert answered or not clean, "the column form never answered a clean column"


# ---------------------------------------------------------------- DECIMAL encoder

class _D(Decimal):
    pass


_ODD_TEXTS = ["-0", "-0E+5", "0E+5", "0E-40", "-0E-40", "1E+10", "1.000E-2", "NaN", "-NaN",
              "sNaN", "Infinity", "-Infinity", "0.5", "0.05", "0.005", "-0.005", "0.0050",
              "9.995", "-9.995", "0.15", "0.25", "-0.25", "1E+31", "1E+32", "-1E+31", "9" * 32,
              "-" + "9" * 32, "0." + "9" * 32, "1E-32", "1E-31", "1E-33", "-1E-32",
              "1E+999999", "1E-999999", "1E+100000000", "99.99", "-99.99", "100", "-100",
              "-0.01", "2.5", "-2.5", "12345678901.25", "-12345678901.25"]
_ODD = [Decimal(t) for t in _ODD_TEXTS] + [_D("1.5"), _D("-1"), 1, -1, 0, 1.5, -0.0, 2**70,
                                           True, None, None]
_TYPES = ["decimal(1,0)", "decimal(2,1)", "decimal(2,2)", "decimal(5,1)", "decimal(12,2)",
          "money(16,2)", "decimal(16,16)", "decimal(32,0)", "decimal(32,32)", "decimal(32,31)",
          "decimal(30,9)", "decimal(17,7)", "money(8)"]


def _same_as_reference(put, rows: list) -> None:
    for row, image in zip(rows, put.encode_batch(rows)):
        want = _outcome(put, row, 1)
        assert image == (want if type(want) is bytes else None), row
    assert _batch_outcomes(put, rows, 1) == _reference_outcomes(put, rows, 1)


@pytest.mark.parametrize("ddl", _TYPES)
def test_decimal_encoder_on_odd_values(ddl):
    put = _cursor([ddl])
    for v in _ODD:
        _same_as_reference(put, [(v,)])
    rng = random.Random(ddl)
    for trial in range(60):
        _same_as_reference(put, [(rng.choice(_ODD),) for _ in range(rng.randint(2, 20))])


def _near_precision(rng: random.Random, p: int, s: int) -> Decimal:
    """Digits at, one over and under the precision; exponents at the scale
    and one either side."""
    n = max(1, rng.choice([p, p + 1, p - 1, rng.randint(1, p + 2)]))
    digits = tuple(rng.choice((0, 9) if rng.random() < 0.5 else range(10)) for _ in range(n))
    return Decimal((rng.random() < 0.5, digits, rng.choice([-s, -s - 1, -s + 1])))


@pytest.mark.parametrize("context", ["default", "capitals-0-traps", "wide-round-down"])
def test_decimal_encoder_near_the_precision_under_any_thread_context(context):
    rng = random.Random(context)
    with decimal.localcontext() as ctx:
        if context == "capitals-0-traps":
            ctx.capitals, ctx.prec = 0, 3
            ctx.traps[decimal.Inexact] = ctx.traps[decimal.Rounded] = True
        elif context == "wide-round-down":
            ctx.prec, ctx.rounding, ctx.Emax, ctx.Emin = 100, decimal.ROUND_DOWN, 40, -40
        for trial in range(60):
            p = rng.randint(1, 32)
            s = min(p, rng.choice([0, 1, 2, p, rng.randint(0, p)]))
            put = _cursor([f"{rng.choice(['decimal', 'money'])}({p},{s})"])
            rows = [(_near_precision(rng, p, s) if rng.random() < 0.9 else None,)
                    for _ in range(rng.choice([1, 5, 50]))]
            _same_as_reference(put, rows)


def test_one_negative_among_ten_thousand_positives():
    put = _cursor(["decimal(12,2)"])
    rows = [(Decimal(i) / 100,) for i in range(1, 10_001)]
    rows[7_777] = (Decimal("-0.01"),)
    rows[9_999] = (None,)
    images = put.encode_batch(rows)
    for k in (0, 7_776, 7_777, 7_778, 9_998, 9_999):
        assert images[k] == put.item(rows[k], None, 1, "iso-8859-1"), k
    assert images == [put.item(r, None, 1, "iso-8859-1") for r in rows]
