"""weights.safetensors byte conventions (lattice-artifact-format.md §13.1), checked against bytes
worked out by hand from the spec, and the file read back by lattice-cli.
"""

import json
import os
import struct
import tempfile
import unittest

import support

import torch
import torch.nn as nn

from lattice_studio_export import export_archive
from lattice_studio_export import safetensors


def split(data):
    """(header bytes including padding, parsed header, data section)."""
    (length,) = struct.unpack("<Q", data[:8])
    header = data[8:8 + length]
    return header, json.loads(header.decode("utf-8")), data[8 + length:]


class Container(unittest.TestCase):
    def test_empty_file_is_48_bytes(self):
        # §13.1: exactly {"__metadata__":{"format":"torch"}} + 5 spaces, N = 40.
        expected = struct.pack("<Q", 40) + b'{"__metadata__":{"format":"torch"}}' + b" " * 5
        self.assertEqual(safetensors.encode({}), expected)

    def test_one_tensor_by_hand(self):
        # Header counted by hand: 34 bytes of metadata prefix + 54 bytes of entry = 88, a
        # multiple of 8, so no padding. 1.0f = 00 00 80 3f, -2.0f = 00 00 00 c0.
        header = b'{"__metadata__":{"format":"torch"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'
        expected = struct.pack("<Q", 88) + header + bytes.fromhex("0000803f000000c0")
        self.assertEqual(safetensors.encode({"w": torch.tensor([1.0, -2.0])}), expected)

    def test_padding_and_offsets(self):
        tensors = {"a": torch.arange(3, dtype=torch.int16), "bb": torch.zeros(2, 3)}
        data = safetensors.encode(tensors)
        header, parsed, body = split(data)
        self.assertEqual(len(header) % 8, 0)
        self.assertRegex(header, rb"^\{[^ ]*\} *$")  # compact JSON, then space padding only
        self.assertNotIn(b"\n", header)
        self.assertNotIn(b": ", header)  # compact separators
        # F32 (rank 15) before I16 (rank 9): "bb" first.
        self.assertEqual(parsed["bb"], {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]})
        self.assertEqual(parsed["a"], {"dtype": "I16", "shape": [3], "data_offsets": [24, 30]})
        self.assertEqual(body, bytes(24) + bytes.fromhex("000001000200"))
        # Key order inside each entry: dtype, shape, data_offsets.
        self.assertLess(header.index(b'"dtype"'), header.index(b'"shape"'))
        self.assertLess(header.index(b'"shape"'), header.index(b'"data_offsets"'))

    def test_order_is_dtype_rank_descending_then_key_bytes(self):
        tensors = {
            "m": torch.zeros(1, dtype=torch.bool),
            "k": torch.zeros(1, dtype=torch.uint8),
            "j": torch.zeros(1, dtype=torch.int8),
            "h": torch.zeros(1, dtype=torch.float16),
            "g": torch.zeros(1, dtype=torch.bfloat16),
            "f": torch.zeros(1, dtype=torch.int32),
            "a.2": torch.zeros(1, dtype=torch.float32),
            "a.10": torch.zeros(1, dtype=torch.float32),
            "B": torch.zeros(1, dtype=torch.float32),
            "d": torch.zeros(1, dtype=torch.float64),
            "c": torch.zeros(1, dtype=torch.int64),
        }
        _, parsed, _ = split(safetensors.encode(tensors))
        keys = [k for k in parsed if k != "__metadata__"]
        # Enum order BOOL < U8 < I8 < I16 < F16 < BF16 < I32 < F32 < F64 < I64, reversed; within
        # F32 by bytes: "B" (0x42) < "a.10" < "a.2" ('1' < '2').
        self.assertEqual(keys, ["c", "d", "B", "a.10", "a.2", "f", "g", "h", "j", "k", "m"])
        self.assertEqual(list(parsed)[0], "__metadata__")
        self.assertEqual(parsed["__metadata__"], {"format": "torch"})

    def test_values_are_little_endian_row_major(self):
        t = torch.tensor([[1, 2], [3, 4]], dtype=torch.int32).t()  # non-contiguous view
        _, parsed, body = split(safetensors.encode({"t": t}))
        self.assertEqual(parsed["t"]["shape"], [2, 2])
        self.assertEqual(body, struct.pack("<4i", 1, 3, 2, 4))
        _, _, body = split(safetensors.encode({"s": torch.tensor(7, dtype=torch.int64)}))
        self.assertEqual(body, struct.pack("<q", 7))
        _, _, body = split(safetensors.encode({"b": torch.tensor([True, False, True])}))
        self.assertEqual(body, b"\x01\x00\x01")
        _, _, body = split(safetensors.encode({"h": torch.tensor([1.0], dtype=torch.bfloat16)}))
        self.assertEqual(body, bytes.fromhex("803f"))

    def test_unsupported_dtype_is_an_error(self):
        with self.assertRaisesRegex(Exception, r"tensor 'z': dtype torch.complex64 has no safetensors encoding"):
            safetensors.encode({"z": torch.zeros(2, dtype=torch.complex64)})


class MixedDtypes(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.BatchNorm1d(3)  # F32 weights and running stats, I64 num_batches_tracked
        self.lin16 = nn.Linear(3, 2).half()
        self.register_buffer("mask", torch.tensor([True, False]))
        self.register_buffer("cache", torch.arange(4, dtype=torch.int32), persistent=False)

    def forward(self, x):
        return self.lin16(self.norm(x).half()) * self.mask + self.cache


class ArchiveWeights(unittest.TestCase):
    def test_every_tensor_is_written_and_read_back(self):
        model = MixedDtypes()
        with torch.no_grad():
            model.norm.running_mean.copy_(torch.tensor([0.5, -1.5, 2.25]))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "mixed.ltfx")
            export_archive(model, path)
            with open(os.path.join(path, "weights.safetensors"), "rb") as f:
                _, parsed, body = split(f.read())
            result = support.run_cli("info", path)
            self.assertEqual(result.returncode, 0, result.stderr)

        expected = dict(model.state_dict())
        expected["cache"] = model.cache  # a non-persistent buffer is still a buffer of the module
        self.assertEqual(sorted(k for k in parsed if k != "__metadata__"), sorted(expected))
        self.assertEqual(parsed["norm.num_batches_tracked"]["dtype"], "I64")
        self.assertEqual(parsed["lin16.weight"]["dtype"], "F16")
        self.assertEqual(parsed["mask"]["dtype"], "BOOL")
        begin, end = parsed["norm.running_mean"]["data_offsets"]
        self.assertEqual(body[begin:end], struct.pack("<3f", 0.5, -1.5, 2.25))
        # lattice-cli counts parameters: BatchNorm1d(3) weight+bias = 6 F32, Linear(3,2) = 8 F16.
        self.assertRegex(result.stdout, r"parameters:\s+14 elements in 4 tensors, 40 bytes")


if __name__ == "__main__":
    support.main()
