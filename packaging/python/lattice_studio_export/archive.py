"""export_archive: a torch.nn.Module → an ``.ltfx`` directory (fx-archive.md).

Walks the module tree (root first, parents before children), records every module, traces the
root and every module that is not a library leaf one level deep (tracing.py), and writes
model.json and weights.safetensors, each through a temporary file renamed over its final name.
With recordings (recording.py) it also writes inputs.safetensors and activations.safetensors;
without, it removes those two files if an earlier export left them, so the archive never holds
values recorded from another model.

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
from .recording import ACTIVATIONS_FILE, INPUTS_FILE, record as record_run
from .tracing import describe_path, forward_is_implemented, select_policy, trace_one_level

FORMAT = "lattice-fx-archive"
VERSION = 1
PRODUCER = "lattice_studio_export"
# The largest model.json Lattice Studio reads (kMaxArchiveJsonBytes in core/model/Archive.h): a
# larger one is refused here, before anything is written, rather than by the reader later.
MAX_MODEL_JSON_BYTES = 128 << 20


def build_document(model, example_inputs=None, lowering=None, use_torch_lattice=None, producer_version="0",
                   graphs=None):
    """The model.json document and the tensors (state_dict key → tensor) for `model`. `graphs`,
    when a dict, receives each recorded one-level torch.fx graph by module path."""
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
                    if graphs is not None:
                        graphs[path] = graph
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


def check_recordable(example_inputs):
    """Recording needs example inputs: an ExportError naming what to pass when there are none."""
    if example_inputs is None:
        raise ExportError("record_activations needs example inputs: pass example_inputs=(...) with the "
                          "values to run the model on (on the command line: --inputs FILE|module:NAME)")


def record_values(model, example_inputs, document, graphs, producer_version="0"):
    """(inputs, activations, metadata) for write_archive: `model` run once on `example_inputs`
    over the flat traced graph (recording.py). `document` and `graphs` are build_document's for
    the same model and inputs."""
    check_recordable(example_inputs)
    return record_run(model, example_inputs, document["example_inputs"], graphs,
                      "{} {}".format(PRODUCER, producer_version))


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


def write_archive(directory, document, tensors, recordings=None):
    """Writes model.json and weights.safetensors into `directory` (created if missing), and
    inputs.safetensors and activations.safetensors from `recordings` (record_values's result)
    or, without it, removes those two."""
    directory = os.fspath(directory)
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise ExportError("{}: exists and is not a directory".format(directory))
    try:
        text = json.dumps(document, indent=1, allow_nan=False) + "\n"
    except ValueError as error:  # a non-finite float that escaped encoding: a bug here
        raise ExportError("model.json: {}".format(error)) from error
    size = len(text.encode("utf-8"))
    if size > MAX_MODEL_JSON_BYTES:
        raise ExportError("{}: not written: model.json would be {} bytes, over Lattice Studio's limit of {} bytes"
                          .format(directory, size, MAX_MODEL_JSON_BYTES))
    os.makedirs(directory, exist_ok=True)
    safetensors.write(os.path.join(directory, "weights.safetensors"), tensors)
    if recordings is not None:
        inputs, activations, metadata = recordings
        safetensors.write(os.path.join(directory, INPUTS_FILE), inputs, metadata)
        safetensors.write(os.path.join(directory, ACTIVATIONS_FILE), activations, metadata)
    else:
        for name in (INPUTS_FILE, ACTIVATIONS_FILE):
            if os.path.isfile(os.path.join(directory, name)):
                os.remove(os.path.join(directory, name))
    _write_text(os.path.join(directory, "model.json"), text)
