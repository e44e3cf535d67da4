"""Reference Arrow decoding: row images -> Python tuples (the row decoder) ->
one Arrow array per column, each value converted plainly.

It is what the columnar decoder (columnar.py) is held to by the differential
test, and it is also the path the fast decoder takes for rows that already
arrived as tuples (the first fetch buffer is decoded at execute) and for the
rarer column types it has no vectorised path for.

Every conversion failure is a DataError naming the column: a DECIMAL with
more digits than decimal128(p,s) holds, an INT8 beyond int64, a DATETIME
outside the unit's range -- never a wrapped or truncated value.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence

from ..codec.rowdecode_ref import reference_decoder
from ..codec.typeinfo import ColumnType, TypeCode
from ..errors import DataError
from ._deps import load
from .types import UNIT_TICKS, arrow_type, arrow_schema, temporal_kind, time_unit

_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_DATE = _EPOCH.date()
_DAY = datetime.timedelta(days=1)


def _ticks(delta: datetime.timedelta, unit: str) -> int:
    """A timedelta as a whole number of ``unit`` ticks; DataError if it is not."""
    micros = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    per = 1_000_000 // UNIT_TICKS[unit]
    if micros % per:
        raise DataError(f"{delta} has digits finer than the column's unit ({unit})")
    return micros // per


def _plain(ctype: ColumnType) -> Callable[[object], object] | None:
    """How one non-NULL Python value becomes what pyarrow takes for the
    column's Arrow type; None when pyarrow takes the value as it is."""
    code = ctype.code
    if code in (TypeCode.DECIMAL, TypeCode.MONEY) and ctype.scale is None:
        return float
    if code == TypeCode.DATE:
        return lambda d: (d - _EPOCH_DATE).days
    if code == TypeCode.DATETIME:
        kind, unit = temporal_kind(ctype), time_unit(ctype)
        if kind == "date":
            return lambda d: (d - _EPOCH_DATE).days
        if kind == "time":
            return lambda t: _ticks(datetime.datetime.combine(_EPOCH_DATE, t) - _EPOCH, unit)
        return lambda t: _ticks(t - _EPOCH, unit)
    if code == TypeCode.INTERVAL:
        if ctype.is_year_month:
            return lambda v: (v.months, 0, 0)
        unit = time_unit(ctype)
        return lambda v: _ticks(v, unit)
    return None


def column_error(k: int, name: str, ctype: ColumnType, exc: BaseException) -> DataError:
    return DataError(f"column {k + 1} ({name} {ctype.sql()}) cannot be an Arrow "
                     f"{arrow_type(load()[1], ctype)}: {exc}")


def values_to_array(values: Sequence, ctype: ColumnType, k: int = 0, name: str = "?"):
    """One column of Python values (None for NULL) -> an Arrow array."""
    _, pa = load()
    typ = arrow_type(pa, ctype)
    plain = _plain(ctype)
    try:
        if plain is not None:
            values = [None if v is None else plain(v) for v in values]
            if pa.types.is_date32(typ) or pa.types.is_timestamp(typ) or pa.types.is_time(typ) \
                    or pa.types.is_duration(typ):
                # Ticks go in as int64 and are reinterpreted: no conversion
                # by pyarrow's own rules (which might round or wrap).
                storage = pa.int32() if pa.types.is_date32(typ) or typ in (
                    pa.time32("s"), pa.time32("ms")) else pa.int64()
                return pa.array(values, storage).view(typ)
        return pa.array(values, typ)
    except (DataError, ValueError, OverflowError, TypeError, pa.ArrowException) as exc:
        raise column_error(k, name, ctype, exc) from exc


def rows_to_batch(rows: Sequence[tuple], types: Sequence[ColumnType], names: Sequence[str]):
    """Decoded rows (tuples) -> a RecordBatch with the documented schema."""
    _, pa = load()
    schema = arrow_schema(pa, list(names), list(types))
    columns = list(zip(*rows)) if rows else [()] * len(types)
    arrays = [values_to_array(col, t, k, name)
              for k, (col, t, name) in enumerate(zip(columns, types, names))]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def reference_batch(images: Sequence[bytes], types: Sequence[ColumnType],
                    names: Sequence[str], encoding: str = "iso-8859-1"):
    """Row images -> RecordBatch the plain way (the differential test's reference).

    Each image is decoded whole by the reference row decoder, which raises
    ProtocolError for an image that does not frame and DataError for a value
    its bytes cannot be; an image that frames short of its end is a
    ProtocolError, as in the tuple path.
    """
    from ..errors import ProtocolError
    decode = reference_decoder(types, encoding)
    ends = []
    for image in images:
        try:
            ends.append(decode(image, 0, len(image))[1])
        except DataError:
            ends.append(None)        # framing is checked for every row first
    for image, end in zip(images, ends):
        if end is not None and end != len(image):
            raise ProtocolError(f"row image of {len(image)} bytes decoded as {end}: "
                                "the described columns do not match the row")
    rows = [decode(image, 0, len(image))[0] for image in images]
    return rows_to_batch(rows, types, names)
