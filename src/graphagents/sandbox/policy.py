"""The AST policy: what generated pandas code may say, checked before it is sent to a worker.

This is the first of three locks (see docs/sandbox.md): the worker checks the same policy again,
then runs the code with restricted builtins, module views and an audit hook, in a forked child
with rlimits and no free file descriptors. The policy is an allow-list of statement kinds and
imports plus deny-lists for names and attributes, because pandas' own surface is too wide to
list attribute by attribute; the runtime locks catch what a deny-list misses.

The module is stdlib only: the worker imports it without graphagents' dependencies.
"""

from __future__ import annotations

import ast
import re
import string
from dataclasses import dataclass

__all__ = [
    "ALLOWED_MODULES",
    "MAX_CODE_CHARS",
    "CodeRefused",
    "attribute_problem",
    "check_code",
    "parse_checked",
]

MAX_CODE_CHARS = 20_000
MAX_NODES = 20_000

# Modules code may import; `pd` and `np` are bound already. Sub-modules are reachable only
# through the listed ones (see runtime.ALLOWED_SUBMODULES).
ALLOWED_MODULES: frozenset[str] = frozenset(
    {"pandas", "numpy", "math", "datetime", "re", "statistics", "collections", "itertools"}
)
_ALLOWED_IMPORT_PATHS = ALLOWED_MODULES | {"numpy.random", "numpy.linalg", "pandas.errors"}

# Builtins that read or write the world, run hidden code, or reach interpreter internals.
DENIED_NAMES: frozenset[str] = frozenset(
    {
        "eval", "exec", "compile", "open", "input", "breakpoint", "help", "exit", "quit",
        "globals", "locals", "vars", "dir", "setattr", "delattr", "type", "object", "super",
        "classmethod", "staticmethod", "property", "memoryview", "copyright", "credits", "license",
    }
)  # fmt: skip

# Frame, code and generator internals: the road from any function to real builtins.
_INTROSPECTION = frozenset(
    {
        "gi_frame", "gi_code", "gi_yieldfrom", "gi_running", "gi_suspended",
        "cr_frame", "cr_code", "cr_await", "cr_origin", "cr_running", "cr_suspended",
        "ag_frame", "ag_code", "ag_await", "ag_running",
        "f_globals", "f_locals", "f_builtins", "f_back", "f_code", "f_trace", "f_lasti",
        "tb_frame", "tb_next", "tb_lasti", "co_code", "co_consts", "co_names",
        "func_globals", "func_code", "mro", "with_traceback",
    }
)  # fmt: skip

# Sub-packages that hold file, process or native access (pd.io, pd.compat, np.lib, np.ctypeslib
# ...). Module views refuse every unlisted sub-module at run time; naming them here gives the
# coder a clear message before anything runs.
_MODULE_ATTRS = frozenset(
    {
        "os", "sys", "io", "compat", "lib", "core", "ctypes", "ctypeslib", "testing", "f2py",
        "distutils", "subprocess", "builtins", "importlib", "signal", "socket", "shutil",
        "pathlib", "tempfile", "pickle", "marshal", "plotting", "config", "util", "api",
        "arrays", "internals", "tseries", "emath", "char", "rec", "ma", "polynomial",
    }
)  # fmt: skip

# File I/O and process-global state in pandas and numpy.
_IO_ATTRS = frozenset(
    {
        "to_csv", "to_excel", "to_parquet", "to_feather", "to_hdf", "to_pickle", "to_sql",
        "to_json", "to_html", "to_latex", "to_stata", "to_orc", "to_xml", "to_clipboard",
        "to_gbq", "to_markdown", "to_iceberg", "tofile", "dump", "dumps", "load", "loads",
        "save", "savez", "savez_compressed", "savetxt", "loadtxt", "genfromtxt", "fromfile",
        "fromregex", "memmap", "open_memmap", "DataSource", "ExcelWriter", "ExcelFile",
        "HDFStore", "set_option", "reset_option", "option_context", "options",
        "describe_option", "set_eng_float_format", "show_versions", "set_printoptions",
        "set_string_function", "seterrcall", "style",
    }
)  # fmt: skip

