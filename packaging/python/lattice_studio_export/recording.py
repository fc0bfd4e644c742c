"""Recorded inputs and activations: the archive's optional ``inputs.safetensors`` and
``activations.safetensors`` (fx-archive.md, top section).

The one-level graphs recorded for the archive are flattened into the *traced graph* exactly as
the C++ tracer flattens the archive (fx-archive.md "Tracing an archive", with its lattice leaf
policy: a module whose type or a base has a lattice lowering, compared by qualified name, or
torch.fx's own rule), so node names equal what ``lattice-cli trace`` prints, also where a
one-pass ``symbolic_trace`` would differ (a submodule doing arithmetic on a constant argument).
A ``torch.fx.Interpreter`` runs that graph on the example inputs under ``torch.no_grad()`` and
every node's value is copied to the CPU as soon as it is computed (a later in-place operation
cannot change it).

Names written:

* ``inputs.safetensors``: one value per example input, as the artifact runtime names its inputs
  (lattice-artifact-validation.md §10, lowering.md §6.1 step 8): a sparse input ``x`` as
  ``x_coords`` (int32, (n, 4), batch first, physical coordinates), ``x_features`` and
  ``x_active`` (int32, (1,), n); a dense input under its parameter name.
* ``activations.safetensors``: a tensor node under its name, a sparse value as ``NAME.coords``,
  ``NAME.features``, ``NAME.active``, a tuple or list item by index (``NAME.0``, ``NAME.1.coords``,
  ...). Placeholders, ``get_attr`` nodes and the ``output`` node are nodes too. None, numbers,
  shapes, strings and dicts are not stored.

Coordinates are written in physical units, as the artifact and its runtime use them: torch-lattice
keeps a SparseTensor of stride s in its own units (physical / s), so each spatial column is
multiplied by the tensor's stride (batch column unchanged). Both files carry ``{"producer",
"torch", "device", "coords": "physical"}`` as ``__metadata__``; a reader meeting a file without
``"coords"`` knows it was written before this rule (coordinates in each tensor's own units). Recording refuses a model
with a module in training mode: running it would update batch-norm statistics or draw dropout
masks, so the model would change and the values would not be what the artifact computes.
"""

import inspect
import itertools
import operator
import re

import torch
import torch.fx

from .errors import ExportError
from .options import is_sparse_tensor, sparse_stride
from .tracing import describe_path, has_lattice_lowering

INPUTS_FILE = "inputs.safetensors"
ACTIVATIONS_FILE = "activations.safetensors"

_INT32_MIN, _INT32_MAX = -(2 ** 31), 2 ** 31 - 1

# The ``__metadata__`` value of ``"coords"``: recorded coordinates are physical (see above).
COORDS_UNITS = "physical"


def safe_value_name(name):
    """lowering.md §5.6 ``_safe_value_name``: the stem of a sparse input's ABI names."""
    name = re.sub(r"[^0-9A-Za-z_]+", "_", name).strip("_")
    if not name:
        return "value"
    return "v_" + name if name[0].isdigit() else name


_TORCH_RULE = None


def _is_leaf(module, path):
    """The C++ LatticeTracer's default policy (fx-archive.md, last paragraph): a module whose type
    or a base has a lattice lowering, else torch.fx's rule; the root is never a leaf."""
    global _TORCH_RULE
    if _TORCH_RULE is None:
        _TORCH_RULE = torch.fx.Tracer()
    return path != "" and (has_lattice_lowering(type(module))
                           or torch.fx.Tracer.is_leaf_module(_TORCH_RULE, module, path))


def _join(base, relative):
    return "{}.{}".format(base, relative) if base and relative else base or relative


def _bind(module, path, graph, args, kwargs):
    """Placeholder node → value for a call of `module` (Python's binding, as the C++ tracer's
    ArgumentBinder does it): the bound argument, else the placeholder's default, else the
    forward signature's default; *args and **kwargs get a tuple and a dict."""
    signature = inspect.signature(module.forward)
    try:
        bound = signature.bind_partial(*args, **kwargs).arguments
    except TypeError as error:
        raise ExportError("record_activations: {}: {}".format(describe_path(path), error)) from error
    values = {}
    for node in graph.nodes:
        if node.op != "placeholder":
            continue
        name = node.target.lstrip("*")
        parameter = signature.parameters.get(name)
        if name in bound:
            values[node] = bound[name]
        elif parameter is not None and parameter.kind == inspect.Parameter.VAR_POSITIONAL:
            values[node] = ()
        elif parameter is not None and parameter.kind == inspect.Parameter.VAR_KEYWORD:
            values[node] = {}
        elif node.args:
            values[node] = node.args[0]
        elif parameter is not None and parameter.default is not inspect.Parameter.empty:
            values[node] = parameter.default
        else:
            raise ExportError("record_activations: {} is missing required argument '{}'".format(
                describe_path(path), name))
    return values


