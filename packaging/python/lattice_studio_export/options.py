"""``example_inputs`` specs and ``lowering`` hints of model.json (fx-archive.md "Input specs and
lowering hints"), checked here so a wrong option fails at export time, not in the studio.

Example inputs are real values: a ``torch.Tensor`` becomes a dense spec from its dtype and
shape; a torch-lattice ``SparseTensor`` (recognised by duck typing: ``.coords``, ``.feats`` or
``.features``, and ``.stride``) becomes a sparse spec.
"""

import numbers

import torch

from .errors import ExportError

_DENSE_DTYPES = {torch.float32: "f32", torch.float16: "f16", torch.int32: "i32", torch.int64: "i64"}
_SPARSE_DTYPES = {torch.float32: "f32", torch.float16: "f16"}
_POSITIONAL = ("positional_only", "positional_or_keyword")


def is_sparse_tensor(value):
    return (hasattr(value, "coords") and hasattr(value, "stride")
            and (hasattr(value, "feats") or hasattr(value, "features")))


def sparse_stride(sparse, where):
    """A SparseTensor's stride as a list of three positive ints (an int: the same on every axis)."""
    stride = sparse.stride() if callable(sparse.stride) else sparse.stride
    return _stride(stride, where)


def _stride(value, where):
    if isinstance(value, torch.Tensor):
        value = value.tolist()
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = [value] * 3
    if not isinstance(value, (tuple, list)) or len(value) != 3 or not all(
            isinstance(s, numbers.Integral) and not isinstance(s, bool) and s >= 1 for s in value):
        raise ExportError("{}: stride must be a positive int or 3 positive ints, got {!r}".format(where, value))
    return [int(s) for s in value]


def input_spec(name, value, where):
    """One input spec from an example value."""
    if is_sparse_tensor(value):
        feats = value.feats if hasattr(value, "feats") else value.features
        if not isinstance(feats, torch.Tensor):
            raise ExportError("{}: sparse tensor features are {}, not a tensor".format(where, type(feats).__qualname__))
        dtype = _SPARSE_DTYPES.get(feats.dtype)
        if dtype is None:
            raise ExportError("{}: sparse features must be float32 or float16, got {}".format(where, feats.dtype))
        return {"name": name, "kind": "sparse", "dtype": dtype,
                "channels": int(feats.shape[-1]) if feats.dim() == 2 else None,
                "stride": sparse_stride(value, where)}
    if isinstance(value, torch.Tensor):
        dtype = _DENSE_DTYPES.get(value.dtype)
        if dtype is None:
            raise ExportError("{}: dense inputs must be float32, float16, int32 or int64, got {}".format(
                where, value.dtype))
        return {"name": name, "kind": "dense", "dtype": dtype, "shape": [int(d) for d in value.shape]}
    raise ExportError("{}: expected a torch.Tensor or a SparseTensor (with .coords, .feats and "
                      ".stride), got {}".format(where, type(value).__qualname__))


def example_input_specs(example_inputs, root_signature):
    """Specs for `example_inputs`: one value (the first parameter), a sequence (the positional
    parameters in order), or a dict parameter name → value."""
    names = [p["name"] for p in root_signature]
    if isinstance(example_inputs, dict):
        specs = []
        for name, value in example_inputs.items():
            if name not in names:
                raise ExportError("example_inputs: '{}' is not a parameter of the root forward "
                                  "({})".format(name, ", ".join(names) or "no parameters"))
            specs.append(input_spec(name, value, "example_inputs['{}']".format(name)))
        return specs
    if isinstance(example_inputs, torch.Tensor) or is_sparse_tensor(example_inputs):
        example_inputs = (example_inputs,)
    if not isinstance(example_inputs, (tuple, list)):
        raise ExportError("example_inputs: expected a tensor, a tuple or list of them, or a dict "
                          "name -> tensor, got {}".format(type(example_inputs).__qualname__))
    positional = [p["name"] for p in root_signature if p["kind"] in _POSITIONAL]
    if len(example_inputs) > len(positional):
        raise ExportError("example_inputs: {} values for {} positional parameters of the root "
                          "forward ({})".format(len(example_inputs), len(positional), ", ".join(positional)))
    return [input_spec(name, value, "example_inputs[{}] ('{}')".format(i, name))
            for i, (name, value) in enumerate(zip(positional, example_inputs))]


def _int_or_none(value, where, allowed=None, positive=False):
    if value is None:
        return None
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise ExportError("{}: expected an integer or None, got {!r}".format(where, value))
    if allowed is not None and value not in allowed:
        raise ExportError("{}: expected one of {}, got {}".format(where, ", ".join(map(str, allowed)), value))
    if positive and value < 1:
        raise ExportError("{}: expected a positive integer, got {}".format(where, value))
    return int(value)


def _choice(value, where, allowed, nullable):
    if value is None and nullable:
        return None
    if value not in allowed:
        raise ExportError("{}: expected {}{}, got {!r}".format(
            where, " or ".join("'{}'".format(a) for a in allowed), " or None" if nullable else "", value))
    return value