# Methods that take a *string expression*: allowed only as a direct call on a literal string
# that passes this same policy.
_EXPRESSION_METHODS = frozenset({"eval", "query"})
_EXPRESSION_DENIED_KWARGS = frozenset({"local_dict", "global_dict", "resolvers", "target"})

# Methods that resolve a *string function name* with getattr (df.agg("sum"), df.apply("mean")).
_NAME_TAKING_METHODS = frozenset({"apply", "agg", "aggregate", "transform", "pipe", "applymap"})
_STRING_DENIED = _IO_ATTRS | _EXPRESSION_METHODS | _NAME_TAKING_METHODS | DENIED_NAMES | {"getattr", "format"}

_DUNDER_STRING = re.compile(r"^_\w*$")
_BACKTICK = re.compile(r"`[^`]*`")
_AT_NAME = re.compile(r"@(?=[A-Za-z_])")

_ALLOWED_NODES: tuple[type[ast.AST], ...] = (
    ast.Module, ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.While, ast.If,
    ast.Try, ast.ExceptHandler, ast.FunctionDef, ast.Lambda, ast.Return, ast.Pass, ast.Break,
    ast.Continue, ast.Assert, ast.Delete, ast.Raise, ast.Import, ast.ImportFrom, ast.alias,
    ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Call, ast.keyword, ast.IfExp, ast.Dict,
    ast.Set, ast.List, ast.Tuple, ast.Subscript, ast.Slice, ast.Starred, ast.Name, ast.Constant,
    ast.Attribute, ast.JoinedStr, ast.FormattedValue, ast.NamedExpr, ast.ListComp, ast.SetComp,
    ast.DictComp, ast.GeneratorExp, ast.comprehension, ast.Yield, ast.arguments, ast.arg,
    ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop,
)  # fmt: skip

_NODE_NAMES = {
    ast.ClassDef: "class definitions",
    ast.AsyncFunctionDef: "async functions",
    ast.Await: "await",
    ast.AsyncFor: "async for",
    ast.AsyncWith: "async with",
    ast.With: "with blocks",
    ast.Global: "global statements",
    ast.Nonlocal: "nonlocal statements",
    ast.YieldFrom: "yield from",
    ast.Match: "match statements",
}


@dataclass(frozen=True)
class CodeRefused(Exception):
    """Code that breaks the sandbox policy (``kind="refused"``) or does not parse (``"syntax"``)."""

    reason: str
    line: int | None = None
    kind: str = "refused"

    def __str__(self) -> str:
        where = f" at line {self.line}" if self.line else ""
        label = "SyntaxError" if self.kind == "syntax" else "Refused"
        return f"{label}{where}: {self.reason}"


def attribute_problem(name: str) -> str | None:
    """Why ``obj.<name>`` is not allowed, or None. Shared by the AST check and the runtime getattr."""
    if name.startswith("_"):
        return f"attribute {name!r} is not allowed (no private or dunder attributes)"
    if name in _INTROSPECTION:
        return f"attribute {name!r} is not allowed (no frame, code or class introspection)"
    if name in _MODULE_ATTRS:
        return f"{name!r} is not available in the sandbox (no sub-modules beyond the allowed ones)"
    if name.startswith("read_") or name in _IO_ATTRS:
        return f"{name!r} is not allowed (no file I/O or global options; work on the DataFrames given)"
    return None


def check_code(code: str) -> None:
    """Raise :class:`CodeRefused` when ``code`` breaks the policy; return None when it may run."""
    parse_checked(code)


def parse_checked(code: str) -> ast.Module:
    """Parse ``code`` and check it; the tree is returned so that callers do not parse twice."""
    if not isinstance(code, str):
        raise CodeRefused("code must be a string")
    if len(code) > MAX_CODE_CHARS:
        raise CodeRefused(f"code is {len(code)} characters; the limit is {MAX_CODE_CHARS}")
    if "\x00" in code:
        raise CodeRefused("code contains a NUL character", kind="syntax")
    try:
        tree = ast.parse(code, filename="<sandbox>", mode="exec")
    except SyntaxError as exc:
        raise CodeRefused(_syntax_text(exc), exc.lineno, kind="syntax") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise CodeRefused(f"code cannot be parsed: {type(exc).__name__}", kind="syntax") from None
    _Checker().check(tree)
    return tree