def _fold_getitem(container, index, path, node):
    """Python indexing of a literal container (an inlined module's tuple, list or dict result);
    None when the receiver is a node."""
    if isinstance(container, (tuple, list)) and isinstance(index, int) and not isinstance(index, bool):
        if not -len(container) <= index < len(container):
            raise ExportError("record_activations: {} node '{}': index {} out of range".format(
                describe_path(path), node.name, index))
        return (container[index],)
    if isinstance(container, dict) and isinstance(index, str):
        if index not in container:
            raise ExportError("record_activations: {} node '{}': key '{}' not in the dict".format(
                describe_path(path), node.name, index))
        return (container[index],)
    return None


def flat_graph(model, graphs):
    """The traced graph of fx-archive.md "Tracing an archive", built as the C++ tracer builds it:
    from `graphs` (path → the one-level torch.fx graph recorded for that module), leaf modules
    kept as call_module nodes with full paths, other modules inlined, get_attr targets re-rooted,
    getitem on a literal container folded, and every node named by torch.fx's namespace in
    emission order (so the names are the ones ``lattice-cli trace`` prints)."""
    out = torch.fx.Graph()
    active = []

    def emit(path, module, env):
        graph = graphs.get(path)
        if graph is None:
            raise ExportError("record_activations: {} ({}) is traced through but has no recorded "
                              "graph".format(describe_path(path), type(module).__qualname__))
        if path in active:
            raise ExportError("record_activations: recursive call of {}".format(describe_path(path)))
        active.append(path)

        def remap(value):
            return torch.fx.node.map_arg(value, lambda node: env[node])

        for node in graph.nodes:
            if node.op == "placeholder":
                if path == "":
                    env[node] = out.create_node("placeholder", node.target, args=node.args)
            elif node.op == "get_attr":
                env[node] = out.get_attr(_join(path, node.target))
            elif node.op == "call_function":
                args, kwargs = remap(node.args), remap(node.kwargs)
                folded = None
                if node.target is operator.getitem and len(args) == 2 and not kwargs:
                    folded = _fold_getitem(args[0], args[1], path, node)
                env[node] = folded[0] if folded else out.call_function(node.target, args, kwargs)
            elif node.op == "call_method":
                env[node] = out.call_method(node.target, remap(node.args), remap(node.kwargs))
            elif node.op == "call_module":
                child_path = _join(path, node.target)
                child = model.get_submodule(child_path)
                args, kwargs = remap(node.args), remap(node.kwargs)
                if _is_leaf(child, child_path):
                    env[node] = out.call_module(child_path, args, kwargs)
                else:
                    child_graph = graphs.get(child_path)
                    child_env = _bind(child, child_path, child_graph, args, kwargs) if child_graph else {}
                    env[node] = emit(child_path, child, child_env)
            elif node.op == "output":
                active.pop()
                result = remap(node.args[0]) if node.args else None
                if path == "":
                    out.output(result)
                return result
        raise ExportError("record_activations: {} graph has no output node".format(describe_path(path)))

    emit("", model, {})
    return out


def _first_line(error):
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _check_eval_mode(model):
    for path, module in model.named_modules():
        if module.training:
            raise ExportError("record_activations: {} ({}) is in training mode; call model.eval() "
                              "first (recording runs the model once and must not update it)".format(
                                  describe_path(path), type(module).__qualname__))


def _device(model, values):
    """Where the model ran: its first parameter's or buffer's device, else the first input's."""
    for tensor in itertools.chain(model.parameters(), model.buffers()):
        return tensor.device.type
    for value in values:
        if isinstance(value, torch.Tensor):
            return value.device.type
        if is_sparse_tensor(value):
            return _features(value).device.type
    return "cpu"


def _features(sparse):
    return sparse.feats if hasattr(sparse, "feats") else sparse.features


def _snapshot(tensor, where):
    if tensor.layout != torch.strided or tensor.is_quantized or tensor.is_complex():
        raise ExportError("{}: a {}{} tensor cannot be written to safetensors".format(
            where, tensor.dtype, "" if tensor.layout == torch.strided else " " + str(tensor.layout)))
    if tensor.device.type == "meta":
        raise ExportError("{}: the tensor is on the 'meta' device and has no data".format(where))
    return tensor.detach().to("cpu", copy=True).contiguous()


def _coords(sparse, where):
    """The SparseTensor's coords in physical units (each spatial column times the stride), int32."""
    coords = sparse.coords
    if not isinstance(coords, torch.Tensor) or coords.dim() != 2 or coords.shape[1] != 4:
        raise ExportError("{}: sparse coords must be an (n, 4) tensor (batch, x, y, z), got {}".format(
            where, tuple(coords.shape) if isinstance(coords, torch.Tensor) else type(coords).__qualname__))
    if coords.dtype.is_floating_point or coords.dtype == torch.bool or coords.is_complex():
        raise ExportError("{}: sparse coords must be integers, got {}".format(where, coords.dtype))
    stride = sparse_stride(sparse, where)
    coords = _snapshot(coords, where).to(torch.int64)
    coords[:, 1:] *= torch.tensor(stride, dtype=torch.int64)
    if coords.numel() and (int(coords.min()) < _INT32_MIN or int(coords.max()) > _INT32_MAX):
        raise ExportError("{}: sparse coords (physical: times the stride {}) do not fit in int32".format(
            where, tuple(stride)))
    return coords.to(torch.int32)


