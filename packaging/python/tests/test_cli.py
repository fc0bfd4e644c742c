"""`python3 -m lattice_studio_export`: a factory in a file or module, a checkpoint, example inputs
and lowering flags end up in the archive; failures exit 1 with one line, usage errors exit 2."""

import json
import os
import struct
import subprocess
import sys
import tempfile
import textwrap
import unittest

import support

import torch

NET = """
    import torch
    from torch import nn


    class Net(nn.Module):
        def __init__(self, width=4):
            super().__init__()
            self.fc = nn.Linear(3, width)
            self.norm = nn.BatchNorm1d(width)

        def forward(self, points, features):
            return self.norm(self.fc(points)) + features.sum()


    def build(width=4):
        return Net(width)


    class FakeSparse:
        '''Duck-typed like torch-lattice's SparseTensor.'''

        def __init__(self):
            self.coords = torch.zeros(7, 4, dtype=torch.int32)
            self.feats = torch.zeros(7, 2, dtype=torch.float16)
            self.stride = 2


    def inputs():
        return torch.zeros(5, 3), FakeSparse()
"""


def read_tensor(archive, key):
    with open(os.path.join(archive, "weights.safetensors"), "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    entry = json.loads(data[8:8 + length])[key]
    begin, end = entry["data_offsets"]
    return entry, data[8 + length + begin:8 + length + end]


class Cli(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        with open(os.path.join(self.tmp.name, "net.py"), "w", encoding="utf-8") as f:
            f.write(textwrap.dedent(NET))

    def run_exporter(self, *args):
        return support.run_exporter(*args, cwd=self.tmp.name)

    def test_help(self):
        result = self.run_exporter("--help")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("usage: python3 -m lattice_studio_export", result.stdout)
        self.assertIn("package.module:FACTORY", result.stdout)
        self.assertIn("--checkpoint", result.stdout)

    def test_factory_checkpoint_inputs_and_lowering(self):
        weight = torch.arange(18, dtype=torch.float32).reshape(6, 3) / 4
        state = {"fc.weight": weight, "fc.bias": torch.ones(6)}
        state.update({"norm." + k: v for k, v in torch.nn.BatchNorm1d(6).state_dict().items()})
        torch.save({"state_dict": state}, os.path.join(self.tmp.name, "ckpt.pth"))

        out = os.path.join(self.tmp.name, "net.ltfx")
        result = self.run_exporter("net.py:build", "-o", out, "--factory-kwargs", '{"width": 6}',
                                   "--checkpoint", "ckpt.pth", "--inputs", "net.py:inputs",
                                   "--batch-size", "2", "--quantize", "8", "--output-name", "logits")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "wrote {}\n".format(out))
        with open(os.path.join(out, "model.json"), encoding="utf-8") as f:
            doc = json.load(f)
        self.assertEqual(doc["modules"][0]["type"], "net.Net")
        self.assertFalse(doc["modules"][0]["training"])  # eval() unless --train
        self.assertEqual(doc["example_inputs"], [
            {"name": "points", "kind": "dense", "dtype": "f32", "shape": [5, 3]},
            {"name": "features", "kind": "sparse", "dtype": "f16", "channels": 2, "stride": [2, 2, 2]}])
        # input_dtype: inferred from the f16 sparse features (lowering.md §6.1 step 5).
        self.assertEqual(doc["lowering"], {"batch_size": 2, "input_dtype": "f16", "quantize_bits": 8,
                                           "output_names": ["logits"]})
        entry, raw = read_tensor(out, "fc.weight")
        self.assertEqual(entry, {"dtype": "F32", "shape": [6, 3], "data_offsets": entry["data_offsets"]})
        self.assertEqual(raw, struct.pack("<18f", *[i / 4 for i in range(18)]))

        info = support.run_cli("info", out)
        self.assertEqual(info.returncode, 0, info.stderr)
        self.assertRegex(info.stdout, r"modules:\s+3 ")

    def test_pickled_module(self):
        script = "import torch, net; torch.save(net.build(), 'whole.pt')"
        made = subprocess.run([sys.executable, "-c", script], cwd=self.tmp.name,
                                      capture_output=True, text=True)
        self.assertEqual(made.returncode, 0, made.stderr)
        out = os.path.join(self.tmp.name, "whole.ltfx")
        result = self.run_exporter("whole.pt", "-o", out, "--train")
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(out, "model.json"), encoding="utf-8") as f:
            self.assertTrue(json.load(f)["modules"][0]["training"])

    def test_errors_are_one_line_with_exit_code_1(self):
        cases = [
            (["net.py:missing", "-o", "x.ltfx"], "MODEL 'net.py:missing': 'net.py' has no attribute 'missing'"),
            (["net.py:build", "-o", "x.ltfx", "--factory-kwargs", "[1]"], "--factory-kwargs: expected a JSON object"),
            (["net.py:build", "-o", "x.ltfx", "--checkpoint", "nope.pth"], "nope.pth: cannot load: "),
            (["no_such_module:build", "-o", "x.ltfx"], "MODEL 'no_such_module:build': cannot import 'no_such_module'"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                result = self.run_exporter(*args)
                self.assertEqual(result.returncode, 1, result.stderr)
                self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
                self.assertIn("python3 -m lattice_studio_export: error: " + message, result.stderr)
                self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "x.ltfx")))

    def test_usage_errors_exit_2(self):
        self.assertEqual(self.run_exporter("net.py:build").returncode, 2)  # no -o
        self.assertEqual(self.run_exporter("net.py:build", "-o", "x", "--quantize", "3").returncode, 2)


if __name__ == "__main__":
    support.main()
