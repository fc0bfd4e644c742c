"""Malformed inputs to the exporter give one-line ExportErrors that name where the problem is,
and nothing is written."""

import os
import re
import shutil
import tempfile
import unittest
import warnings

import support  # noqa: F401 - torch check and package path

import torch
import torch.nn as nn

from lattice_studio_export import ExportError, archive, export_archive


class LambdaDefault(nn.Module):
    def forward(self, x, act=lambda t: t):
        return x + 1


class UsesLambdaDefault(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = LambdaDefault()

    def forward(self, x):
        return self.inner(x)


class ComplexArgument(nn.Module):
    def forward(self, x):
        return x * 1j


class TensorConstant(nn.Module):
    def forward(self, x):
        return x + torch.tensor([1.0, 2.0])


class PlainTensorAttribute(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.ones(2)  # neither a parameter nor a buffer

    def forward(self, x):
        return x * self.table


class DataDependent(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        return -x


class CallsDataDependent(nn.Module):
    def __init__(self):
        super().__init__()
        self.branch = DataDependent()
        self.unused = DataDependent()

    def forward(self, x):
        return self.branch(x)


class OnlyUnusedIsUntraceable(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.unused = DataDependent()

    def forward(self, x):
        return self.fc(x)


class Errors(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.path = os.path.join(self.tmp.name, "out.ltfx")

    def assertExportError(self, pattern, model, **kwargs):
        with self.assertRaises(ExportError) as caught:
            export_archive(model, self.path, **kwargs)
        message = str(caught.exception)
        self.assertRegex(message, pattern)
        self.assertEqual(message, message.strip().splitlines()[0], "one line")
        self.assertTrue(message[0].islower(), message)
        self.assertFalse(message.endswith("."), message)
        self.assertFalse(os.path.exists(self.path), "nothing is written on error")
        return message

    def test_lambda_default_in_a_submodule(self):
        self.assertExportError(r"^module 'inner': forward signature: parameter 'act': default: unsupported "
                               r"value <function LambdaDefault.<lambda> at 0x[0-9a-f]+> of type "
                               r"'function' \(supported: None, bool, int, float, str, ",
                               UsesLambdaDefault())

    def test_lambda_default_in_the_root(self):
        self.assertExportError(r"^the root module: forward signature: parameter 'act': default: "
                               r"unsupported value <function",
                               LambdaDefault())

    def test_unsupported_argument_type_in_a_graph(self):
        self.assertExportError(r"^the root module: node 'mul': args\[1\]: unsupported value 1j of type 'complex'",
                               ComplexArgument())

    def test_tensor_constant(self):
        model = TensorConstant()
        before = set(vars(model))
        self.assertExportError(r"^the root module: node '_tensor_constant0': forward uses a tensor "
                               r"constant .*register_buffer", model)
        self.assertEqual(set(vars(model)), before, "the tracer's constant attribute is removed again")

    def test_plain_tensor_attribute(self):
        self.assertExportError(r"^the root module: node 'table': get_attr target 'table' is not a "
                               r"registered parameter, buffer or submodule", PlainTensorAttribute())

    def test_untraceable_called_submodule(self):
        self.assertExportError(r"^module 'branch': tracing forward \(DataDependent\) failed: TraceError: ",
                               CallsDataDependent())

    def test_untraceable_unused_submodule_only_warns(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            export_archive(OnlyUnusedIsUntraceable(), self.path)
        self.assertEqual(len(caught), 1)
        self.assertIn("module 'unused' is not called by any recorded graph", str(caught[0].message))
        self.assertTrue(os.path.isfile(os.path.join(self.path, "model.json")))

    def test_not_a_module(self):
        self.assertExportError(r"^expected a torch\.nn\.Module, got function", lambda x: x)

    def test_module_without_forward(self):
        self.assertExportError(r"^the root module \(ModuleList\) has no forward", nn.ModuleList())

    def test_bad_example_inputs(self):
        model = nn.Linear(2, 2)
        self.assertExportError(r"^example_inputs\[0\] \('input'\): expected a torch\.Tensor or a "
                               r"SparseTensor", model, example_inputs=("text",))
        self.assertExportError(r"^example_inputs\[0\] \('input'\): dense inputs must be float32, "
                               r"float16, int32 or int64, got torch\.float64",
                               model, example_inputs=torch.zeros(2, 2, dtype=torch.float64))
        self.assertExportError(r"^example_inputs: 2 values for 1 positional parameters",
                               model, example_inputs=(torch.zeros(1), torch.zeros(1)))
        self.assertExportError(r"^example_inputs: 'points' is not a parameter of the root forward \(input\)",
                               model, example_inputs={"points": torch.zeros(1)})

    def test_bad_lowering(self):
        model = nn.Linear(2, 2)
        self.assertExportError(r"^lowering: unknown option 'batch'", model, lowering={"batch": 1})
        self.assertExportError(r"^lowering\['quantize_bits'\]: expected one of 4, 8, got 3",
                               model, lowering={"quantize_bits": 3})
        self.assertExportError(r"^lowering\['input_dtype'\]: expected 'f32' or 'f16' or None, got 'f64'",
                               model, lowering={"input_dtype": "f64"})
        self.assertExportError(r"^lowering\['batch_size'\]: expected a positive integer, got 0",
                               model, lowering={"batch_size": 0})

    def test_output_path_is_a_file(self):
        with open(self.path, "w") as f:
            f.write("x")
        with self.assertRaisesRegex(ExportError, "exists and is not a directory"):
            export_archive(nn.Linear(2, 2), self.path)

    def test_model_json_over_the_readers_limit(self):
        # The limit is the C++ reader's, read from its header, so the two cannot drift apart.
        header = os.path.join(support.PACKAGE_ROOT, "..", "..", "core", "model", "Archive.h")
        with open(header) as f:
            match = re.search(r"kMaxArchiveJsonBytes = std::size_t\((\d+)\) << (\d+);", f.read())
        self.assertIsNotNone(match, "kMaxArchiveJsonBytes in core/model/Archive.h")
        self.assertEqual(archive.MAX_MODEL_JSON_BYTES, int(match.group(1)) << int(match.group(2)))
        # A model whose model.json is one byte over a lowered limit is refused, nothing written;
        # at the limit it is written.
        model = nn.Linear(2, 2)
        export_archive(model, self.path)
        with open(os.path.join(self.path, "model.json"), "rb") as f:
            size = len(f.read())
        shutil.rmtree(self.path)
        limit = archive.MAX_MODEL_JSON_BYTES
        try:
            archive.MAX_MODEL_JSON_BYTES = size - 1
            with self.assertRaisesRegex(ExportError, r"out\.ltfx: not written: model\.json would be {} bytes, over "
                                        r"Lattice Studio's limit of {} bytes$".format(size, size - 1)):
                export_archive(model, self.path)
            self.assertFalse(os.path.exists(self.path), "nothing is written on error")
            archive.MAX_MODEL_JSON_BYTES = size
            export_archive(model, self.path)
            self.assertTrue(os.path.isfile(os.path.join(self.path, "model.json")))
        finally:
            archive.MAX_MODEL_JSON_BYTES = limit


if __name__ == "__main__":
    support.main()
