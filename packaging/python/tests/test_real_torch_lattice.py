"""The real torch-lattice as the judge: models built from its own modules run its own forward pass
(C++ CPU kernels, ``../shared/torch-lattice-cpu``), are exported with ``record_activations=True``,
and ``lattice-cli check MODEL.ltfx`` compares every recorded node with what the artifact's runtime
computes.

Expectations, none of them our own code's output:
* torch-lattice's values, recorded by its own forward pass;
* the recorded coordinates are physical: torch-lattice's own coords times the tensor's stride;
* where torch-lattice and the artifact mean different things by design (docs/trainer-
  differences.md), the row counts ``check`` reports for both sides equal the counts worked out
  here from each side's rule (spconv-style output support for the trainer, floor support for the
  artifact, validation spec §10.3), and the rows both sides have agree.

Tolerance: relative L2 ≤ 1e-5 per node. Both sides compute in f32 and differ only in the order of
their sums (measured ≤ 3e-7 on every node of both backbones); a wrong offset, weight layout or
norm rule gives errors of order 1, so 1e-5 separates the two by five orders of magnitude.

Skipped (exit 77, with the reason) when the real torch-lattice is not there: a user's fresh clone
has no ``../shared``. CI has it.
"""

import json
import os
import shutil
import sys
import tempfile
import unittest

import support

import torch

import real_torch_lattice as real

TL, WHY = real.load()
if TL is None:
    print("skipped: " + WHY)
    sys.exit(support.SKIP_EXIT_CODE)

from lattice_studio_export import export_archive, safetensors  # noqa: E402

from test_recordings import read_safetensors  # noqa: E402

TOLERANCE = 1e-5
# torch-lattice's per-row OpenMP regions are slowest with several threads on a loaded machine.
torch.set_num_threads(1)


def check(archive):
    """`lattice-cli check ARCHIVE --json --tolerance 1e-5`: (exit code, report)."""
    result = support.run_cli("check", archive, "--json", "--tolerance", str(TOLERANCE))
    try:
        return result.returncode, json.loads(result.stdout)
    except ValueError:
        raise AssertionError("lattice-cli check printed no JSON (rc {}): {}".format(result.returncode, result.stderr))