def _sparse_parts(sparse, where):
    """(coords i32 (n, 4), features, active i32 [n]) of a SparseTensor."""
    coords = _coords(sparse, where)
    features = _features(sparse)
    if not isinstance(features, torch.Tensor):
        raise ExportError("{}: sparse features are {}, not a tensor".format(where, type(features).__qualname__))
    return coords, _snapshot(features, where), torch.tensor([coords.shape[0]], dtype=torch.int32)


def store_value(name, value, out):
    """Adds `value` (a node's result) to `out` under `name` by the naming rules above."""
    if isinstance(value, torch.Tensor):
        out[name] = _snapshot(value, "record_activations: node value '{}'".format(name))
    elif is_sparse_tensor(value):
        parts = _sparse_parts(value, "record_activations: node value '{}'".format(name))
        for suffix, tensor in zip(("coords", "features", "active"), parts):
            out["{}.{}".format(name, suffix)] = tensor
    elif isinstance(value, (tuple, list)):
        for index, item in enumerate(value):
            store_value("{}.{}".format(name, index), item, out)


def example_values(example_inputs):
    """(positional values, keyword values) of `example_inputs` as example_input_specs reads them."""
    if isinstance(example_inputs, dict):
        return [], dict(example_inputs)
    if isinstance(example_inputs, torch.Tensor) or is_sparse_tensor(example_inputs):
        return [example_inputs], {}
    return list(example_inputs), {}


def input_tensors(example_inputs, specs):
    """inputs.safetensors: each example input under its artifact runtime name."""
    positional, keyword = example_values(example_inputs)
    values = keyword if keyword else dict(zip([spec["name"] for spec in specs], positional))
    out = {}
    for spec in specs:
        value = values[spec["name"]]
        if spec["kind"] == "sparse":
            stem = safe_value_name(spec["name"])
            parts = _sparse_parts(value, "example input '{}'".format(spec["name"]))
            for suffix, tensor in zip(("coords", "features", "active"), parts):
                out["{}_{}".format(stem, suffix)] = tensor
        else:
            out[spec["name"]] = _snapshot(value, "example input '{}'".format(spec["name"]))
    return out


def _placeholder_values(graph, example_inputs):
    """The value of every placeholder of the flat graph: the example input, else the default."""
    positional, keyword = example_values(example_inputs)
    values = []
    for node in graph.nodes:
        if node.op != "placeholder":
            continue
        if node.target.startswith("*"):
            raise ExportError("record_activations: the root forward's variadic parameter '{}' cannot be "
                              "recorded; give the model named parameters".format(node.target))
        name = node.target
        if positional:
            values.append(positional.pop(0))
        elif name in keyword:
            values.append(keyword.pop(name))
        elif node.args:
            values.append(node.args[0])
        else:
            raise ExportError("record_activations: example_inputs has no value for parameter '{}' of "
                              "the root forward, which has no default; pass it in example_inputs".format(name))
    return values


class _Recorder(torch.fx.Interpreter):
    """Stores each node's value as it is computed. A failing node is remembered here because
    Interpreter.run appends "While executing ..." lines to the exception it re-raises."""

    def __init__(self, module, activations):
        super().__init__(module)
        self.activations = activations
        self.failure = None

    def run_node(self, node):
        try:
            result = super().run_node(node)
        except Exception as error:  # noqa: BLE001 - the user's model; reported in one line by record()
            if self.failure is None:
                target = node.target if isinstance(node.target, str) else getattr(node.target, "__name__", node.target)
                self.failure = "record_activations: running node '{}' ({} {}) failed: {}: {}".format(
                    node.name, node.op, target, type(error).__name__, _first_line(error))
            raise
        try:
            store_value(node.name, result, self.activations)
        except ExportError as error:
            self.failure = str(error)
            raise
        return result


def record(model, example_inputs, specs, graphs, producer):
    """(inputs tensors, activations tensors, metadata) for `model` run once on `example_inputs`
    (checked by example_input_specs into `specs`) over the flat graph built from `graphs` (path →
    one-level torch.fx graph, as build_document recorded them); raises ExportError when it cannot
    run."""
    _check_eval_mode(model)
    positional, keyword = example_values(example_inputs)
    module = torch.fx.GraphModule(model, flat_graph(model, graphs))
    args = _placeholder_values(module.graph, example_inputs)
    activations = {}
    recorder = _Recorder(module, activations)
    try:
        with torch.no_grad():
            recorder.run(*args)
    except Exception as error:  # noqa: BLE001
        if recorder.failure is None:
            raise ExportError("record_activations: running the model failed: {}: {}".format(
                type(error).__name__, _first_line(error))) from error
        raise ExportError(recorder.failure) from error
    metadata = {"producer": producer, "torch": str(torch.__version__),
                "device": _device(model, positional + list(keyword.values())), "coords": COORDS_UNITS}
    return input_tensors(example_inputs, specs), activations, metadata
