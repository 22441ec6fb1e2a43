"""The keyword aliases and out= of every function in the API table (ir/api_functions.def, as _C._api_table()).

The C++ rows are registered with the table's argument names (bindings/api_table.h); install() puts a shim
(_C._api_alias, one vectorcall when no keyword is given) over every torch.* function, Tensor method and in-place
method of every row, so that the aliases PyTorch's argument parser takes (axis for dim, keepdims for keepdim,
x / a / x1 for input, x2 for other), out= and the keyword form of a *args method (x.reshape(shape=...)) work
on every form at once.
"""
from . import _C
from ._out import _write_out

# PyTorch's numpy-compatible argument names (torch/csrc/utils/python_arg_parser.cpp).
NUMPY_ALIASES = {"dim": ["axis"], "keepdim": ["keepdims"], "input": ["x", "a", "x1"], "other": ["x2"]}


def table():
    """The rows of the API table, as dicts (name, functions, first, methods, inplace, numpy, out, python,
    varargs, args: [{name, default, kwonly}])."""
    return _C._api_table()


def argument_names(row, form):
    """The argument names of a row's form ("function", "method" or "inplace"), self / first included for a
    function."""
    names = [a["name"] for a in row["args"]]
    return ([row["first"]] if form == "function" else []) + names


def aliases(row, form):
    """{alias: name} for a row's form."""
    if not row["numpy"]:
        return {}
    return {alias: name for name in argument_names(row, form) for alias in NUMPY_ALIASES.get(name, [])}


def exported_functions():
    """The torch.* functions of the C++ rows (registered on _C)."""
    return [n for row in table() if not row["python"] for n in row["functions"]]


def install(namespace):
    """The shims over the torch.* functions in `namespace` (the lazytensor module's globals) and the Tensor
    methods of every row."""
    T = _C.Tensor
    for row in table():
        varargs = row["args"][0]["name"] if row["varargs"] else None
        for name in row["functions"]:
            namespace[name] = _C._api_alias(namespace[name], aliases(row, "function"), "out" if row["out"] else None,
                                            None, _write_out, name, False)
        for form, key in (("method", "methods"), ("inplace", "inplace")):
            for name in row[key]:
                fn = getattr(T, name)
                setattr(T, name, _C._api_alias(fn, aliases(row, form), None, varargs if form == "method" else None,
                                               None, name, True))
