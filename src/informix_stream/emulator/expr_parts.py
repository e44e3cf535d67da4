"""The operand model the expression translator (translate_expr) and the
DATE/DATETIME comparison rules (datetime_compare) share: an emitted value
with its Informix type, and the pieces phase one reads a span into."""

from __future__ import annotations

from dataclasses import dataclass

from informix_stream.codecs import ColumnType

COMPARE_OPS = frozenset({"=", "<>", "!=", "<", ">", "<=", ">="})


@dataclass
class Expr:
    """An emitted operand or operation: its SQLite text and Informix type
    (None when unknown, e.g. a bound ``?``)."""

    sql: str
    type: ColumnType | None
    computed: bool = False      # the value is an operation's result
    form: str = ""              # storage_form of a value that is not computed


@dataclass
class Item:
    """One piece of a span: an operand range [a, b) with the casts after it,
    or an operator."""

    op: str = ""                # "", an arithmetic/comparison op, or "u-"/"u+" (unary)
    a: int = 0
    b: int = 0
    casts: tuple[ColumnType, ...] = ()


def split_sides(items: list[Item]) -> list[list[Item]]:
    """The operands of a comparison without operations, split at its
    comparison operator (and BETWEEN's AND)."""
    sides: list[list[Item]] = [[]]
    for it in items:
        if it.op in COMPARE_OPS or it.op.endswith("BETWEEN") or it.op == "AND":
            sides.append([])
        else:
            sides[-1].append(it)
    return sides