def _syntax_text(exc: SyntaxError) -> str:
    text = (exc.text or "").strip()
    return f"{exc.msg}" + (f" -> {text[:120]}" if text else "")


class _Checker(ast.NodeVisitor):
    def check(self, tree: ast.AST) -> None:
        for count, _ in enumerate(ast.walk(tree)):
            if count >= MAX_NODES:
                raise CodeRefused(f"code has more than {MAX_NODES} syntax nodes")
        self.visit(tree)

    def refuse(self, node: ast.AST, reason: str) -> CodeRefused:
        return CodeRefused(reason, getattr(node, "lineno", None))

    def generic_visit(self, node: ast.AST) -> None:
        if not isinstance(node, _ALLOWED_NODES):
            what = _NODE_NAMES.get(type(node), type(node).__name__)
            raise self.refuse(node, f"{what} are not allowed in sandboxed code")
        super().generic_visit(node)

    # names -----------------------------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        self._check_identifier(node, node.id)
        if node.id in DENIED_NAMES:
            raise self.refuse(node, f"{node.id!r} is not allowed in sandboxed code")
        if node.id in {"getattr", "hasattr"}:
            raise self.refuse(node, f"{node.id}() may only be called directly with a literal attribute name")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._check_identifier(node, node.name)
        if node.decorator_list:
            raise self.refuse(node, "decorators are not allowed in sandboxed code")
        self.generic_visit(node)

    def visit_arg(self, node: ast.arg) -> None:
        self._check_identifier(node, node.arg)
        self.generic_visit(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self._check_identifier(node, node.name)
        self.generic_visit(node)

    def visit_keyword(self, node: ast.keyword) -> None:
        if node.arg is not None:
            self._check_identifier(node, node.arg)
        self.generic_visit(node)

    def _check_identifier(self, node: ast.AST, name: str) -> None:
        if name.startswith("__"):
            raise self.refuse(node, f"name {name!r} is not allowed (no dunder names)")

    # imports ---------------------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._check_module(node, alias.name)
            if alias.asname:
                self._check_identifier(node, alias.asname)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            raise self.refuse(node, "relative imports are not allowed")
        self._check_module(node, node.module or "")
        for alias in node.names:
            if alias.name == "*":
                raise self.refuse(node, "'import *' is not allowed")
            problem = attribute_problem(alias.name)
            if problem:
                raise self.refuse(node, problem)
            if alias.asname:
                self._check_identifier(node, alias.asname)

    def _check_module(self, node: ast.AST, module: str) -> None:
        if module not in _ALLOWED_IMPORT_PATHS:
            allowed = ", ".join(sorted(ALLOWED_MODULES))
            raise self.refuse(node, f"import of {module!r} is not allowed (allowed: {allowed})")

    # attributes and calls --------------------------------------------------------------------
    def visit_Attribute(self, node: ast.Attribute) -> None:
        problem = attribute_problem(node.attr)
        if problem:
            raise self.refuse(node, problem)
        if node.attr in _EXPRESSION_METHODS:
            raise self.refuse(node, f".{node.attr}() may only be called directly with a literal expression string")
        if node.attr == "format_map":
            raise self.refuse(node, "str.format_map() is not allowed; use an f-string")
        if node.attr == "format":
            raise self.refuse(node, "str.format() is allowed only on a literal string; or use an f-string")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id in {"getattr", "hasattr"}:
            self._check_getattr(node)
            self._visit_all(node.args + [k.value for k in node.keywords])
            return
        if isinstance(func, ast.Attribute) and func.attr in _EXPRESSION_METHODS:
            self._check_expression_call(node, func)
            return
        if isinstance(func, ast.Attribute) and func.attr == "format":
            self._check_format_call(node, func)
            return
        if isinstance(func, ast.Attribute) and func.attr in _NAME_TAKING_METHODS:
            self._check_function_names(node)
        self.generic_visit(node)

    def _visit_all(self, nodes: list[ast.expr]) -> None:
        for child in nodes:
            self.visit(child)

    def _check_getattr(self, node: ast.Call) -> None:
        name = node.func.id  # type: ignore[attr-defined]
        if node.keywords or len(node.args) not in (2, 3) or not _is_str(node.args[1]):
            raise self.refuse(node, f"{name}() needs a literal attribute name: {name}(obj, 'name')")
        problem = attribute_problem(node.args[1].value)  # type: ignore[attr-defined]
        if problem:
            raise self.refuse(node, problem)

    def _check_expression_call(self, node: ast.Call, func: ast.Attribute) -> None:
        expr = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "expr"), None)
        if expr is None or not _is_str(expr):
            raise self.refuse(node, f".{func.attr}() needs a literal expression string, e.g. df.query('a > 1')")
        for kw in node.keywords:
            if kw.arg in _EXPRESSION_DENIED_KWARGS or kw.arg is None:
                raise self.refuse(node, f".{func.attr}() does not accept {kw.arg or '**kwargs'!s} here")
        self._check_expression_text(node, expr.value)  # type: ignore[attr-defined]
        self.visit(func.value)
        self._visit_all([a for a in node.args[1:]] + [k.value for k in node.keywords if k.arg != "expr"])

    def _check_expression_text(self, node: ast.AST, text: str) -> None:
        """pandas parses these strings itself; we check them as Python with names for `@x` and `a b`."""
        plain = _AT_NAME.sub("", _BACKTICK.sub("backticked_column", text))
        try:
            inner = ast.parse(plain.strip(), mode="exec")
        except SyntaxError:
            raise self.refuse(node, f"the expression {text[:80]!r} does not parse") from None
        try:
            _Checker().check(inner)
        except CodeRefused as exc:
            raise self.refuse(node, f"in the expression {text[:80]!r}: {exc.reason}") from None

    def _check_format_call(self, node: ast.Call, func: ast.Attribute) -> None:
        if not _is_str(func.value):
            raise self.refuse(node, "str.format() is allowed only on a literal string; or use an f-string")
        try:
            names = _format_field_names(func.value.value)  # type: ignore[attr-defined]
        except ValueError:
            raise self.refuse(node, "the format string does not parse") from None
        if any("." in name or "[" in name for name in names):
            raise self.refuse(node, "format fields may not access attributes or items; use an f-string")
        self._visit_all(node.args + [k.value for k in node.keywords])

    def _check_function_names(self, node: ast.Call) -> None:
        """Strings given where pandas accepts a function *name* (df.agg("sum"), {"col": "mean"})."""
        for name in _literal_names(node.args + [k.value for k in node.keywords]):
            if name in _STRING_DENIED or attribute_problem(name):
                raise self.refuse(node, f"the function name {name!r} is not allowed here")

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and _DUNDER_STRING.match(node.value) and node.value.startswith("__"):
            raise self.refuse(node, f"the string {node.value!r} looks like a dunder name; not allowed")


def _format_field_names(template: str, depth: int = 0) -> list[str]:
    """Field names in a format template, including those nested in format specs ("{:{w}}")."""
    names: list[str] = []
    for _, field, spec, _ in string.Formatter().parse(template):
        if field is not None:
            names.append(field)
        if spec and "{" in spec and depth < 2:
            names.extend(_format_field_names(spec, depth + 1))
    return names


def _literal_names(nodes: list[ast.expr]) -> list[str]:
    """String constants in literal containers (not inside lambdas: those are data, not names);
    for dicts only the values, since keys are column names."""
    names: list[str] = []
    todo: list[ast.expr | None] = list(nodes)
    while todo:
        node = todo.pop()
        if _is_str(node):
            names.append(node.value)  # type: ignore[union-attr]
        elif isinstance(node, ast.List | ast.Tuple | ast.Set):
            todo.extend(node.elts)
        elif isinstance(node, ast.Dict):
            todo.extend(node.values)
    return names


def _is_str(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)
