"""Module records of model.json (fx-archive.md "Module record" and "Node"): type and bases,
public attributes, parameter and buffer records keyed by state_dict key, children, forward
signature, and the JSON encoding of a one-level graph. Tracing itself is in tracing.py.
"""

import inspect

import torch

from .errors import ExportError
from .safetensors import safetensors_dtype
from .tracing import describe_path
from .values import canonical_function_name, encode_value, is_plain

MODULE_BASE = torch.nn.Module


def qualified_type(cls):
    """``module + "." + qualname`` of a class."""
    return "{}.{}".format(cls.__module__, cls.__qualname__)


def base_names(cls):
    """The MRO after `cls`, up to and including torch.nn.Module."""
    names = []
    for base in cls.__mro__[1:]:
        names.append(qualified_type(base))
        if base is MODULE_BASE:
            return names
    raise ExportError("class {} is not a torch.nn.Module".format(qualified_type(cls)))


def walk_modules(root):
    """(path, module) for the root and every submodule, parents first, children in
    registration order. A module registered under two paths is listed under both."""
    stack = [("", root)]
    while stack:
        path, module = stack.pop()
        yield path, module
        children = [(name, child) for name, child in module._modules.items() if child is not None]
        for name, child in reversed(children):
            stack.append(((path + "." + name) if path else name, child))


def child_names(module):
    return [name for name, child in module._modules.items() if child is not None]


def attributes(module, path):
    """The instance's public attributes whose values are plain (is_plain), in definition order."""
    out = {}
    for name, value in vars(module).items():
        if name.startswith("_") or name == "training" or not is_plain(value):
            continue
        out[name] = encode_value(value, "{}: attribute '{}'".format(describe_path(path), name),
                                 allow_nodes=False)
    return out


def tensor_slots(slots, path, kind, tensors):
    """Records for `slots` (a module's _parameters or _buffers); adds each tensor to `tensors`
    under its state_dict key."""
    out = {}
    for name, tensor in slots.items():
        if tensor is None:
            out[name] = None
            continue
        key = (path + "." + name) if path else name
        where = "{}: {} '{}' (key '{}')".format(describe_path(path), kind, name, key)
        if not isinstance(tensor, torch.Tensor):
            raise ExportError("{}: expected a tensor, got {}".format(where, type(tensor).__qualname__))
        out[name] = {"key": key, "dtype": safetensors_dtype(tensor.dtype, where), "shape": list(tensor.shape)}
        tensors[key] = tensor
    return out


_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: "positional_only",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional_or_keyword",
    inspect.Parameter.VAR_POSITIONAL: "var_positional",
    inspect.Parameter.KEYWORD_ONLY: "keyword_only",
    inspect.Parameter.VAR_KEYWORD: "var_keyword",
}


def signature(module, path):
    """forward's parameters as signature records; ExportError for a default with no encoding."""
    where = "{}: forward signature".format(describe_path(path))
    try:
        parameters = inspect.signature(module.forward).parameters.values()
    except (TypeError, ValueError) as error:
        raise ExportError("{}: cannot be read: {}".format(where, error)) from error
    records = []
    for parameter in parameters:
        record = {"name": parameter.name, "kind": _KINDS[parameter.kind]}
        if parameter.default is not inspect.Parameter.empty:
            record["default"] = encode_value(
                parameter.default, "{}: parameter '{}': default".format(where, parameter.name),
                allow_nodes=False)
        records.append(record)
    return records


def _check_get_attr(module, path, node):
    """A get_attr target must name a registered parameter, buffer or submodule."""
    owner_path, _, name = node.target.rpartition(".")
    try:
        owner = module.get_submodule(owner_path) if owner_path else module
    except AttributeError:
        owner = None
    if owner is not None and (name in owner._parameters or name in owner._buffers or name in owner._modules):
        return
    where = "{}: node '{}'".format(describe_path(path), node.name)
    if name.startswith("_tensor_constant"):
        raise ExportError("{}: forward uses a tensor constant (a tensor created or stored outside "
                          "the module's parameters and buffers); register it with "
                          "register_buffer".format(where))
    raise ExportError("{}: get_attr target '{}' is not a registered parameter, buffer or "
                      "submodule (register tensors with register_buffer)".format(where, node.target))


def encode_graph(graph, module, path):
    """{"nodes": [...]} for a traced graph of `module`."""
    nodes = []
    for node in graph.nodes:
        where = "{}: node '{}'".format(describe_path(path), node.name)
        if node.op == "call_function":
            target = canonical_function_name(node.target)
        elif isinstance(node.target, str):
            target = node.target
        else:
            raise ExportError("{}: {} target {!r} is not a string".format(where, node.op, node.target))
        if node.op == "get_attr":
            _check_get_attr(module, path, node)
        args = [encode_value(arg, "{}: args[{}]".format(where, i)) for i, arg in enumerate(node.args)]
        kwargs = {}
        for key, value in node.kwargs.items():
            kwargs[key] = encode_value(value, "{}: kwargs['{}']".format(where, key))
        nodes.append({"name": node.name, "op": node.op, "target": target, "args": args, "kwargs": kwargs})
    return {"nodes": nodes}


def module_record(module, path, tensors):
    """The record of `module` without graph and signature (added by the caller)."""
    cls = type(module)
    return {
        "path": path,
        "type": qualified_type(cls),
        "bases": base_names(cls),
        "training": bool(module.training),
        "attributes": attributes(module, path),
        "parameters": tensor_slots(module._parameters, path, "parameter", tensors),
        "buffers": tensor_slots(module._buffers, path, "buffer", tensors),
        "children": child_names(module),
    }


def called_modules(graph_record, path):
    """Full paths of the modules a recorded graph calls."""
    prefix = (path + ".") if path else ""
    return [prefix + node["target"] for node in graph_record["nodes"] if node["op"] == "call_module"]
