"""Command line: ``python3 -m lattice_studio_export MODEL -o OUT.ltfx [options]``.

Exit codes: 0 written, 1 the model or an option cannot be exported (one line on stderr), 2 usage.
"""

import argparse
import importlib
import importlib.util
import inspect
import json
import os
import sys

import torch

from . import ExportError, __version__, export_archive

PROG = "python3 -m lattice_studio_export"

DESCRIPTION = """\
Write a PyTorch model as a Lattice Studio .ltfx archive (model.json + weights.safetensors,
with --record-activations also inputs.safetensors + activations.safetensors), ready for
`lattice-cli trace|info|lower|run` and the studio.

MODEL is one of
  package.module:FACTORY   import package.module and call FACTORY() (an nn.Module attribute
                           is used as it is)
  path/to/file.py:FACTORY  the same for a Python file
  path/to/model.pt         a checkpoint holding a whole pickled nn.Module (torch.save(model))
"""

EPILOG = """\
examples:
  %(prog)s mynet.models:build_net -o net.ltfx --checkpoint net.pth --inputs inputs.pt
  %(prog)s train.py:make_model --factory-kwargs '{"width": 64}' -o net.ltfx --batch-size 1
  %(prog)s mynet.models:build_net -o net.ltfx --inputs inputs.pt --record-activations
  lattice-cli run net.ltfx --inputs net.ltfx/inputs.safetensors -o out.safetensors

The model is put in eval() mode before export unless --train is given. With torch_lattice
installed its leaf modules and autowrapped functions are kept as in its own tracer.
"""


