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
        stride = value.stride() if callable(value.stride) else value.stride
        return {"name": name, "kind": "sparse", "dtype": dtype,
                "channels": int(feats.shape[-1]) if feats.dim() == 2 else None,
                "stride": _stride(stride, where)}
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


def lowering_options(lowering):
    """The checked lowering object, keys in the spec's order; only the keys given are written."""
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
    return out
