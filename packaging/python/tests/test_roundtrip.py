"""Round trip: export torch.nn models, then `lattice-cli trace ARCHIVE` must print exactly what
torch.fx's own `symbolic_trace(model).graph` prints (same node names, ops, targets, arguments and
user counts), and `lattice-cli info ARCHIVE` must accept the archive and count the model's
modules and parameters.
"""

import json
import os
import re
import tempfile
import unittest

import support

import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F

from lattice_studio_export import export_archive


def nested_sequential():
    return nn.Sequential(
        nn.Linear(4, 8),
        nn.Sequential(nn.ReLU(), nn.Sequential(nn.Linear(8, 8), nn.Tanh())),
        nn.Linear(8, 2),
    )


class Residual(nn.Module):
    """A residual block: two linears, a learned per-channel gain (get_attr), x + f(x)."""

    def __init__(self, width):
        super().__init__()
        self.fc1 = nn.Linear(width, width)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(width, width)
        self.gamma = nn.Parameter(torch.ones(width))

    def forward(self, x):
        y = self.fc2(self.act(self.fc1(x)))
        return self.act(x + y * self.gamma)


class ResidualNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Linear(3, 8)
        self.blocks = nn.Sequential(Residual(8), Residual(8))
        self.heads = nn.ModuleList([nn.Linear(8, 2), nn.Linear(8, 2)])
        self.register_buffer("offset", torch.zeros(4))

    def forward(self, x):
        h = self.blocks(self.stem(x))
        out = torch.cat([self.heads[0](h), self.heads[1](h)], dim=-1)
        return out + self.offset, h.relu()


class Scale(nn.Module):
    """Positional, defaulted and keyword-only parameters."""

    def forward(self, x, factor=2.0, *, shift=0.5):
        return x * factor + shift


class Mix(nn.Module):
    def forward(self, a, b, weight=0.5, eps=1e-05):
        return a * weight + b * (1.0 - weight) + eps


class KeywordNet(nn.Module):
    """Defaults bound at inlining, a non-leaf and a leaf called with keyword arguments, and a
    root parameter with a default."""

    def __init__(self):
        super().__init__()
        self.scale = Scale()
        self.fc = nn.Linear(4, 4)
        self.mix = Mix()

    def forward(self, x, alpha=0.25):
        a = self.scale(x)
        b = self.scale(x, factor=3.0)
        c = self.scale(a, 1.5, shift=-1.0)
        d = self.fc(input=b)
        return self.mix(c, d, weight=alpha)


class Pair(nn.Module):
    """Returns a tuple that the caller unpacks (getitem in its one-level graph)."""

    def forward(self, x):
        return x[:, :2], x[..., 2:]


