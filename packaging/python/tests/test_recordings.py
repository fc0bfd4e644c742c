"""Recorded inputs and activations (fx-archive.md, top section): `export_archive(...,
record_activations=True)` and `--record-activations`.

The independent expectations are
* the node names of the C++ traced graph (`lattice-cli trace --format json`): every activation
  belongs to a node, and every node whose value is a tensor has one;
* PyTorch itself: the recorded values equal what the model's modules compute when called eagerly;
* the artifact runtime: `lattice-cli run MODEL.ltfx --inputs MODEL.ltfx/inputs.safetensors` lowers
  the archive in memory and runs it on the CPU; each of its outputs must equal the recorded value
  of the graph's output node (relative 1e-5), sparse outputs compared row by row by coordinate.
"""

import importlib
import json
import os
import struct
import sys
import tempfile
import textwrap
import unittest

import support

import torch
import torch.fx
import torch.nn as nn

from lattice_studio_export import ExportError, export_archive

_DTYPES = {"F32": torch.float32, "F16": torch.float16, "F64": torch.float64, "BF16": torch.bfloat16,
           "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8,
           "BOOL": torch.bool}

RTOL = 1e-5
# Values that are exactly 0 in one result (ReLU, padding) or cancel to ~1e-8 get this floor; every
# other value is held to RTOL.
ATOL = 1e-6


def read_safetensors(path):
    """(metadata, {key: tensor}) of a safetensors file, read here without the exporter's code."""
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    metadata = header.pop("__metadata__", None)
    tensors = {}
    for key, entry in header.items():
        begin, end = entry["data_offsets"]
        raw = bytearray(data[8 + length + begin:8 + length + end])
        dtype = _DTYPES[entry["dtype"]]
        flat = torch.frombuffer(raw, dtype=dtype) if raw else torch.empty(0, dtype=dtype)
        tensors[key] = flat.reshape(entry["shape"])
    return metadata, tensors


def scale_recorded(path, key, factor):
    """Multiplies the F32 tensor `key` of the safetensors file `path` by `factor`, in place."""
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        (length,) = struct.unpack("<Q", data[:8])
        entry = json.loads(data[8:8 + length])[key]
        assert entry["dtype"] == "F32"
        begin, end = (8 + length + offset for offset in entry["data_offsets"])
        count = (end - begin) // 4
        values = struct.unpack("<{}f".format(count), data[begin:end])
        data[begin:end] = struct.pack("<{}f".format(count), *(v * factor for v in values))
        f.seek(0)
        f.write(data)


def check_archive(archive, *args):
    """`lattice-cli check MODEL.ltfx --json` against the recorded activations: (returncode, report)."""
    result = support.run_cli("check", archive, "--json", *args)
    try:
        return result.returncode, json.loads(result.stdout)
    except ValueError:
        raise AssertionError("lattice-cli check printed no JSON (rc {}): {}".format(result.returncode, result.stderr))


def trace_nodes(archive):
    result = support.run_cli("trace", archive, "--format", "json")
    if result.returncode != 0:
        raise AssertionError("lattice-cli trace failed: " + result.stderr)
    return json.loads(result.stdout)["nodes"]


def run_archive(archive, out):
    """`lattice-cli run` on the recorded inputs; the CompletedProcess."""
    return support.run_cli("run", archive, "--inputs", os.path.join(archive, "inputs.safetensors"), "-o", out)


def node_of(key):
    return key.split(".", 1)[0]


# ---- plain torch.nn models (Debian's torch 1.13 runs them) ----


class UserReLU(nn.ReLU):
    """A user subclass of a type with a lattice lowering: a leaf for the C++ tracer (by its base)
    although torch.fx would trace into it; the activations must use the leaf's name."""


class Head(nn.Module):
    def __init__(self, width, classes):
        super().__init__()
        self.fc = nn.Linear(width, classes)
        self.act = nn.Tanh()

    def forward(self, x):
        return self.act(self.fc(x))