class RealTorchLattice(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.models = real.families(TL)
        cls.models.update(real.backbones(TL))
        cls.inputs = {}
        cls.archives = {}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def export(self, name):
        if name not in self.archives:
            model = real.randomize(self.models[name], seed=sorted(self.models).index(name))
            x = real.sparse_input(TL, 4, extent=62 if name == "edge" else 63)
            path = os.path.join(self.tmp.name, name + ".ltfx")
            export_archive(model, path, example_inputs=(x,), record_activations=True)
            self.inputs[name] = x
            self.archives[name] = path
        return self.archives[name]

    def assert_every_node_compared(self, report, name):
        """Every recorded node was compared (all rows, or the rows both sides have), and every node
        over the tolerance is explained by a named difference, here or upstream."""
        self.assertTrue(report["nodes"], name)
        for node in report["nodes"]:
            self.assertTrue(node["compared"], "{}: {} not compared: {}".format(name, node["name"], node.get("problem")))
            if node["exceeds"]:
                self.assertTrue("difference" in node or "inherited_from" in node,
                                "{}: {} diverges unexplained: {}".format(name, node["name"], node))
        self.assertIsNone(report["first_divergent"], name)

    def assert_matches(self, name):
        code, report = check(self.export(name))
        self.assertEqual(code, 0, "{}: {}".format(name, report.get("first_divergent")))
        self.assert_every_node_compared(report, name)
        self.assertTrue(report["within_tolerance"])
        self.assertEqual(report["differences"], [])
        return report

    def differences(self, name):
        code, report = check(self.export(name))
        self.assert_every_node_compared(report, name)
        self.assertEqual(code, 3, name)
        self.assertTrue(report["only_known_differences"])
        return report, {d["node"]: d["rule"] for d in report["differences"]}

    def node(self, report, name):
        return next(n for n in report["nodes"] if n["name"] == name)

    # ---- families where torch-lattice and the artifact mean the same thing ----

    def test_norms(self):
        self.assert_matches("norms")

    def test_activations(self):
        self.assert_matches("activations")

    def test_binary_and_cat(self):
        self.assert_matches("binary")

    def test_global_pool(self):
        self.assert_matches("global_pool")

    def test_even_kernel_pools(self):
        report = self.assert_matches("pools")
        self.assertEqual([n["name"] for n in report["nodes"]], ["x", "maxpool", "avgpool", "sumpool", "output"])

    def test_generative_transposed(self):
        self.assert_matches("generative")

    # ---- recorded units ----

    def test_recorded_coords_are_physical(self):
        archive = self.export("strided")
        metadata, activations = read_safetensors(os.path.join(archive, "activations.safetensors"))
        self.assertEqual(metadata.get("coords"), "physical")
        model, x = self.models["strided"], self.inputs["strided"]
        with torch.no_grad():
            y = model.down2(x)
            z = model.down3(y)
        for value, key in ((y, "down2"), (z, "down3")):
            stride = torch.tensor(value.stride, dtype=torch.int32)
            self.assertGreater(int(stride.min()), 1)
            expected = value.coords.clone()
            expected[:, 1:] *= stride
            self.assertTrue(torch.equal(activations[key + ".coords"], expected), key)

    def test_older_recordings_are_read_in_their_own_units(self):
        # What the exporter wrote before coordinates were physical: torch-lattice's own coords and
        # no "coords" metadata. check warns, names the file, and compares them in those units.
        archive = self.export("strided")
        legacy = os.path.join(self.tmp.name, "strided_legacy.ltfx")
        shutil.copytree(archive, legacy)
        metadata, activations = read_safetensors(os.path.join(archive, "activations.safetensors"))
        model, x = self.models["strided"], self.inputs["strided"]
        with torch.no_grad():
            y = model.down2(x)
            z = model.down3(y)
            out = model.subm(z)
        for key, value in (("down2", y), ("down3", z), ("subm", out), ("output", out)):
            activations[key + ".coords"] = value.coords.to(torch.int32)
        del metadata["coords"]
        safetensors.write(os.path.join(legacy, "activations.safetensors"), activations, metadata)
        code, report = check(legacy)
        _, current = check(archive)
        self.assertEqual(code, 3)
        self.assertTrue(any("activations.safetensors" in w and "older exporter" in w for w in report["warnings"]),
                        report["warnings"])
        self.assertEqual([(n["name"], n["rel_l2"], n.get("common_rows")) for n in report["nodes"]],
                         [(n["name"], n["rel_l2"], n.get("common_rows")) for n in current["nodes"]])

    # ---- differences by design, each against the row counts of both rules ----

    def test_strided_odd_kernel(self):
        report, rules = self.differences("strided")
        self.assertEqual(rules, {"down3": "forward-support"})
        self.assertEqual(self.node(report, "down2")["exceeds"], False)
        self.assertEqual(self.node(report, "subm")["inherited_from"], "down3")
        # The two rules for k=3 s=2 p=0 on down2's output (its own units).
        with torch.no_grad():
            coords = self.models["strided"].down2(self.inputs["strided"]).coords
        node = self.node(report, "down3")
        self.assertEqual(node["recorded_rows"], len(spconv_support(coords, 3, 2, 0, clip=True)))
        self.assertEqual(node["rows"], len(floor_support(coords, 2)))
        common = spconv_support(coords, 3, 2, 0, clip=True) & floor_support(coords, 2)
        self.assertEqual(node["common_rows"], len(common))

    def test_odd_kernel_max_pool(self):
        report, rules = self.differences("odd_pool")
        self.assertEqual(rules, {"pool": "forward-support"})
        node = self.node(report, "pool")
        coords = self.inputs["odd_pool"].coords
        self.assertEqual(node["recorded_rows"], len(spconv_support(coords, 3, 2, 1, clip=False)))
        self.assertEqual(node["rows"], len(floor_support(coords, 2)))

    def test_transposed_returns_to_the_earlier_support(self):
        report, rules = self.differences("transposed")
        self.assertEqual(rules, {"up": "transposed-support"})
        node = self.node(report, "up")
        x = self.inputs["transposed"]
        # torch-lattice: the support of the input the downsampling came from; the artifact: every
        # child (source * 2 + offset, offset in {0, 1}³) of the downsampled voxels.
        down = floor_support(x.coords, 2)
        self.assertEqual(node["recorded_rows"], len(x.coords))
        self.assertEqual(node["rows"], len(down) * 8)
        self.assertEqual(node["common_rows"], len(x.coords))
        self.assertLessEqual(node["rel_l2"], TOLERANCE)

    def test_target_coordinates_offsets(self):
        report, rules = self.differences("target")
        self.assertEqual(rules, {"onto": "target-offsets"})
        node = self.node(report, "onto")
        self.assertEqual(node["rows"], node["recorded_rows"])
        self.assertEqual(node["rows"], node["common_rows"])

    def test_strided_conv_drops_rows_past_the_range(self):
        # An input whose largest y is even: torch-lattice's k2 s2 Conv3d drops the top cells
        # ((max + 2p - (k - 1)) // s), the artifact keeps floor(u / 2) of every row.
        report, rules = self.differences("edge")
        self.assertEqual(rules, {"down": "spatial-range"})
        node = self.node(report, "down")
        coords = self.inputs["edge"].coords
        self.assertEqual(node["recorded_rows"], len(spconv_support(coords, 2, 2, 0, clip=True)))
        self.assertEqual(node["rows"], len(floor_support(coords, 2)))
        self.assertEqual(node["common_rows"], node["recorded_rows"])
        self.assertLessEqual(node["rel_l2"], TOLERANCE)

    # ---- the backbones ----

    def test_sparse_resnet21d(self):
        report, rules = self.differences("sparse_resnet21d")
        self.assertTrue(rules)
        self.assertEqual(set(rules.values()), {"forward-support"})
        self.assertGreater(len(report["nodes"]), 50)

    def test_sparse_resunet42(self):
        code, report = check(self.export("sparse_resunet42"))
        self.assert_every_node_compared(report, "sparse_resunet42")
        self.assertIn(code, (0, 3))
        self.assertGreater(len(report["nodes"]), 100)
        for d in report["differences"]:
            self.assertEqual(d["rule"], "transposed-support", d)


def spconv_support(coords, k, s, p, clip):
    """torch-lattice's output support of a non-submanifold k s p conv or pool (its own units;
    torch-lattice sparsemapping_cuda.cu downsample_grid_kmap_stage1, nn/functional/relation.py):
    every o >= 0 with o*s - p + j = u for an input u and some j in 0..k-1, per axis; a Conv3d
    (`clip`) also drops o > (max u + 2p - (k - 1)) // s, max over all rows per axis."""
    rows = coords.tolist()
    limits = [(max(r[a + 1] for r in rows) + 2 * p - (k - 1)) // s for a in range(3)]
    out = set()
    for b, *u in rows:
        ranges = []
        for axis in range(3):
            candidates = [(u[axis] + p - j) // s for j in range(k) if (u[axis] + p - j) % s == 0]
            ranges.append([o for o in candidates if o >= 0 and (not clip or o <= limits[axis])])
        for ox in ranges[0]:
            for oy in ranges[1]:
                for oz in ranges[2]:
                    out.add((b, ox, oy, oz))
    return out


def floor_support(coords, s):
    """The artifact's output support of a strided conv or pool (validation spec §10.3, forward
    relation): unique(b, floor(u / s)) whatever the kernel and padding."""
    return {(b, x // s, y // s, z // s) for b, x, y, z in coords.tolist()}


if __name__ == "__main__":
    unittest.main()
