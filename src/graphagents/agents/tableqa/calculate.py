"""``Calculate[expression]``: arithmetic on numbers, evaluated from the AST, never with ``eval``.

Numbers may carry thousands separators, currency signs and percent signs ("$1,234", "12.5%");
operators ``+ - * / // % **`` (exponents up to 64), parentheses and a few functions (abs, round,
min, max, sum, mean, sqrt, floor, ceil, log). Anything else (names, attributes, strings, calls to
other functions) is an error text for the planner.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable
from typing import Any

__all__ = ["CalculationError", "calculate", "format_number"]

MAX_EXPRESSION_CHARS = 500
MAX_EXPONENT = 64
MAX_MAGNITUDE = 1e300

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def _mean(*values: float) -> float:
    if not values:
        raise CalculationError("mean() needs at least one number")
    return sum(values) / len(values)


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "abs": abs, "round": round, "min": min, "max": max, "sum": lambda *v: sum(v), "mean": _mean,
    "avg": _mean, "average": _mean, "sqrt": math.sqrt, "floor": math.floor, "ceil": math.ceil, "log": math.log,
}  # fmt: skip

_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_CURRENCY = re.compile(r"[$€£¥₩]")
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*%")


class CalculationError(ValueError):
    """The expression is not plain arithmetic, or the arithmetic fails (division by zero ...)."""


def calculate(expression: str) -> float | int:
    """The value of ``expression``; raises :class:`CalculationError` with a one-line reason."""
    text = expression.strip().strip("`").strip()
    if not text:
        raise CalculationError("empty expression")
    if len(text) > MAX_EXPRESSION_CHARS:
        raise CalculationError(f"expression longer than {MAX_EXPRESSION_CHARS} characters")
    text = _PERCENT.sub(r"(\1/100)", _CURRENCY.sub("", _THOUSANDS.sub("", text))).replace("×", "*").replace("÷", "/")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise CalculationError(f"not an arithmetic expression: {expression.strip()[:80]!r}") from None
    try:
        value = _eval(tree.body)
    except ZeroDivisionError:
        raise CalculationError("division by zero") from None
    except (OverflowError, ValueError, TypeError) as exc:
        raise CalculationError(f"cannot compute: {exc}") from None
    if isinstance(value, float) and (math.isnan(value) or abs(value) > MAX_MAGNITUDE):
        raise CalculationError("the result is not a finite number")
    return value


def _eval(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and (abs(right) > MAX_EXPONENT or abs(left) > MAX_MAGNITUDE):
            raise CalculationError(f"exponent too large (at most {MAX_EXPONENT})")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        func = _FUNCTIONS.get(node.func.id.lower())
        if func is None:
            raise CalculationError(f"unknown function {node.func.id!r}; allowed: {', '.join(sorted(_FUNCTIONS))}")
        args = []
        for arg in node.args:
            value = _eval(arg.elts) if isinstance(arg, ast.List | ast.Tuple) else _eval(arg)  # type: ignore[arg-type]
            args.extend(value if isinstance(value, list) else [value])
        return func(*args)
    if isinstance(node, list):
        return [_eval(n) for n in node]
    raise CalculationError(f"only numbers and arithmetic are allowed, not {type(node).__name__}")


def format_number(value: float | int) -> str:
    """Integral values without '.0'; others to at most 6 decimals, trailing zeros dropped."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.6f}".rstrip("0").rstrip(".")
    return str(value)