class MLP(nn.Module):
    """Linear, LayerNorm and activations, with an inlined submodule, a Sequential, pass-through
    modules and a user subclass of ReLU."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 16)
        self.norm = nn.LayerNorm(16)
        self.act = nn.GELU()
        self.body = nn.Sequential(nn.Linear(16, 16), nn.SiLU(), nn.Dropout(0.5), nn.Linear(16, 12),
                                  nn.LeakyReLU(0.1), nn.Identity(), nn.Linear(12, 12), nn.Sigmoid(),
                                  nn.Linear(12, 12), nn.Softplus(beta=2.0), UserReLU())
        self.head = Head(12, 5)

    def forward(self, x):
        return self.head(self.body(self.act(self.norm(self.fc(x)))))


class TwoHeads(nn.Module):
    """Two outputs: the archive's output node is a tuple (output.0, output.1), the artifact's
    outputs output_0 and output_1."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 8)
        self.norm = nn.LayerNorm(8, eps=1e-3)
        self.a = nn.Linear(8, 3)
        self.b = nn.Sequential(nn.ReLU(), nn.Linear(8, 2))

    def forward(self, x):
        h = self.norm(self.fc(x))
        return self.a(h), self.b(h)


class Classifier(nn.Module):
    """Linear, LayerNorm, activation and a softmax over the last axis."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 16)
        self.norm = nn.LayerNorm(16)
        self.act = nn.ReLU()
        self.out = nn.Linear(16, 4)

    def forward(self, x):
        return torch.softmax(self.out(self.act(self.norm(self.fc(x)))), dim=-1)


class TokenNet(nn.Module):
    """An embedding lookup followed by Linear and LayerNorm."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(20, 8)
        self.fc = nn.Linear(8, 8)
        self.norm = nn.LayerNorm(8)

    def forward(self, tokens):
        return self.norm(self.fc(self.embed(tokens)))


class Shapes(nn.Module):
    """Nodes whose values are not tensors (an int, a torch.Size), a tuple of tensors from an
    inlined module, a get_attr parameter, a method call, a defaulted parameter and a dict output."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 6)
        self.gain = nn.Parameter(torch.linspace(0.5, 1.5, 6))

    def forward(self, x, scale=2.0):
        n = x.size(0)
        shape = x.shape
        y = self.fc(x) * self.gain
        first, second = y.split(3, dim=1)
        return {"sum": first + second.relu() * scale, "rows": n, "shape": shape}


class Scaled(nn.Module):
    def forward(self, x, factor=2.0):
        gain = factor * 2  # arithmetic on an argument: a node of this module's own graph
        return x * gain


class ConstantArgument(nn.Module):
    """A submodule called with a constant: its one-level graph computes `factor * 2` as a node,
    which inlining keeps (a node `mul` whose value is the number 1.0), while a one-pass
    symbolic_trace computes the number in Python and names the next multiplications differently."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.scaled = Scaled()

    def forward(self, x):
        return self.scaled(self.fc(x), 0.5) * 3.0


def seeded(factory, seed=0):
    torch.manual_seed(seed)
    model = factory()
    for module in model.modules():  # non-trivial norm parameters
        if isinstance(module, nn.LayerNorm):
            with torch.no_grad():
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.5, 0.5)
    return model.eval()