def _load_file_module(path):
    name = os.path.splitext(os.path.basename(path))[0]
    directory = os.path.dirname(os.path.abspath(path))
    if directory not in sys.path:
        sys.path.insert(0, directory)  # so the file can import its neighbours
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ExportError("{}: cannot load as a Python module".format(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def resolve_callable(text, what):
    """`package.module:NAME` or `file.py:NAME` → the object NAME."""
    location, sep, name = text.rpartition(":")
    if not sep or not location or not name:
        raise ExportError("{} '{}': no such file, and not package.module:NAME or "
                          "path/to/file.py:NAME".format(what, text))
    try:
        if location.endswith(".py") or os.sep in location:
            module = _load_file_module(location)
        else:
            module = importlib.import_module(location)
    except ExportError:
        raise
    except Exception as error:  # noqa: BLE001 - report any import failure in one line
        raise ExportError("{} '{}': cannot import '{}': {}: {}".format(
            what, text, location, type(error).__name__, error)) from error
    try:
        return getattr(module, name)
    except AttributeError:
        raise ExportError("{} '{}': '{}' has no attribute '{}'".format(what, text, location, name)) from None


def _torch_load(path, weights_only):
    kwargs = {"map_location": "cpu"}
    if "weights_only" in inspect.signature(torch.load).parameters:
        kwargs["weights_only"] = weights_only
    try:
        return torch.load(path, **kwargs)
    except Exception as error:  # noqa: BLE001
        raise ExportError("{}: cannot load: {}: {}".format(path, type(error).__name__, error)) from error


def _call(function, kwargs, what):
    try:
        return function(**kwargs)
    except Exception as error:  # noqa: BLE001 - the user's code; report it in one line
        raise ExportError("{}: {} raised {}: {}".format(
            what, getattr(function, "__name__", "the callable"), type(error).__name__, error)) from error


def load_model(spec, factory_kwargs):
    if os.path.isfile(spec) and not spec.endswith(".py"):
        model = _torch_load(spec, weights_only=False)
        if not isinstance(model, torch.nn.Module):
            raise ExportError("{}: holds a {}, not a pickled nn.Module (give FACTORY and use "
                              "--checkpoint for a state_dict)".format(spec, type(model).__qualname__))
        return model
    obj = resolve_callable(spec, "MODEL")
    if isinstance(obj, torch.nn.Module):
        return obj
    if not callable(obj):
        raise ExportError("MODEL '{}' is a {}, not a factory or an nn.Module".format(spec, type(obj).__qualname__))
    model = _call(obj, factory_kwargs, "MODEL '{}'".format(spec))
    if not isinstance(model, torch.nn.Module):
        raise ExportError("MODEL '{}' returned a {}, not an nn.Module".format(spec, type(model).__qualname__))
    return model


def load_checkpoint(model, path):
    state = _torch_load(path, weights_only=True)
    for key in ("state_dict", "model_state_dict", "model"):
        if isinstance(state, dict) and isinstance(state.get(key), dict):
            state = state[key]
            break
    if not isinstance(state, dict):
        raise ExportError("{}: expected a state_dict, got {}".format(path, type(state).__qualname__))
    try:
        model.load_state_dict(state)
    except RuntimeError as error:
        raise ExportError("{}: {}".format(path, " ".join(str(error).split()))) from error


def load_inputs(spec):
    if os.path.isfile(spec) and not spec.endswith(".py"):
        return _torch_load(spec, weights_only=True)
    function = resolve_callable(spec, "--inputs")
    return _call(function, {}, "--inputs '{}'".format(spec)) if callable(function) else function


def parse_args(argv):
    parser = argparse.ArgumentParser(prog=PROG, description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", metavar="MODEL", help="package.module:FACTORY, file.py:FACTORY or model.pt")
    parser.add_argument("-o", "--output", required=True, metavar="OUT.ltfx", help="archive directory to write")
    parser.add_argument("--checkpoint", metavar="FILE", help="state_dict to load into the factory's model")
    parser.add_argument("--factory-kwargs", metavar="JSON", default="{}",
                        help="keyword arguments for FACTORY, as a JSON object")
    parser.add_argument("--inputs", metavar="FILE|module:NAME",
                        help="example inputs for the root forward: a torch.save'd tensor, tuple, list "
                             "or dict, or a callable returning them; recorded as input specs")
    parser.add_argument("--record-activations", action="store_true",
                        help="run the model once on --inputs and write inputs.safetensors and "
                             "activations.safetensors (every traced node's value) into the archive")
    parser.add_argument("--train", action="store_true", help="keep training mode (default: eval())")
    parser.add_argument("--no-torch-lattice", action="store_true",
                        help="trace with plain torch.fx even when torch_lattice is importable")
    lowering = parser.add_argument_group("lowering hints (recorded in model.json)")
    lowering.add_argument("--batch-size", type=int, metavar="N", help="fixed batch size of the artifact")
    lowering.add_argument("--input-dtype", choices=("f32", "f16"), help="sparse input dtype")
    lowering.add_argument("--quantize", type=int, choices=(4, 8), dest="quantize_bits",
                          help="affine group quantization of the weights")
    lowering.add_argument("--group-size", type=int, dest="quantize_group_size", metavar="N",
                          help="quantization group size (default 32)")
    lowering.add_argument("--scale-dtype", choices=("f16", "f32"), dest="quantize_scale_dtype",
                          help="quantization scale dtype (default f16)")
    lowering.add_argument("--output-name", action="append", dest="output_names", metavar="NAME",
                          help="artifact output name (repeat for each output)")
    parser.add_argument("--version", action="version", version="%(prog)s " + __version__)
    args = parser.parse_args(argv)
    if args.record_activations and not args.inputs:
        parser.error("--record-activations needs --inputs FILE|module:NAME (the example inputs the model is run on)")
    if args.record_activations and args.train:
        parser.error("--record-activations cannot be used with --train (recording runs the model in eval mode)")
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        try:
            factory_kwargs = json.loads(args.factory_kwargs)
        except ValueError as error:
            raise ExportError("--factory-kwargs: invalid JSON: {}".format(error)) from error
        if not isinstance(factory_kwargs, dict):
            raise ExportError("--factory-kwargs: expected a JSON object")
        model = load_model(args.model, factory_kwargs)
        if args.checkpoint:
            load_checkpoint(model, args.checkpoint)
        if not args.train:
            model.eval()
        inputs = load_inputs(args.inputs) if args.inputs else None
        lowering = {key: getattr(args, key) for key in (
            "batch_size", "input_dtype", "quantize_bits", "quantize_group_size",
            "quantize_scale_dtype", "output_names") if getattr(args, key) is not None}
        export_archive(model, args.output, example_inputs=inputs, lowering=lowering or None,
                       use_torch_lattice=False if args.no_torch_lattice else None,
                       record_activations=args.record_activations)
    except ExportError as error:
        print("{}: error: {}".format(PROG, error), file=sys.stderr)
        return 1
    print("wrote {}".format(args.output))
    return 0


if __name__ == "__main__":
    sys.exit(main())
