"""The real torch-lattice as the judge of mixed-precision artifacts: `lattice-cli quant-plan`
chooses a per-layer plan, `lattice-cli lower --quantize-plan` writes it, and every packed weight
of that artifact must be, byte for byte, what torch-lattice's own packer
(``torch_lattice.artifact.weights.pack_quantized_weight``) makes of the dense export's weight
with that layer's bits, group size and scale dtype; its dense weights must equal the dense
export's. torch-lattice's exporter packs every layer one way; this checks that packing layer by
layer with different settings gives what the reference gives for each.

Skipped (exit 77) when the real torch-lattice is not there (a user's fresh clone); CI has it.
"""

import json
import os
import re
import struct
import sys
import tempfile
import unittest

import support

import real_torch_lattice as real

TL, WHY = real.load()
if TL is None:
    print("skipped: " + WHY)
    sys.exit(support.SKIP_EXIT_CODE)

from torch_lattice.artifact.weights import pack_quantized_weight  # noqa: E402

import torch  # noqa: E402

MODEL = "example:sparse_resnet21d"
PACKING = re.compile(r'storage_key = "([^"]+)".*packing = #lattice\.packing<(dense|int4|int8)'
                     r'(?:, group_size = (\d+), scale_dtype = (f16|f32))?')


def raw_safetensors(path):
    """{key: (dtype name, shape, bytes)} of a safetensors file, read here."""
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    header.pop("__metadata__", None)
    return {key: (e["dtype"], tuple(e["shape"]), data[8 + length + e["data_offsets"][0]:8 + length + e["data_offsets"][1]])
            for key, e in header.items()}


def tensor_of(entry):
    """A float tensor of an F32/F16 entry."""
    dtype, shape, raw = entry
    flat = torch.frombuffer(bytearray(raw), dtype=torch.float32 if dtype == "F32" else torch.float16)
    return flat.reshape(shape)


def bytes_of(tensor):
    return tensor.as_subclass(torch.Tensor).contiguous().numpy().tobytes()


def packings(graph_path):
    """storage key -> (kind, group size, scale dtype) of every weight op in graph.mlir."""
    out = {}
    with open(graph_path) as f:
        for line in f:
            m = PACKING.search(line)
            if m:
                out[m.group(1)] = (m.group(2), int(m.group(3) or 0), m.group(4))
    return out


class RealQuantPlan(unittest.TestCase):
    def test_mixed_plan_packs_each_layer_as_torch_lattice_does(self):
        with tempfile.TemporaryDirectory() as tmp:
            plan = os.path.join(tmp, "plan.json")
            result = support.run_cli("quant-plan", MODEL, "--random-inputs", "1500:3", "--group-sizes", "32,64",
                                     "--budget", "2e-2", "-o", plan, "--json")
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(plan) as f:
                layers = json.load(f)["layers"]
            # Make the plan use both group sizes and a f32 scale somewhere, whatever the search chose.
            names = sorted(layers)
            layers[names[1]] = {"kind": "int4", "group_size": 64}
            layers[names[2]] = {"kind": "int8", "group_size": 128, "scale_dtype": "f32"}
            with open(plan, "w") as f:
                json.dump({"format": "lattice-quantization-plan", "version": 1, "default": "dense", "layers": layers}, f)

            mixed, dense = os.path.join(tmp, "mixed"), os.path.join(tmp, "dense")
            for args in (("--quantize-plan", plan, "-o", mixed), ("-o", dense)):
                result = support.run_cli("lower", MODEL, *args)
                self.assertEqual(result.returncode, 0, result.stderr)
            mixed_weights = raw_safetensors(os.path.join(mixed, "weights.safetensors"))
            dense_weights = raw_safetensors(os.path.join(dense, "weights.safetensors"))
            written = packings(os.path.join(mixed, "graph.mlir"))
            kinds = set()
            for key, (kind, group, scale) in written.items():
                if kind == "dense":
                    self.assertEqual(mixed_weights[key], dense_weights[key], key)
                    continue
                kinds.add((kind, group, scale))
                packed = pack_quantized_weight(tensor_of(dense_weights[key]), bits=int(kind[3:]), group_size=group,
                                               scale_dtype=scale)
                for part, tensor in (("weight", packed.weight), ("scales", packed.scales), ("biases", packed.biases)):
                    _, shape, raw = mixed_weights[key + "." + part]
                    self.assertEqual(shape, tuple(tensor.shape), key + "." + part)
                    self.assertEqual(raw, bytes_of(tensor), key + "." + part)
            self.assertIn(("int4", 64, "f16"), kinds)
            self.assertIn(("int8", 128, "f32"), kinds)


if __name__ == "__main__":
    support.main()