class Recordings(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def export(self, model, inputs, name="model.ltfx", **kwargs):
        path = os.path.join(self.tmp.name, name)
        export_archive(model, path, example_inputs=inputs, record_activations=True, **kwargs)
        return path

    def assert_close(self, actual, expected, what):
        self.assertEqual(tuple(actual.shape), tuple(expected.shape), what)
        self.assertEqual(actual.dtype, expected.dtype, what)
        a, e = actual.double(), expected.double()
        excess = (a - e).abs() - (ATOL + RTOL * e.abs())
        if excess.numel() and float(excess.max()) > 0:
            worst = int(excess.flatten().argmax())
            self.fail("{}: element {} is {!r}, expected {!r} (rtol {}, atol {})".format(
                what, worst, float(a.flatten()[worst]), float(e.flatten()[worst]), RTOL, ATOL))

    def assert_runtime_agrees(self, path, outputs):
        """Runs the archive with lattice-cli; `outputs` maps the runtime's output name to
        (recorded name, sparse): the recorded value's name, or a sparse value's stem."""
        out = os.path.join(self.tmp.name, "out.safetensors")
        result = run_archive(path, out)
        self.assertEqual(result.returncode, 0, result.stderr)
        _, produced = read_safetensors(out)
        _, recorded = read_safetensors(os.path.join(path, "activations.safetensors"))
        for runtime_name, (recorded_name, sparse) in outputs.items():
            if sparse:
                self.assert_sparse_equal(produced, runtime_name, recorded, recorded_name)
            else:
                self.assert_close(produced[runtime_name], recorded[recorded_name],
                                  "runtime {} vs recorded {}".format(runtime_name, recorded_name))
        expected_keys = set()
        for runtime_name, (_, sparse) in outputs.items():
            expected_keys |= ({runtime_name + suffix for suffix in (".coords", ".features", ".active")}
                              if sparse else {runtime_name})
        self.assertEqual(set(produced), expected_keys)

    def assert_sparse_equal(self, produced, runtime_name, recorded, recorded_name):
        """Active rows equal, the same coordinates, and per coordinate the same features."""
        rows = int(recorded[recorded_name + ".active"][0])
        self.assertEqual(int(produced[runtime_name + ".active"][0]), rows, runtime_name)

        def by_coordinate(tensors, stem):
            coords = tensors[stem + ".coords"][:rows].tolist()
            features = tensors[stem + ".features"][:rows]
            order = sorted(range(rows), key=lambda r: coords[r])
            return [tuple(coords[r]) for r in order], features[order]

        coords_a, features_a = by_coordinate(produced, runtime_name)
        coords_e, features_e = by_coordinate(recorded, recorded_name)
        self.assertEqual(coords_a, coords_e, runtime_name + ": coordinates")
        self.assertEqual(len(set(coords_e)), rows, "duplicate coordinates in " + recorded_name)
        self.assert_close(features_a, features_e, "runtime {} vs recorded {} (rows by coordinate)".format(
            runtime_name, recorded_name))

    # -- names --

    def assert_names_are_traced_nodes(self, path, not_tensors=()):
        """Every activation belongs to a node of lattice-cli's traced graph and every node (but
        `not_tensors`, whose values are not tensors) has activations."""
        nodes = [node["name"] for node in trace_nodes(path)]
        _, activations = read_safetensors(os.path.join(path, "activations.safetensors"))
        recorded = {node_of(key) for key in activations}
        self.assertEqual(recorded - set(nodes), set(), "activations of no traced node")
        self.assertEqual(set(nodes) - recorded, set(not_tensors), "traced nodes without activations")
        return nodes, activations

    def test_mlp_names_values_and_runtime(self):
        model = seeded(MLP)
        x = torch.randn(7, 6)
        path = self.export(model, (x,))
        nodes, activations = self.assert_names_are_traced_nodes(path)
        # The C++ tracer keeps torch.nn modules and UserReLU (its base has a lowering) as leaves,
        # inlines the Sequential and Head (named by full path, as torch.fx names them).
        self.assertEqual(nodes, ["x", "fc", "norm", "act", "body_0", "body_1", "body_2", "body_3", "body_4",
                                 "body_5", "body_6", "body_7", "body_8", "body_9", "body_10", "head_fc",
                                 "head_act", "output"])
        self.assertEqual(sorted(activations), sorted(nodes))
        # PyTorch, eagerly: the values are what the modules compute.
        with torch.no_grad():
            fc = model.fc(x)
            self.assertTrue(torch.equal(activations["x"], x))
            self.assertTrue(torch.equal(activations["fc"], fc))
            self.assertTrue(torch.equal(activations["norm"], model.norm(fc)))
            self.assertTrue(torch.equal(activations["body_10"], model.body(model.act(model.norm(fc)))))
            self.assertTrue(torch.equal(activations["output"], model(x)))
        self.assert_runtime_agrees(path, {"output": ("output", False)})

    def test_check_against_the_recording(self):
        # `lattice-cli check MODEL.ltfx`: every node with a value in the artifact is compared with
        # what PyTorch recorded for it, in data-flow order; PyTorch and the runtime agree on all.
        path = self.export(seeded(MLP), (torch.randn(7, 6),))
        code, report = check_archive(path)
        self.assertEqual(code, 0, report)
        names = [node["name"] for node in report["nodes"]]
        self.assertEqual(names, [node["name"] for node in trace_nodes(path)])
        self.assertTrue(report["within_tolerance"])
        self.assertIsNone(report["first_divergent"])
        for node in report["nodes"]:
            self.assertLessEqual(node["rel_l2"], 1e-5, node)
        text = support.run_cli("check", path)
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertIn("every recorded node within tolerance", text.stdout)

        # A recording that disagrees at `norm` (and only there: the runtime computes every later
        # node from its own values) makes `norm` the first divergent node, and the exit code 1.
        scale_recorded(os.path.join(path, "activations.safetensors"), "norm", 1.5)
        code, report = check_archive(path)
        self.assertEqual(code, 1, report)
        self.assertEqual(report["first_divergent"]["name"], "norm")
        exceeding = [node["name"] for node in report["nodes"] if node["exceeds"]]
        self.assertEqual(exceeding, ["norm"])
        norm = next(node for node in report["nodes"] if node["name"] == "norm")
        self.assertAlmostEqual(norm["rel_l2"], 1 / 3, places=5)  # |x - 1.5x| / |1.5x|
        self.assertIn("first divergent node: norm", support.run_cli("check", path).stdout)

    def test_check_needs_a_recording(self):
        path = os.path.join(self.tmp.name, "plain.ltfx")
        export_archive(seeded(MLP), path, example_inputs=(torch.randn(3, 6),))
        result = support.run_cli("check", path)
        self.assertEqual(result.returncode, 2)
        self.assertIn("--record-activations", result.stderr)

    def test_tuple_output(self):
        model = seeded(TwoHeads, seed=1)
        path = self.export(model, torch.randn(5, 4))
        _, activations = self.assert_names_are_traced_nodes(path)
        self.assertIn("output.0", activations)
        self.assertIn("output.1", activations)
        self.assertNotIn("output", activations)
        with torch.no_grad():
            a, b = model(activations["x"])
        self.assertTrue(torch.equal(activations["output.0"], a))
        self.assertTrue(torch.equal(activations["output.1"], b))
        self.assert_runtime_agrees(path, {"output_0": ("output.0", False), "output_1": ("output.1", False)})

    def test_softmax(self):
        model = seeded(Classifier, seed=2)
        x = torch.randn(6, 8) * 3
        path = self.export(model, (x,))
        _, activations = self.assert_names_are_traced_nodes(path)
        self.assertIn("softmax", activations)
        self.assertTrue(torch.equal(activations["output"], activations["softmax"]))
        with torch.no_grad():
            self.assertTrue(torch.equal(activations["softmax"], model(x)))
        # The reference lowering (lowering.md §4) has no rule for torch.softmax: recording works, the
        # artifact cannot be made, with the reference's message.
        self.assert_not_lowered(path, "unsupported FX function for lattice artifact: torch.softmax")

    def test_embedding(self):
        model = seeded(TokenNet, seed=3)
        tokens = torch.tensor([3, 0, 19, 7, 7, 12], dtype=torch.int64)
        path = self.export(model, {"tokens": tokens})
        _, activations = self.assert_names_are_traced_nodes(path)
        _, inputs = read_safetensors(os.path.join(path, "inputs.safetensors"))
        self.assertEqual(list(inputs), ["tokens"])
        self.assertTrue(torch.equal(inputs["tokens"], tokens))
        self.assertTrue(torch.equal(activations["embed"], model.embed.weight[tokens].detach()))
        # Nor for nn.Embedding (lowering.md §3.3 lists the module lowerings).
        self.assert_not_lowered(path, "unsupported module for lattice artifact: Embedding")

    def assert_not_lowered(self, path, message):
        result = run_archive(path, os.path.join(self.tmp.name, "out.safetensors"))
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn(message, result.stderr)

    def test_values_that_are_not_tensors_are_not_stored(self):
        model = seeded(Shapes)
        path = self.export(model, (torch.randn(3, 4),))
        # size and getattr (the shape) give an int and a torch.Size, the placeholder `scale` its default
        # 2.0; the dict output is not stored.
        nodes, activations = self.assert_names_are_traced_nodes(
            path, not_tensors={"size", "getattr_1", "scale", "output"})
        self.assertIn("gain", activations)  # a get_attr node is a node
        self.assertTrue(torch.equal(activations["gain"], model.gain.detach()))
        self.assertIn("split", nodes)
        self.assertEqual(sorted(k for k in activations if node_of(k) == "split"), ["split.0", "split.1"])
        # The defaulted parameter `scale` is a placeholder whose value (2.0) is a number.
        self.assertNotIn("scale", activations)
        _, inputs = read_safetensors(os.path.join(path, "inputs.safetensors"))
        self.assertEqual(list(inputs), ["x"])

    def test_names_follow_the_archive_not_a_one_pass_trace(self):
        model = seeded(ConstantArgument)
        x = torch.randn(4, 3)
        path = self.export(model, (x,))
        nodes, activations = self.assert_names_are_traced_nodes(path, not_tensors={"mul"})
        self.assertEqual(nodes, ["x", "fc", "mul", "mul_1", "mul_2", "output"])
        one_pass = [node.name for node in torch.fx.symbolic_trace(model).graph.nodes]
        self.assertEqual(one_pass, ["x", "fc", "mul", "mul_1", "output"])  # the reason for the test
        with torch.no_grad():
            self.assertTrue(torch.equal(activations["mul_1"], model.fc(x) * 1.0))
            self.assertTrue(torch.equal(activations["output"], model(x)))

    def test_round_trip_models(self):
        """test_roundtrip.py's models (keywords and defaults bound at inlining, a submodule's tuple
        unpacked, methods, slices, a dict output): names are the traced graph's; the nodes without
        activations are those whose values are numbers, shapes or a dict."""
        import test_roundtrip  # noqa: E402 - the models only
        cases = {
            "nested_sequential": (torch.randn(3, 4), set()),
            "residual": (torch.randn(3, 3), set()),
            "keywords": (torch.randn(3, 4), {"alpha", "sub"}),  # alpha=0.25, 1.0 - weight
            "functional": (torch.randn(3, 4), {"size", "getattr_1", "getitem_2", "output"}),
        }
        for name, (x, not_tensors) in cases.items():
            with self.subTest(model=name):
                model = seeded(test_roundtrip.MODELS[name])
                path = self.export(model, (x,), name=name + ".ltfx")
                _, activations = self.assert_names_are_traced_nodes(path, not_tensors)
                with torch.no_grad():
                    expected = model(x)
                if name == "residual":
                    self.assertTrue(torch.equal(activations["output.0"], expected[0]))
                    self.assertTrue(torch.equal(activations["output.1"], expected[1]))
                elif name != "functional":
                    self.assertTrue(torch.equal(activations["output"], expected))

    # -- files, metadata, determinism --

    def test_metadata_and_determinism(self):
        model = seeded(TwoHeads)
        x = torch.randn(4, 4)
        first = self.export(model, (x,), name="a.ltfx")
        second = self.export(model, (x,), name="b.ltfx")
        for name in ("model.json", "weights.safetensors", "inputs.safetensors", "activations.safetensors"):
            with open(os.path.join(first, name), "rb") as a, open(os.path.join(second, name), "rb") as b:
                self.assertEqual(a.read(), b.read(), name)
        for name in ("inputs.safetensors", "activations.safetensors"):
            metadata, _ = read_safetensors(os.path.join(first, name))
            # "coords": "physical": recorded sparse coordinates are in the artifact's units (docs/spec-notes.md).
            self.assertEqual(metadata, {"producer": "lattice_studio_export 0.1.0", "torch": torch.__version__,
                                        "device": "cpu", "coords": "physical"})

    def test_without_the_flag_nothing_changes(self):
        model = seeded(TwoHeads)
        x = torch.randn(4, 4)
        plain = os.path.join(self.tmp.name, "plain.ltfx")
        export_archive(model, plain, example_inputs=(x,))
        self.assertEqual(sorted(os.listdir(plain)), ["model.json", "weights.safetensors"])
        recorded = self.export(model, (x,), name="recorded.ltfx")
        self.assertEqual(sorted(os.listdir(recorded)), ["activations.safetensors", "inputs.safetensors",
                                                        "model.json", "weights.safetensors"])
        for name in ("model.json", "weights.safetensors"):
            with open(os.path.join(plain, name), "rb") as a, open(os.path.join(recorded, name), "rb") as b:
                self.assertEqual(a.read(), b.read(), name)
        # Exporting again without recording removes the values recorded before.
        export_archive(model, recorded, example_inputs=(x,))
        self.assertEqual(sorted(os.listdir(recorded)), ["model.json", "weights.safetensors"])

    def test_model_is_left_unchanged(self):
        model = seeded(MLP)
        before = {k: v.clone() for k, v in model.state_dict().items()}
        attributes = set(vars(model))
        self.export(model, (torch.randn(2, 6),))
        self.assertEqual(set(vars(model)), attributes)
        self.assertFalse(model.training)
        for key, value in model.state_dict().items():
            self.assertTrue(torch.equal(value, before[key]), key)

    # -- errors --

    def test_errors(self):
        model = seeded(TwoHeads)
        path = os.path.join(self.tmp.name, "err.ltfx")
        with self.assertRaisesRegex(ExportError, r"^record_activations needs example inputs: pass "
                                                 r"example_inputs=\(\.\.\.\)"):
            export_archive(model, path, record_activations=True)
        with self.assertRaisesRegex(ExportError, r"^record_activations: module 'b' \(Sequential\) is in "
                                                 r"training mode; call model\.eval\(\) first"):
            model.b.train()
            export_archive(model, path, example_inputs=(torch.zeros(2, 4),), record_activations=True)
        model.eval()
        with self.assertRaisesRegex(ExportError, r"^record_activations: running node 'fc' \(call_module fc\) "
                                                 r"failed: RuntimeError: "):
            export_archive(model, path, example_inputs=(torch.zeros(2, 5),), record_activations=True)
        self.assertFalse(os.path.exists(path))
        with self.assertRaisesRegex(ExportError, r"^record_activations: example_inputs has no value for "
                                                 r"parameter 'b' of the root forward"):
            class Two(nn.Module):
                def forward(self, a, b):
                    return a + b
            export_archive(Two().eval(), path, example_inputs={"a": torch.zeros(2)}, record_activations=True)

    def test_cli(self):
        with open(os.path.join(self.tmp.name, "net.py"), "w", encoding="utf-8") as f:
            f.write(textwrap.dedent("""
                import torch
                from torch import nn

                def build():
                    torch.manual_seed(0)
                    return nn.Sequential(nn.Linear(3, 4), nn.LayerNorm(4), nn.Tanh())

                def inputs():
                    return (torch.arange(6, dtype=torch.float32).reshape(2, 3),)
                """))
        out = os.path.join(self.tmp.name, "cli.ltfx")
        result = support.run_exporter("net.py:build", "-o", out, "--inputs", "net.py:inputs",
                                      "--record-activations", cwd=self.tmp.name)
        self.assertEqual(result.returncode, 0, result.stderr)
        _, activations = read_safetensors(os.path.join(out, "activations.safetensors"))
        self.assertEqual(sorted(activations), ["_0", "_1", "_2", "input_1", "output"])
        self.assert_runtime_agrees(out, {"output": ("output", False)})

        result = support.run_exporter("net.py:build", "-o", out, "--record-activations", cwd=self.tmp.name)
        self.assertEqual(result.returncode, 2)
        self.assertIn("--record-activations needs --inputs FILE|module:NAME", result.stderr)
        result = support.run_exporter("net.py:build", "-o", out, "--inputs", "net.py:inputs", "--train",
                                      "--record-activations", cwd=self.tmp.name)
        self.assertEqual(result.returncode, 2)


# ---- torch-lattice stub with real semantics (sparse) ----

# A minimal `torch_lattice` whose few modules and functions compute what lattice-artifact-
# validation.md §10 says the artifact ops compute (submanifold convolution with kernel rows z
# fastest and centred offsets, batch norm and layer norm per row, ReLU, global average pool per
# batch, outer sparse add), written from the spec, not from the runtime.
STUB = {
    "torch_lattice/__init__.py": """
        from .operators import cat, sparse_add
        from .tensor import SparseTensor
        from . import nn, operators
    """,
    "torch_lattice/tensor.py": """
        class SparseTensor:
            def __init__(self, feats, coords, stride=1, spatial_range=None, batch_counts=None):
                self.feats = feats
                self.coords = coords
                self.stride = stride
                self.spatial_range = spatial_range
                self.batch_counts = batch_counts

            def replace(self, feats):
                return SparseTensor(feats, self.coords, self.stride, self.spatial_range, self.batch_counts)
    """,
    "torch_lattice/operators.py": """
        import torch


        def _rows(x):
            return {tuple(c): i for i, c in enumerate(x.coords.tolist())}


        def sparse_add(a, b):
            # join outer: every lhs row (lhs order), then the rhs rows not in lhs; missing side 0.
            rows_b = _rows(b)
            coords = a.coords.tolist()
            feats = [a.feats[i] + (b.feats[rows_b[tuple(c)]] if tuple(c) in rows_b else 0)
                     for i, c in enumerate(coords)]
            rows_a = _rows(a)
            for j, c in enumerate(b.coords.tolist()):
                if tuple(c) not in rows_a:
                    coords.append(c)
                    feats.append(b.feats[j])
            return a.__class__(torch.stack(feats), torch.tensor(coords, dtype=torch.int32), a.stride,
                               a.spatial_range, a.batch_counts)


        def cat(inputs):
            raise NotImplementedError("not used here")
    """,
    "torch_lattice/nn/__init__.py": """
        from . import functional
        from .modules.activation import ReLU
        from .modules.conv import SubmConv3d
        from .modules.norm import BatchNorm, LayerNorm
        from .modules.pooling import GlobalAvgPool
    """,
    "torch_lattice/nn/functional/__init__.py": "",
    "torch_lattice/nn/modules/__init__.py": "",
    "torch_lattice/nn/modules/conv.py": """
        import torch
        from torch import nn


        class SubmConv3d(nn.Module):
            def __init__(self, in_channels, out_channels, kernel_size=3, dilation=1, bias=True):
                super().__init__()
                self.in_channels = in_channels
                self.out_channels = out_channels
                self.kernel_size = (kernel_size,) * 3
                self.dilation = (dilation,) * 3
                volume = kernel_size ** 3
                self.weight = nn.Parameter(torch.randn(volume, in_channels, out_channels) / (volume * in_channels) ** 0.5)
                self.bias = nn.Parameter(torch.randn(out_channels) * 0.1) if bias else None

            def forward(self, input):
                stride = (input.stride,) * 3 if isinstance(input.stride, int) else tuple(input.stride)
                coords = input.coords.tolist()
                rows = {tuple(c): i for i, c in enumerate(coords)}
                out = torch.zeros(len(coords), self.out_channels, dtype=input.feats.dtype)
                kx, ky, kz = self.kernel_size
                k = 0
                for px in range(kx):
                    for py in range(ky):
                        for pz in range(kz):
                            offset = [(p - size // 2) * d * s for p, size, d, s in
                                      zip((px, py, pz), self.kernel_size, self.dilation, stride)]
                            pairs = [(o, rows.get((c[0], c[1] + offset[0], c[2] + offset[1], c[3] + offset[2])))
                                     for o, c in enumerate(coords)]
                            pairs = [(o, i) for o, i in pairs if i is not None]
                            if pairs:
                                o, i = zip(*pairs)
                                out.index_add_(0, torch.tensor(o), input.feats[list(i)] @ self.weight[k])
                            k += 1
                if self.bias is not None:
                    out = out + self.bias
                return input.replace(out)
    """,
    "torch_lattice/nn/modules/norm.py": """
        import torch.nn.functional as F
        from torch import nn


        class BatchNorm(nn.BatchNorm1d):
            def forward(self, input):
                return input.replace(F.batch_norm(input.feats, self.running_mean, self.running_var, self.weight,
                                                  self.bias, False, 0.0, self.eps))


        class LayerNorm(nn.LayerNorm):
            def forward(self, input):
                return input.replace(F.layer_norm(input.feats, self.normalized_shape, self.weight, self.bias,
                                                  self.eps))
    """,
    "torch_lattice/nn/modules/activation.py": """
        from torch import nn


        class ReLU(nn.ReLU):
            def forward(self, input):
                return input.replace(input.feats.relu())
    """,
    "torch_lattice/nn/modules/pooling.py": """
        import torch
        from torch import nn


        class GlobalAvgPool(nn.Module):
            def forward(self, input, *, batch_size=None):
                batches = len(input.batch_counts)
                batch = input.coords[:, 0].long()
                total = torch.zeros(batches, input.feats.shape[1], dtype=input.feats.dtype)
                total.index_add_(0, batch, input.feats)
                count = torch.bincount(batch, minlength=batches).clamp(min=1).to(total.dtype)
                return total / count[:, None]
    """,
    "sparse_user_model.py": """
        import torch
        import torch_lattice
        from torch import nn


        class Block(nn.Module):
            def __init__(self, channels):
                super().__init__()
                self.conv = torch_lattice.nn.SubmConv3d(channels, channels, kernel_size=1)
                self.norm = torch_lattice.nn.LayerNorm(channels)

            def forward(self, x):
                return torch_lattice.sparse_add(x, self.norm(self.conv(x)))


        class SparseNet(nn.Module):
            def __init__(self):
                super().__init__()
                self.stem = torch_lattice.nn.SubmConv3d(3, 8, kernel_size=3)
                self.bn = torch_lattice.nn.BatchNorm(8)
                self.act = torch_lattice.nn.ReLU()
                self.block = Block(8)
                self.pool = torch_lattice.nn.GlobalAvgPool()
                self.fc = nn.Linear(8, 2)

            def forward(self, x):
                h = self.block(self.act(self.bn(self.stem(x))))
                return h, self.fc(self.pool(h))
    """,
}


class SparseStub(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = support.install_modules(STUB)
        cls.tl = importlib.import_module("torch_lattice")
        cls.user = importlib.import_module("sparse_user_model")

    @classmethod
    def tearDownClass(cls):
        support.remove_modules(cls.tmp, ["torch_lattice", "sparse_user_model"])

    def sparse_input(self):
        """Two batches of points in a small grid, unique coordinates, 3 channels."""
        generator = torch.Generator().manual_seed(5)
        picked = torch.randperm(2 * 4 * 4 * 3, generator=generator)[:40]
        coords = torch.stack([picked // 48, picked // 12 % 4, picked // 3 % 4, picked % 3], dim=1).to(torch.int32)
        feats = torch.randn(40, 3, generator=generator)
        counts = [int((coords[:, 0] == b).sum()) for b in range(2)]
        return self.tl.SparseTensor(feats, coords, stride=1, batch_counts=counts)

    def model(self):
        torch.manual_seed(11)
        model = self.user.SparseNet()
        with torch.no_grad():
            model.bn.running_mean.uniform_(-0.5, 0.5)
            model.bn.running_var.uniform_(0.5, 2.0)
            model.bn.weight.uniform_(0.5, 1.5)
            model.bn.bias.uniform_(-0.3, 0.3)
        return model.eval()

    def test_sparse_names_and_runtime(self):
        x = self.sparse_input()
        path = os.path.join(self.tmp.name, "sparse.ltfx")
        export_archive(self.model(), path, example_inputs=(x,), record_activations=True)
        with open(os.path.join(path, "model.json"), encoding="utf-8") as f:
            self.assertEqual(json.load(f)["lowering"], {"batch_size": 2, "input_dtype": "f32"})

        _, inputs = read_safetensors(os.path.join(path, "inputs.safetensors"))
        self.assertEqual(sorted(inputs), ["x_active", "x_coords", "x_features"])
        self.assertTrue(torch.equal(inputs["x_coords"], x.coords))
        self.assertTrue(torch.equal(inputs["x_features"], x.feats))
        self.assertEqual(inputs["x_active"].tolist(), [40])
        self.assertEqual(inputs["x_active"].dtype, torch.int32)

        nodes = [node["name"] for node in trace_nodes(path)]
        self.assertEqual(nodes, ["x", "stem", "bn", "act", "block_conv", "block_norm", "sparse_add", "pool", "fc",
                                 "output"])
        _, activations = read_safetensors(os.path.join(path, "activations.safetensors"))
        expected = []
        for node in ("x", "stem", "bn", "act", "block_conv", "block_norm", "sparse_add", "output.0"):
            expected += [node + ".active", node + ".coords", node + ".features"]
        expected += ["fc", "output.1", "pool"]
        self.assertEqual(sorted(activations), sorted(expected))
        self.assertEqual(activations["stem.coords"].dtype, torch.int32)
        self.assertTrue(torch.equal(activations["output.1"], activations["fc"]))

        self.runtime_agrees(path)
        # Sparse values compared by coordinate, node by node.
        code, report = check_archive(path)
        self.assertEqual(code, 0, report)
        self.assertEqual([node["name"] for node in report["nodes"]],
                         ["x", "stem", "bn", "act", "block_conv", "block_norm", "sparse_add", "pool", "fc",
                          "output.0", "output.1"])

    def runtime_agrees(self, path):
        Recordings.assert_runtime_agrees(self, path, {"output_0": ("output.0", True), "output_1": ("output.1", False)})

    assert_close = Recordings.assert_close
    assert_sparse_equal = Recordings.assert_sparse_equal


if __name__ == "__main__":
    support.main()
