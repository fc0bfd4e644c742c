"""One-level tracing of a module's own forward, and the leaf policies that decide which modules
get a recorded graph.

Every module that is not a library leaf is traced with a torch.fx tracer whose
``is_leaf_module`` says True for every submodule, so each child call stays one ``call_module``
node (fx-archive.md "Module record", ``graph``). Two policies decide what a library leaf is:

* plain torch.fx: ``torch.fx.Tracer.is_leaf_module`` (``torch.nn``/``torch.ao.nn`` modules other
  than ``Sequential``), tracing with torch.fx's default autowrap set;
* torch_lattice, when it is importable (lowering.md §1.1, §1.2): instances of the documented
  supported module types are leaves too, and tracing wraps torch_lattice's documented autowrap
  modules and functions so those calls stay ``call_function`` nodes.

The torch_lattice path only looks names up from the documented lists below; it does not use
torch_lattice's own tracer class. Deliberately not here: encoding graphs (records.py).
"""

import importlib
import importlib.util
import math
import sys

import torch
import torch.fx

from .compat import torch_fx_compat
from .errors import ExportError

# lowering.md §1.2 (b): the modules whose public callables torch_lattice's tracer wraps.
LATTICE_AUTOWRAP_MODULES = ("torch_lattice", "torch_lattice.operators", "torch_lattice.nn.functional")

# lowering.md §1.2 (a): the explicitly wrapped functions (module, attribute).
LATTICE_AUTOWRAP_FUNCTIONS = (
    ("torch_lattice", "cat"), ("operator", "add"), ("torch", "add"),
    ("torch_lattice", "generative_add"), ("torch_lattice", "sparse_add"),
    ("operator", "sub"), ("torch", "sub"), ("torch_lattice", "sparse_sub"),
    ("operator", "mul"), ("torch", "mul"), ("torch_lattice", "sparse_mul"),
    ("torch", "maximum"), ("torch_lattice", "sparse_maximum"),
    ("torch", "minimum"), ("torch_lattice", "sparse_minimum"),
    ("torch_lattice", "voxelize"), ("torch_lattice", "devoxelize"),
    ("torch_lattice", "reindex_sparse"),
)

# lowering.md §1.1: SUPPORTED_MODULE_TYPES, fully qualified, in registry order. Classes that
# the installed versions do not define (torch.nn.RMSNorm before torch 2.4) are skipped.
LATTICE_SUPPORTED_MODULE_TYPES = tuple(
    ["torch_lattice.nn.modules.conv." + name for name in (
        "Conv3d", "SubmConv3d", "NormalizedSubmConv3d", "ConvTranspose3d",
        "NormalizedConvTranspose3d", "GenerativeConvTranspose3d",
        "NormalizedGenerativeConvTranspose3d")]
    + ["torch_lattice.nn.modules.pooling." + name for name in (
        "Pool3d", "PoolTranspose3d", "TrilinearUpsample3d")]
    + ["torch_lattice.nn.modules.norm.BatchNorm", "torch_lattice.nn.modules.norm.LayerNorm",
       "torch.nn.modules.normalization.LayerNorm", "torch_lattice.nn.modules.norm.RMSNorm",
       "torch.nn.modules.normalization.RMSNorm"]
    + [prefix + name for name in ("ReLU", "LeakyReLU", "SiLU", "GELU", "Sigmoid", "Tanh", "Softplus")
       for prefix in ("torch_lattice.nn.modules.activation.", "torch.nn.modules.activation.")]
    + ["torch_lattice.nn.modules.pooling." + name for name in (
        "GlobalAvgPool", "GlobalMaxPool", "GlobalSumPool")]
    + ["torch.nn.modules.linear.Linear", "torch.nn.modules.dropout.Dropout",
       "torch.nn.modules.flatten.Flatten", "torch.nn.modules.linear.Identity",
       "torch_lattice.nn.modules.norm.InstanceNorm", "torch_lattice.nn.modules.norm.GroupNorm",
       "torch_lattice.nn.modules.crop.SparseCrop"])


_LATTICE_SUPPORTED = frozenset(LATTICE_SUPPORTED_MODULE_TYPES)