def _names(value, where):
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v for v in value):
        raise ExportError("{}: expected a list of non-empty strings or None, got {!r}".format(where, value))
    return list(value)


_LOWERING_KEYS = {
    "batch_size": lambda v, w: _int_or_none(v, w, positive=True),
    "input_dtype": lambda v, w: _choice(v, w, ("f32", "f16"), True),
    "quantize_bits": lambda v, w: _int_or_none(v, w, allowed=(4, 8)),
    "quantize_group_size": lambda v, w: _int_or_none(v, w, positive=True),
    "quantize_scale_dtype": lambda v, w: _choice(v, w, ("f16", "f32"), False),
    "output_names": _names,
}


def _example_values(example_inputs):
    """(name or index, value) of each example input, in the order example_input_specs reads them."""
    if isinstance(example_inputs, dict):
        return list(example_inputs.items())
    if isinstance(example_inputs, torch.Tensor) or is_sparse_tensor(example_inputs):
        example_inputs = (example_inputs,)
    return list(enumerate(example_inputs))


def _batch_size_of(value, where):
    """lowering.md §6.1 step 6 for one sparse input: len(batch_counts) when it is set, else
    spatial_range[0] when that is set, else None (the input says nothing)."""
    batch_counts = getattr(value, "batch_counts", None)
    if batch_counts is not None:
        try:
            return len(batch_counts), "{} batch counts".format(len(batch_counts))
        except TypeError as error:
            raise ExportError("{}: batch_counts has no length ({})".format(where, error)) from error
    spatial_range = getattr(value, "spatial_range", None)
    if spatial_range is not None:
        try:
            size = int(spatial_range[0])
        except (TypeError, ValueError, IndexError) as error:
            raise ExportError("{}: spatial_range[0] is not an integer ({})".format(where, error)) from error
        return size, "spatial_range[0] = {}".format(size)
    return None


def inferred_lowering(example_inputs, specs, lowering):
    """``batch_size`` and ``input_dtype`` as save_lattice_model_artifact infers them from
    `example_inputs` (lowering.md §6.1 steps 5 and 6; fx-archive.md "Input specs and lowering
    hints"). `specs` are the checked specs of the same inputs; `lowering` the caller's checked
    options. A caller's input dtype (when truthy) or batch size (when not None) wins and is not
    checked against the inputs, as in the reference."""
    sparse = [(key, value, spec) for (key, value), spec in zip(_example_values(example_inputs), specs)
              if spec["kind"] == "sparse"]
    out = {}
    if not lowering.get("input_dtype"):
        dtypes = sorted({spec["dtype"] for _, _, spec in sparse})
        if len(dtypes) > 1:
            raise ExportError("example_inputs: all sparse inputs must use one feature dtype ({})".format(
                ", ".join("'{}': {}".format(spec["name"], spec["dtype"]) for _, _, spec in sparse)))
        out["input_dtype"] = dtypes[0] if dtypes else "f32"
    if lowering.get("batch_size") is None:
        sizes = []
        for key, value, spec in sparse:
            where = "example_inputs[{!r}]".format(key) if isinstance(key, str) else \
                "example_inputs[{}] ('{}')".format(key, spec["name"])
            size = _batch_size_of(value, where)
            if size is not None:
                sizes.append((spec["name"], size))
        if len({size for _, (size, _) in sizes}) > 1:
            raise ExportError("example_inputs: sparse inputs disagree on batch size ({})".format(
                ", ".join("'{}': {}".format(name, how) for name, (_, how) in sizes)))
        batch_size = sizes[0][1][0] if sizes else None
        if batch_size is not None and batch_size < 1:
            # The reference builder accepts 0, but no archive reader does (a positive batch size).
            raise ExportError("example_inputs: the inferred batch size is {} ('{}': {}); pass a positive "
                              "lowering['batch_size']".format(batch_size, sizes[0][0], sizes[0][1][1]))
        out["batch_size"] = batch_size
    return out


def lowering_options(lowering, inferred=None):
    """The checked lowering object, keys in the spec's order; only the keys given are written,
    plus `inferred(checked)`'s keys (see inferred_lowering), which replace the caller's unset ones."""
    if lowering is None:
        lowering = {}
    if not isinstance(lowering, dict):
        raise ExportError("lowering: expected a dict, got {}".format(type(lowering).__qualname__))
    unknown = [key for key in lowering if key not in _LOWERING_KEYS]
    if unknown:
        raise ExportError("lowering: unknown option '{}' (known: {})".format(unknown[0], ", ".join(_LOWERING_KEYS)))
    out = {}
    for key, check in _LOWERING_KEYS.items():
        if key in lowering:
            value = check(lowering[key], "lowering['{}']".format(key))
            if key == "quantize_group_size" and value is None:
                raise ExportError("lowering['quantize_group_size']: expected a positive integer, got None")
            out[key] = value
    if inferred is not None:
        extra = inferred(out)
        out = {key: extra[key] if key in extra else out[key]
               for key in _LOWERING_KEYS if key in out or key in extra}
    return out
