"""A safetensors writer with the byte conventions of lattice-artifact-format.md §13.1.

Layout: an 8-byte little-endian header length N, N bytes of compact UTF-8 JSON
(``{"__metadata__":{"format":"torch"},"key":{"dtype":..,"shape":[..],"data_offsets":[b,e]},..}``)
padded with spaces to N % 8 == 0, then the tensor bytes packed without gaps. Weights carry
``{"format":"torch"}`` as metadata; the recorded inputs and activations carry their own. Tensors
are ordered by dtype rank descending (the safetensors ``Dtype`` enum order), then by key bytes
ascending, in the header and in the data alike. Tensors are written row-major and
little-endian. Deliberately not here: reading, and dtypes torch has no safetensors name for
(complex, quantized).
"""

import json
import os
import struct
import sys

import torch

from .errors import ExportError

try:  # numpy only speeds up the byte copy; the fallback needs nothing but torch
    import numpy as _numpy  # noqa: F401
    _HAVE_NUMPY = True
except ImportError:  # pragma: no cover - depends on the machine
    _HAVE_NUMPY = False

# The safetensors Dtype enum, in order; a tensor's rank is its index here.
DTYPE_RANK = ("BOOL", "F4", "F6_E2M3", "F6_E3M2", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0",
              "I16", "U16", "F16", "BF16", "I32", "U32", "F32", "F64", "I64", "U64")

_TORCH_DTYPES = {
    torch.bool: "BOOL", torch.uint8: "U8", torch.int8: "I8", torch.int16: "I16",
    torch.float16: "F16", torch.bfloat16: "BF16", torch.int32: "I32", torch.float32: "F32",
    torch.float64: "F64", torch.int64: "I64",
}
for _name, _code in (("float8_e5m2", "F8_E5M2"), ("float8_e4m3fn", "F8_E4M3"), ("uint16", "U16"),
                     ("uint32", "U32"), ("uint64", "U64")):
    if hasattr(torch, _name):  # newer torch only
        _TORCH_DTYPES[getattr(torch, _name)] = _code

METADATA = {"format": "torch"}


def safetensors_dtype(dtype, where):
    """The safetensors name of a torch dtype (``F32``); ExportError naming `where` if none."""
    code = _TORCH_DTYPES.get(dtype)
    if code is None:
        raise ExportError("{}: dtype {} has no safetensors encoding".format(where, dtype))
    return code


def tensor_bytes(tensor, where):
    """The row-major little-endian bytes of a dense CPU copy of `tensor`."""
    if tensor.layout != torch.strided or tensor.is_quantized:
        raise ExportError("{}: only dense tensors can be written (layout {}{})".format(
            where, tensor.layout, ", quantized" if tensor.is_quantized else ""))
    if tensor.device.type == "meta":
        raise ExportError("{}: the tensor is on the 'meta' device and has no data".format(where))
    if sys.byteorder != "little":  # pragma: no cover - no big-endian machines here
        raise ExportError("{}: writing safetensors on a big-endian machine is not supported".format(where))
    flat = tensor.detach().to("cpu").contiguous().reshape(-1)
    raw = flat.view(torch.uint8) if flat.dtype != torch.bool else flat.to(torch.uint8)
    if _HAVE_NUMPY:
        return raw.numpy().tobytes()
    return bytes(raw.tolist())


def order_key(key, dtype_code):
    """Sort key: dtype rank descending, then key bytes ascending."""
    return (-DTYPE_RANK.index(dtype_code), key.encode("utf-8"))


def encode(tensors, metadata=None):
    """The file bytes for `tensors`, a mapping key → torch.Tensor. `metadata`: the
    ``__metadata__`` object (string → string), METADATA when None."""
    entries = []
    for key, tensor in tensors.items():
        if not isinstance(key, str) or not key:
            raise ExportError("safetensors: tensor key {!r} is not a non-empty string".format(key))
        if key == "__metadata__":
            raise ExportError("safetensors: '__metadata__' cannot name a tensor")
        where = "tensor '{}'".format(key)
        entries.append((key, safetensors_dtype(tensor.dtype, where), list(tensor.shape),
                        tensor_bytes(tensor, where)))
    entries.sort(key=lambda entry: order_key(entry[0], entry[1]))

    header = {"__metadata__": METADATA if metadata is None else metadata}
    offset = 0
    for key, code, shape, data in entries:
        header[key] = {"dtype": code, "shape": shape, "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return b"".join([struct.pack("<Q", len(text)), text] + [entry[3] for entry in entries])


def write(path, tensors, metadata=None):
    """Writes `tensors` to `path` through a temporary file beside it, renamed over `path`."""
    data = encode(tensors, metadata)
    temporary = "{}.tmp-{}".format(path, os.getpid())
    try:
        with open(temporary, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
