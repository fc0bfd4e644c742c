"""The torch_lattice path, against a minimal fake `torch_lattice` written to a temporary
directory. The fake has the documented public names (lowering.md §1.1, §1.2, §7) and nothing
else; every function and module forward in it fails if torch.fx traces *into* it (it branches on
its input), so an export only succeeds when the documented functions stay call_function nodes
and the supported modules stay leaves.

The expected targets and node names are lowering.md §1.2's table (`_get_qualified_name` column
and default FX node name), not values taken from the exporter.
"""

import importlib
import json
import os
import sys
import tempfile
import textwrap
import unittest

import support

import torch
import torch.fx

from lattice_studio_export import ExportError, export_archive

_UNTRACEABLE = '''
def _concrete(x):
    # Branching on a torch.fx Proxy raises TraceError: proves the exporter did not trace in here.
    if x.dim() >= 0:
        return x
    return x
'''

STUB = {
    "torch_lattice/__init__.py": """
        from .operators import (cat, generative_add, reindex_sparse, sparse_add, sparse_cat,
                                sparse_maximum, sparse_minimum, sparse_mul, sparse_sub)
        from .nn.functional import devoxelize, voxelize
        from .tensor import SparseTensor
        from . import nn, operators
    """,
    # Duck-typed like torch-lattice's SparseTensor: what the exporter reads of it (lowering.md 6.1).
    "torch_lattice/tensor.py": """
class SparseTensor:
    def __init__(self, feats, coords, stride=1, spatial_range=None, batch_counts=None):
        self.feats = feats
        self.coords = coords
        self.stride = stride
        self.spatial_range = spatial_range
        self.batch_counts = batch_counts
""",
    "torch_lattice/operators.py": _UNTRACEABLE + """
def cat(inputs):
    return _concrete(inputs[0])

def sparse_cat(inputs):
    return _concrete(inputs[0])

def generative_add(a, b):
    return _concrete(a)

def sparse_add(a, b):
    return _concrete(a)

def sparse_sub(a, b):
    return _concrete(a)

def sparse_mul(a, b):
    return _concrete(a)

def sparse_maximum(a, b):
    return _concrete(a)

def sparse_minimum(a, b):
    return _concrete(a)

def reindex_sparse(source, target):
    return _concrete(source)
""",
    "torch_lattice/nn/__init__.py": """
        from . import functional
        from .modules.activation import ReLU
        from .modules.conv import Conv3d, SubmConv3d
        from .modules.norm import BatchNorm
        from .modules.pooling import GlobalAvgPool
    """,
    "torch_lattice/nn/functional/__init__.py": """
        from .voxelize import voxelize
        from .devoxelize import devoxelize
        from .conv import conv3d
    """,
    "torch_lattice/nn/functional/voxelize.py": _UNTRACEABLE + """
def voxelize(x, voxel_size=1.0):
    return _concrete(x)
""",
    "torch_lattice/nn/functional/devoxelize.py": _UNTRACEABLE + """
def devoxelize(x):
    return _concrete(x)
""",
    "torch_lattice/nn/functional/conv.py": _UNTRACEABLE + """
def conv3d(x, weight):
    return _concrete(x)
""",
    "torch_lattice/nn/modules/__init__.py": "",
    "torch_lattice/nn/modules/conv.py": _UNTRACEABLE + """
import torch
from torch import nn


class _BaseConv3d(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=3):
        super().__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = (kernel_size,) * 3
        self.weight = nn.Parameter(torch.zeros(kernel_size ** 3, in_channels, out_channels))
        self.register_buffer("kernel_positions", torch.zeros(kernel_size ** 3, 3, dtype=torch.int32))

    def forward(self, input, coordinates=None):
        return _concrete(input)


class Conv3d(_BaseConv3d):
    pass


class SubmConv3d(_BaseConv3d):
    pass
""",
    "torch_lattice/nn/modules/norm.py": _UNTRACEABLE + """
from torch import nn


class BatchNorm(nn.BatchNorm1d):
    def forward(self, input):
        return _concrete(input)
""",
    "torch_lattice/nn/modules/pooling.py": _UNTRACEABLE + """
from torch import nn


class GlobalAvgPool(nn.Module):
    def forward(self, input, *, batch_size=None):
        return _concrete(input)
""",
    "torch_lattice/nn/modules/activation.py": _UNTRACEABLE + """
from torch import nn


class ReLU(nn.ReLU):
    def forward(self, input):
        return _concrete(input)
""",
    # A user's model, written as users write it: from-imports and attribute access.
    "lattice_user_model.py": """
        import torch
        import torch_lattice
        from torch import nn
        from torch_lattice import sparse_add, voxelize


        class UserReLU(torch.nn.ReLU):
            '''A user subclass of a supported torch type: a leaf through isinstance.'''


        class Block(nn.Module):
            def forward(self, x):
                return torch_lattice.sparse_mul(x, x) + torch_lattice.nn.functional.devoxelize(x)


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = torch_lattice.nn.Conv3d(3, 4)
                self.norm = torch_lattice.nn.BatchNorm(4)
                self.act = UserReLU()
                self.block = Block()

            def forward(self, x, y):
                a = torch_lattice.cat([x, y])
                b = sparse_add(a, a)
                c = self.block(self.act(self.norm(self.conv(b))))
                return voxelize(c), torch_lattice.operators.reindex_sparse(c, x)


        class PoolNet(nn.Module):
            # Like lowering.md 9, test_lattice_artifact.py 1 (without the conv): lowers only
            # with a static batch size.
            def __init__(self):
                super().__init__()
                self.pool = torch_lattice.nn.GlobalAvgPool()
                self.fc = nn.Linear(2, 3)

            def forward(self, x, y=None):
                return self.fc(self.pool(x))
    """,
}