class FunctionalNet(nn.Module):
    """Functional calls with keywords, methods, getattr, slices, non-finite floats, a dict output."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 6)
        self.pair = Pair()

    def forward(self, x):
        n = x.size(0)
        y = F.relu(self.fc(x), inplace=False)
        first, second = self.pair(y)
        z = torch.flatten(y.view(n, 2, -1), 1)
        capped = torch.clamp(first, min=float("-inf"), max=6.0)
        return {"out": z * float("inf"), "pair": (capped, second.sum(dim=-1, keepdim=True)),
                "width": x.shape[1]}


MODELS = {
    "nested_sequential": nested_sequential,
    "residual": ResidualNet,
    "keywords": KeywordNet,
    "functional": FunctionalNet,
}


def info_numbers(text):
    """{'modules': N, 'parameters': elements} from `lattice-cli info` output."""
    modules = re.search(r"^modules:\s+(\d+)", text, re.M)
    parameters = re.search(r"^parameters:\s+([\d,]+) elements", text, re.M)
    return {"modules": int(modules.group(1)) if modules else None,
            "parameters": int(parameters.group(1).replace(",", "")) if parameters else None}


class RoundTrip(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def export(self, name):
        model = MODELS[name]().eval()
        path = os.path.join(self.tmp.name, name + ".ltfx")
        export_archive(model, path)
        return model, path

    def test_trace_equals_torch_fx(self):
        for name in MODELS:
            with self.subTest(model=name):
                model, path = self.export(name)
                result = support.run_cli("trace", path)
                self.assertEqual(result.returncode, 0, result.stderr)
                expected = support.torch_fx_text(torch.fx.symbolic_trace(model).graph)
                self.assertEqual(result.stdout, expected)

    def test_info_accepts_archive(self):
        for name in MODELS:
            with self.subTest(model=name):
                model, path = self.export(name)
                result = support.run_cli("info", path)
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertEqual(result.stderr, "")
                numbers = info_numbers(result.stdout)
                modules = sum(1 for _ in model.named_modules())
                elements = sum(p.numel() for p in model.parameters())
                self.assertEqual(numbers, {"modules": modules, "parameters": elements})

    def test_records_follow_the_spec(self):
        model, path = self.export("keywords")
        with open(os.path.join(path, "model.json"), encoding="utf-8") as f:
            doc = json.load(f)
        self.assertEqual(doc["format"], "lattice-fx-archive")
        self.assertEqual(doc["version"], 1)
        paths = [m["path"] for m in doc["modules"]]
        self.assertEqual(paths, ["", "scale", "fc", "mix"])
        root, scale, fc = doc["modules"][0], doc["modules"][1], doc["modules"][2]
        self.assertEqual(root["type"], __name__ + ".KeywordNet")
        self.assertEqual(root["bases"], ["torch.nn.modules.module.Module"])
        self.assertEqual(root["children"], ["scale", "fc", "mix"])
        self.assertEqual(root["signature"], [
            {"name": "x", "kind": "positional_or_keyword"},
            {"name": "alpha", "kind": "positional_or_keyword", "default": 0.25}])
        self.assertEqual(scale["signature"], [
            {"name": "x", "kind": "positional_or_keyword"},
            {"name": "factor", "kind": "positional_or_keyword", "default": 2.0},
            {"name": "shift", "kind": "keyword_only", "default": 0.5}])
        # A library leaf: no graph, attributes by the class's names, state_dict keys.
        self.assertNotIn("graph", fc)
        self.assertEqual(fc["type"], "torch.nn.modules.linear.Linear")
        self.assertEqual(fc["attributes"], {"in_features": 4, "out_features": 4})
        self.assertEqual(fc["parameters"], {
            "weight": {"key": "fc.weight", "dtype": "F32", "shape": [4, 4]},
            "bias": {"key": "fc.bias", "dtype": "F32", "shape": [4]}})
        self.assertFalse(fc["training"])
        # The leaf called with a keyword keeps it: call_module fc with kwargs {input: b}.
        calls = [n for n in root["graph"]["nodes"] if n["op"] == "call_module" and n["target"] == "fc"]
        self.assertEqual(len(calls), 1)
        self.assertEqual(calls[0]["args"], [])
        self.assertEqual(list(calls[0]["kwargs"]), ["input"])
        # Floats stay floats in the text: 2.0 is written "2.0", not "2".
        with open(os.path.join(path, "model.json"), encoding="utf-8") as f:
            self.assertRegex(f.read(), r'"default": 2\.0\b')

    def test_nonfinite_floats_are_tagged(self):
        _, path = self.export("functional")
        with open(os.path.join(path, "model.json"), encoding="utf-8") as f:
            text = f.read()
        self.assertNotIn("Infinity", text)
        doc = json.loads(text)
        clamp = [n for n in doc["modules"][0]["graph"]["nodes"] if n["target"] == "torch.clamp"][0]
        self.assertEqual(clamp["kwargs"], {"min": {"float": "-inf"}, "max": 6.0})

    def test_export_leaves_model_unchanged(self):
        model = ResidualNet().train()
        before = {k: v.clone() for k, v in model.state_dict().items()}
        attributes = set(vars(model))
        export_archive(model, os.path.join(self.tmp.name, "r.ltfx"))
        self.assertTrue(model.training)
        self.assertEqual(set(vars(model)), attributes)
        for key, value in model.state_dict().items():
            self.assertTrue(torch.equal(value, before[key]), key)


if __name__ == "__main__":
    support.main()
