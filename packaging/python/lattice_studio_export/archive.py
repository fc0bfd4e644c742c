"""export_archive: a torch.nn.Module → an ``.ltfx`` directory (fx-archive.md).

Walks the module tree (root first, parents before children), records every module, traces the
root and every module that is not a library leaf one level deep (tracing.py), and writes
model.json and weights.safetensors, each through a temporary file renamed over its final name.

A module whose forward cannot be traced is an error when a recorded graph calls it (the C++
tracer would have to inline it). A module no graph calls (an unused helper) is written without a
graph and a warning. The model itself is left as it was: nothing is moved, cast or put in eval.
"""

import json
import os
import warnings

import torch

from . import safetensors
from .errors import ExportError
from .options import example_input_specs, inferred_lowering, lowering_options
from .records import called_modules, encode_graph, module_record, signature, walk_modules
from .tracing import describe_path, forward_is_implemented, select_policy, trace_one_level

FORMAT = "lattice-fx-archive"
VERSION = 1
PRODUCER = "lattice_studio_export"


def build_document(model, example_inputs=None, lowering=None, use_torch_lattice=None, producer_version="0"):
    """The model.json document and the tensors (state_dict key → tensor) for `model`."""
    if not isinstance(model, torch.nn.Module):
        raise ExportError("expected a torch.nn.Module, got {}".format(type(model).__qualname__))
    if not forward_is_implemented(model):
        raise ExportError("the root module ({}) has no forward".format(type(model).__qualname__))
    policy = select_policy(use_torch_lattice)

    tensors = {}
    records = []
    untraceable = {}
    for path, module in walk_modules(model):
        record = module_record(module, path, tensors)
        if forward_is_implemented(module):
            record["signature"] = signature(module, path)
            if path == "" or not policy.is_library_leaf(module, path):
                try:
                    graph = trace_one_level(module, path, policy)
                    record["graph"] = encode_graph(graph, module, path)
                except ExportError as error:
                    if path == "":
                        raise
                    untraceable[path] = error
        records.append(record)

    _check_untraceable(records, untraceable)

    document = {
        "format": FORMAT,
        "version": VERSION,
        "producer": {"name": PRODUCER, "version": producer_version},
        "modules": records,
    }
    if example_inputs is not None:
        specs = example_input_specs(example_inputs, records[0]["signature"])
        document["example_inputs"] = specs
        # What the reference infers from the same inputs (fx-archive.md "Input specs and lowering
        # hints"): without it a global pool cannot lower although the reference exports it.
        document["lowering"] = lowering_options(
            lowering, inferred=lambda checked: inferred_lowering(example_inputs, specs, checked))
    elif lowering is not None:
        document["lowering"] = lowering_options(lowering)
    return document, tensors


def _check_untraceable(records, untraceable):
    """Raises for an untraceable module that some recorded graph calls; warns for the rest."""
    if not untraceable:
        return
    called = set()
    for record in records:
        if "graph" in record:
            called.update(called_modules(record["graph"], record["path"]))
    for path, error in untraceable.items():
        if path in called:
            raise error
    for path, error in untraceable.items():
        warnings.warn("{} is not called by any recorded graph and was written without a graph "
                      "({})".format(describe_path(path), error), stacklevel=3)


def _write_text(path, text):
    temporary = "{}.tmp-{}".format(path, os.getpid())
    try:
        with open(temporary, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def write_archive(directory, document, tensors):
    """Writes model.json and weights.safetensors into `directory` (created if missing)."""
    directory = os.fspath(directory)
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise ExportError("{}: exists and is not a directory".format(directory))
    os.makedirs(directory, exist_ok=True)
    try:
        text = json.dumps(document, indent=1, allow_nan=False) + "\n"
    except ValueError as error:  # a non-finite float that escaped encoding: a bug here
        raise ExportError("model.json: {}".format(error)) from error
    safetensors.write(os.path.join(directory, "weights.safetensors"), tensors)
    _write_text(os.path.join(directory, "model.json"), text)
