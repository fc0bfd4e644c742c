"""The archive's value encoding (fx-archive.md "Values") and canonical function names.

Arguments, defaults and attributes become JSON that the C++ reader decodes back into the same
Python-like value: ints stay integer literals, floats are written by ``json`` with a ``.`` or an
exponent (``1.0``, ``1e-05``), non-finite floats become ``{"float": "inf"}``, tuples, dicts,
slices, dtypes and devices get their tagged objects. A value with no encoding raises
:class:`ExportError` naming where it was found; the only opaque ``{"repr": ...}`` values written
are the few torch constants that torch.fx itself prints by their repr (``Ellipsis``, memory
formats, layouts).
"""

import builtins
import math
import numbers

import torch
import torch.fx

from .errors import ExportError

_INT64_MIN = -(2 ** 63)
_INT64_MAX = 2 ** 63 - 1

SUPPORTED_TYPES = ("None, bool, int, float, str, list, tuple, dict with str keys, slice, "
                   "torch.dtype, torch.device and graph values")


def _describe(value):
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return "{} of type '{}'".format(text, type(value).__qualname__)


def _float(value):
    value = float(value)
    if math.isnan(value):
        return {"float": "nan"}
    if math.isinf(value):
        return {"float": "inf" if value > 0 else "-inf"}
    return value


def _int(value, where):
    value = int(value)
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ExportError("{}: integer {} does not fit in 64 bits".format(where, value))
    return value


def _opaque(value):
    """Torch constants that torch.fx prints by their repr; None when `value` is not one."""
    if value is Ellipsis:
        return {"repr": "Ellipsis"}
    if isinstance(value, (torch.memory_format, torch.layout)):
        return {"repr": repr(value)}
    return None


def encode_value(value, where, allow_nodes=True):
    """Encodes one argument, default or attribute value; raises ExportError when it has no
    encoding. `where` names the location for messages; `allow_nodes` is False outside graphs."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, torch.fx.Node):
        if not allow_nodes:
            raise ExportError("{}: a graph node cannot appear here".format(where))
        return {"node": value.name}
    if isinstance(value, numbers.Integral):
        return _int(value, where)
    if isinstance(value, numbers.Real):
        return _float(value)
    if isinstance(value, tuple):
        return {"tuple": [encode_value(item, "{}[{}]".format(where, i), allow_nodes)
                          for i, item in enumerate(value)]}
    if isinstance(value, list):
        return [encode_value(item, "{}[{}]".format(where, i), allow_nodes)
                for i, item in enumerate(value)]
    if isinstance(value, dict):
        items = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ExportError("{}: dict key {} is not a string (only dicts with str keys "
                                  "can be encoded)".format(where, _describe(key)))
            items[key] = encode_value(item, "{}[{!r}]".format(where, key), allow_nodes)
        return {"dict": items}
    if isinstance(value, slice):
        return {"slice": [encode_value(part, "{}.{}".format(where, name), allow_nodes)
                          for name, part in (("start", value.start), ("stop", value.stop),
                                             ("step", value.step))]}
    if isinstance(value, torch.dtype):
        return {"dtype": str(value).replace("torch.", "", 1)}
    if isinstance(value, torch.device):
        return {"device": str(value)}
    opaque = _opaque(value)
    if opaque is not None:
        return opaque
    if isinstance(value, torch.Tensor):
        raise ExportError("{}: a tensor constant cannot be encoded (register it as a buffer or "
                          "a parameter of the module, or compute it from the inputs)".format(where))
    raise ExportError("{}: unsupported value {} (supported: {})".format(
        where, _describe(value), SUPPORTED_TYPES))


def is_plain(value):
    """True for the attribute values a module record keeps (fx-archive.md "Module record"):
    None, bools, ints, floats, strings, and tuples and lists of those."""
    if value is None or isinstance(value, (bool, str)):
        return True
    if isinstance(value, numbers.Integral):
        return _INT64_MIN <= int(value) <= _INT64_MAX
    if isinstance(value, numbers.Real):
        return True
    if isinstance(value, (tuple, list)):
        return all(is_plain(item) for item in value)
    return False


def canonical_function_name(function):
    """The archive name of a call_function target: ``module.qualname`` of the defining function,
    ``_operator`` written ``operator`` and builtins as ``builtins.NAME`` (torch.fx's printed
    target: ``operator.add``, ``torch.add``, ``builtins.getattr``)."""
    name = getattr(function, "__name__", None)
    if name is None:
        raise ExportError("call_function target {} has no __name__".format(_describe(function)))
    if getattr(builtins, name, None) is function:
        return "builtins." + name
    module = getattr(function, "__module__", None)
    if module == "_operator":
        return "operator." + name
    try:
        # torch.fx's own rule finds the module of torch's C functions (torch.add has none).
        qualified = torch.fx.node._get_qualified_name(function)
    except Exception:  # noqa: BLE001 - fall back to the plain attributes below
        qualified = None
    if qualified:
        if qualified.startswith("_operator."):
            qualified = "operator." + qualified[len("_operator."):]
        return qualified
    if module is None:
        raise ExportError("call_function target {} has no __module__".format(_describe(function)))
    return "{}.{}".format(module, getattr(function, "__qualname__", name))