class _LatticeLikeTracer(torch.fx.Tracer):
    """torch.fx with lowering.md §1.1/§1.2's rules written out for the fake: the reference
    whole-model trace the archive must reproduce."""

    def __init__(self, leaf_types, modules):
        super().__init__(autowrap_modules=modules)
        self.leaf_types = leaf_types

    def is_leaf_module(self, module, qualified_name):
        return isinstance(module, self.leaf_types) or super().is_leaf_module(module, qualified_name)


class TorchLatticeStub(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = support.install_modules(STUB)
        cls.user = importlib.import_module("lattice_user_model")
        cls.tl = importlib.import_module("torch_lattice")

    @classmethod
    def tearDownClass(cls):
        support.remove_modules(cls.tmp, ["torch_lattice", "lattice_user_model"])

    def export(self, **kwargs):
        path = os.path.join(self.tmp.name, "net.ltfx")
        export_archive(self.user.Net().eval(), path, **kwargs)
        with open(os.path.join(path, "model.json"), encoding="utf-8") as f:
            return path, json.load(f)

    def test_documented_functions_stay_call_function_nodes(self):
        _, doc = self.export()
        modules = {m["path"]: m for m in doc["modules"]}

        def calls(path):
            return [(n["name"], n["target"]) for n in modules[path]["graph"]["nodes"] if n["op"] == "call_function"]

        self.assertEqual(calls(""), [
            ("cat", "torch_lattice.operators.cat"),
            ("sparse_add", "torch_lattice.operators.sparse_add"),
            ("voxelize", "torch_lattice.nn.functional.voxelize.voxelize"),
            ("reindex_sparse", "torch_lattice.operators.reindex_sparse"),
        ])
        self.assertEqual(calls("block"), [
            ("sparse_mul", "torch_lattice.operators.sparse_mul"),
            ("devoxelize", "torch_lattice.nn.functional.devoxelize.devoxelize"),
            ("add", "operator.add"),
        ])

    def test_supported_modules_are_leaves(self):
        _, doc = self.export()
        modules = {m["path"]: m for m in doc["modules"]}
        for leaf in ("conv", "norm", "act"):
            self.assertNotIn("graph", modules[leaf], leaf)
        self.assertIn("graph", modules["block"])
        conv = modules["conv"]
        self.assertEqual(conv["type"], "torch_lattice.nn.modules.conv.Conv3d")
        self.assertEqual(conv["bases"], ["torch_lattice.nn.modules.conv._BaseConv3d", "torch.nn.modules.module.Module"])
        self.assertEqual(conv["attributes"], {"in_channels": 3, "out_channels": 4, "kernel_size": {"tuple": [3, 3, 3]}})
        self.assertEqual(conv["buffers"], {"kernel_positions": {"key": "conv.kernel_positions", "dtype": "I32", "shape": [27, 3]}})
        self.assertEqual(conv["signature"], [
            {"name": "input", "kind": "positional_or_keyword"},
            {"name": "coordinates", "kind": "positional_or_keyword", "default": None}])
        self.assertEqual(modules["norm"]["bases"][0], "torch.nn.modules.batchnorm.BatchNorm1d")
        self.assertEqual(modules["act"]["type"], "lattice_user_model.UserReLU")

    def test_lattice_cli_trace_matches_the_lattice_rules(self):
        path, _ = self.export()
        result = support.run_cli("trace", path)
        self.assertEqual(result.returncode, 0, result.stderr)
        tl = self.tl
        tracer = _LatticeLikeTracer((tl.nn.Conv3d, tl.nn.BatchNorm, torch.nn.ReLU),
                                    (tl, tl.operators, tl.nn.functional))
        expected = support.torch_fx_text(tracer.trace(self.user.Net()))
        self.assertEqual(result.stdout, expected)
        self.assertIn("call_function[target=torch_lattice.operators.cat](args = ([%x, %y],)", result.stdout)

    def test_plain_torch_fx_traces_into_the_functions(self):
        with self.assertRaisesRegex(ExportError, r"^the root module: tracing forward \(Net\) failed: TraceError: "):
            self.export(use_torch_lattice=False)

    def test_required_torch_lattice_is_used(self):
        _, doc = self.export(use_torch_lattice=True)
        self.assertNotIn("graph", doc["modules"][1])

    # Inferred lowering options: fx-archive.md "Input specs and lowering hints", lowering.md 6.1
    # steps 5 (input_dtype) and 6 (batch_size). The expected values are the spec's rules applied
    # by hand to the example inputs.

    def sparse(self, rows=4, dtype=torch.float32, spatial_range=None, batch_counts=None):
        return self.tl.SparseTensor(torch.zeros(rows, 2, dtype=dtype), torch.zeros(rows, 4, dtype=torch.int32),
                                    spatial_range=spatial_range, batch_counts=batch_counts)

    def pool_export(self, example_inputs, lowering=None, name="pool.ltfx"):
        path = os.path.join(self.tmp.name, name)
        export_archive(self.user.PoolNet().eval(), path, example_inputs=example_inputs, lowering=lowering)
        with open(os.path.join(path, "model.json"), encoding="utf-8") as f:
            return path, json.load(f)

    def test_batch_size_is_the_number_of_batch_counts(self):
        # batch_counts wins over spatial_range (lowering.md 9: spatial_range (2,2,1,1), counts (2,2)).
        _, doc = self.pool_export((self.sparse(spatial_range=(2, 2, 1, 1), batch_counts=(2, 2)),))
        self.assertEqual(doc["lowering"], {"batch_size": 2, "input_dtype": "f32"})
        _, doc = self.pool_export((self.sparse(spatial_range=(5, 2, 1, 1), batch_counts=(1, 2, 1)),))
        self.assertEqual(doc["lowering"]["batch_size"], 3)

    def test_batch_size_is_spatial_range_0_without_batch_counts(self):
        _, doc = self.pool_export((self.sparse(spatial_range=(3, 2, 1, 1)),))
        self.assertEqual(doc["lowering"], {"batch_size": 3, "input_dtype": "f32"})
        _, doc = self.pool_export({"x": self.sparse(spatial_range=torch.tensor([4, 2, 1, 1]))})
        self.assertEqual(doc["lowering"]["batch_size"], 4)

    def test_sparse_inputs_that_agree_or_say_nothing(self):
        # y says nothing about its batch: only x counts.
        _, doc = self.pool_export((self.sparse(batch_counts=(2, 2)), self.sparse()))
        self.assertEqual(doc["lowering"]["batch_size"], 2)
        _, doc = self.pool_export((self.sparse(batch_counts=(2, 2)), self.sparse(spatial_range=(2, 1, 1, 1))))
        self.assertEqual(doc["lowering"]["batch_size"], 2)

    def test_disagreeing_sparse_inputs_are_an_error(self):
        inputs = (self.sparse(batch_counts=(2, 2)), self.sparse(spatial_range=(3, 1, 1, 1)))
        with self.assertRaisesRegex(ExportError, r"^example_inputs: sparse inputs disagree on batch size "
                                                 r"\('x': 2 batch counts, 'y': spatial_range\[0\] = 3\)$"):
            self.pool_export(inputs)
        # An explicit batch size is used as given, not checked against the inputs (step 6).
        _, doc = self.pool_export(inputs, lowering={"batch_size": 1})
        self.assertEqual(doc["lowering"]["batch_size"], 1)

    def test_no_sparse_inputs_gives_null_and_f32(self):
        _, doc = self.pool_export((torch.zeros(5, 3),))
        self.assertEqual(doc["lowering"], {"batch_size": None, "input_dtype": "f32"})
        _, doc = self.pool_export((self.sparse(),))  # sparse, but no batch_counts or spatial_range
        self.assertEqual(doc["lowering"], {"batch_size": None, "input_dtype": "f32"})

    def test_input_dtype_from_the_sparse_features(self):
        _, doc = self.pool_export((self.sparse(dtype=torch.float16, batch_counts=(1,)), torch.zeros(2, 3)))
        self.assertEqual(doc["lowering"], {"batch_size": 1, "input_dtype": "f16"})
        mixed = (self.sparse(dtype=torch.float16), self.sparse())
        with self.assertRaisesRegex(ExportError, r"^example_inputs: all sparse inputs must use one feature dtype "
                                                 r"\('x': f16, 'y': f32\)$"):
            self.pool_export(mixed)
        _, doc = self.pool_export(mixed, lowering={"input_dtype": "f32"})
        self.assertEqual(doc["lowering"]["input_dtype"], "f32")

    def test_explicit_values_win(self):
        inputs = (self.sparse(dtype=torch.float16, spatial_range=(2, 2, 1, 1), batch_counts=(2, 2)),)
        _, doc = self.pool_export(inputs, lowering={"batch_size": 5, "input_dtype": "f32", "quantize_bits": 8})
        self.assertEqual(doc["lowering"], {"batch_size": 5, "input_dtype": "f32", "quantize_bits": 8})
        # None is "not given", as in LatticeModelArtifactOptions: inferred.
        _, doc = self.pool_export(inputs, lowering={"batch_size": None, "input_dtype": None})
        self.assertEqual(doc["lowering"], {"batch_size": 2, "input_dtype": "f16"})

    def test_without_example_inputs_only_given_options_are_written(self):
        _, doc = self.pool_export(None)
        self.assertNotIn("lowering", doc)
        _, doc = self.pool_export(None, lowering={"quantize_bits": 4})
        self.assertEqual(doc["lowering"], {"quantize_bits": 4})

    def test_zero_batch_counts_is_refused(self):
        with self.assertRaisesRegex(ExportError, r"^example_inputs: the inferred batch size is 0 "):
            self.pool_export((self.sparse(batch_counts=()),))

    def test_global_pool_lowers_with_the_inferred_batch_size(self):
        path, _ = self.pool_export((self.sparse(spatial_range=(2, 2, 1, 1), batch_counts=(2, 2)),))
        out = os.path.join(self.tmp.name, "pool.lattice")
        result = support.run_cli("lower", path, "-o", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(out, "graph.mlir"), encoding="utf-8") as f:
            graph = f.read()
        self.assertRegex(graph, r"lattice\.global_pool.*batch_size = 2\b")


if __name__ == "__main__":
    support.main()