def has_lattice_lowering(cls):
    """True when the class or a base up to torch.nn.Module is a supported type, compared by
    fully qualified name (``module.qualname``) as the C++ lattice tracer compares model.json's
    ``type`` and ``bases``, so it holds whether or not torch_lattice is installed."""
    for base in cls.__mro__:
        if "{}.{}".format(base.__module__, base.__qualname__) in _LATTICE_SUPPORTED:
            return True
        if base is torch.nn.Module:
            break
    return False


def describe_path(path):
    """``the root module`` or ``module 'a.b'`` for messages."""
    return "the root module" if path == "" else "module '{}'".format(path)


class LeafPolicy:
    """Which modules are library leaves (no recorded graph) and what tracing wraps."""

    def __init__(self, name, autowrap_modules=(math,), autowrap_functions=(), leaf_types=()):
        self.name = name
        self.autowrap_modules = tuple(autowrap_modules)
        self.autowrap_functions = tuple(autowrap_functions)
        self.leaf_types = tuple(leaf_types)
        self._torch_rule = torch.fx.Tracer()

    def is_library_leaf(self, module, qualified_name):
        if self.leaf_types and isinstance(module, self.leaf_types):
            return True
        return torch.fx.Tracer.is_leaf_module(self._torch_rule, module, qualified_name)


def torch_policy():
    """torch.fx's own leaf rule and autowrap defaults."""
    return LeafPolicy("torch.fx")


def _resolve(qualified):
    module_name, _, attribute = qualified.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    return getattr(module, attribute, None)


def lattice_policy():
    """torch_lattice's documented leaf types and autowrap set; ExportError if it cannot import."""
    modules = []
    for name in LATTICE_AUTOWRAP_MODULES:
        try:
            modules.append(importlib.import_module(name))
        except Exception as error:  # noqa: BLE001 - any import failure is reported the same way
            raise ExportError("torch_lattice is installed but '{}' cannot be imported: {}: {}".format(
                name, type(error).__name__, _first_line(error))) from error
    functions = []
    for module_name, attribute in LATTICE_AUTOWRAP_FUNCTIONS:
        function = getattr(importlib.import_module(module_name), attribute, None)
        if function is not None and function not in functions:
            functions.append(function)
    leaf_types = []
    for qualified in LATTICE_SUPPORTED_MODULE_TYPES:
        cls = _resolve(qualified)
        if isinstance(cls, type) and issubclass(cls, torch.nn.Module) and cls not in leaf_types:
            leaf_types.append(cls)
    return LeafPolicy("torch_lattice", modules, functions, leaf_types)


def select_policy(use_torch_lattice=None):
    """None: torch_lattice's policy when it is installed, else torch.fx's; True requires it."""
    if use_torch_lattice is False:
        return torch_policy()
    try:
        available = "torch_lattice" in sys.modules or importlib.util.find_spec("torch_lattice") is not None
    except (ImportError, ValueError):
        available = False
    if not available:
        if use_torch_lattice:
            raise ExportError("use_torch_lattice=True but torch_lattice is not importable")
        return torch_policy()
    return lattice_policy()


def _first_line(error):
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def forward_is_implemented(module):
    return getattr(type(module), "forward", None) is not torch.nn.Module.forward


class _OneLevelTracer(torch.fx.Tracer):
    """Records the root's own forward; every submodule call stays a call_module node."""

    def is_leaf_module(self, module, qualified_name):
        return True


def trace_one_level(module, path, policy):
    """The torch.fx graph of `module`'s own forward with every submodule a leaf.

    Attributes torch.fx adds to the module while tracing (tensor constants) are removed again.
    Any tracing failure becomes an ExportError naming the module."""
    tracer = _OneLevelTracer(autowrap_modules=policy.autowrap_modules,
                             autowrap_functions=policy.autowrap_functions)
    before = set(vars(module))
    try:
        with torch_fx_compat():
            return tracer.trace(module)
    except ExportError:
        raise
    except Exception as error:  # noqa: BLE001 - torch.fx raises many types; report them all
        raise ExportError("{}: tracing forward ({}) failed: {}: {}".format(
            describe_path(path), type(module).__qualname__, type(error).__name__,
            _first_line(error))) from error
    finally:
        for name in set(vars(module)) - before:
            delattr(module, name)
