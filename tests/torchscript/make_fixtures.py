"""Writes the TorchScript and checkpoint fixtures of tst_torchscript, tst_checkpoint and
tst_cli_weights into OUTDIR (run by CMake during the test build with Debian's python3-torch).

For each model NAME:
  NAME.pt          torch.jit.script(model).save(...)
  NAME.fx.tsv      torch.fx.symbolic_trace(model).graph, one node a line:
                   op <TAB> name <TAB> target <TAB> extra, where extra is repr(default) for a
                   placeholder with a default and str(result) for the output
  NAME.fx.txt      print(graph), for people
Checkpoints of the `mlp` model (see fixture_models.mlp):
  mlp.safetensors              the weights scripted into mlp.pt
  mlp.seed1.state_dict.pt      torch.save(state_dict) of the same architecture, other seed
  mlp.seed1.safetensors        the same tensors, written by this script's own safetensors writer
  mlp.wrapped.pt               {"state_dict": state_dict, "epoch": 3}
  mlp.wrong_shapes.pt          state_dict of mlp(hidden=6): every key but '2.bias' mismatches
  mlp.partial.pt               '2.bias' dropped, 'extra.weight' added
  mlp.f16.safetensors          '0.weight' stored as F16
  views.pt                     a plain dict: a transposed view, a slice with a storage offset,
                               an int64 scalar
Finally `fixtures.stamp`, written last.
"""
import json
import os
import struct
import sys

import torch
import torch.fx
from torch import nn

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_models as fm  # noqa: E402


def fx_rows(module):
    graph = torch.fx.symbolic_trace(module).graph
    rows = []
    for node in graph.nodes:
        if node.op == "call_function":
            target = torch.fx.node._get_qualified_name(node.target)
            if target.startswith("_operator."):  # fx-archive.md: canonical names say operator
                target = target[1:]
        else:
            target = str(node.target)
        extra = ""
        if node.op == "placeholder" and node.args:
            extra = repr(node.args[0])
        elif node.op == "output":
            extra = str(node.args[0])
        rows.append("\t".join([node.op, node.name, target, extra]))
    return graph, rows


def write_model(outdir, name, module, training):
    module.train(training)
    torch.jit.script(module).save(os.path.join(outdir, name + ".pt"))
    graph, rows = fx_rows(module)
    with open(os.path.join(outdir, name + ".fx.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")
    with open(os.path.join(outdir, name + ".fx.txt"), "w") as f:
        f.write(str(graph) + "\n")


_ST_DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.int64: "I64"}


def write_safetensors(path, tensors):
    """Minimal safetensors writer (header JSON + little-endian bytes), independent of the C++ one."""
    header, blobs, offset = {}, [], 0
    for key, t in tensors.items():
        data = t.contiguous().numpy().tobytes()
        header[key] = {"dtype": _ST_DTYPES[t.dtype], "shape": list(t.shape),
                       "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    torch.manual_seed(0)
    write_model(outdir, "nested_sequential", fm.nested_sequential(), training=True)
    write_model(outdir, "residual", fm.ResidualNet(), training=False)
    write_model(outdir, "flatten_head", fm.FlattenHead(), training=False)
    write_model(outdir, "scaled", fm.Scaled(), training=False)
    mlp = fm.mlp()
    write_model(outdir, "mlp", mlp, training=False)
    write_safetensors(os.path.join(outdir, "mlp.safetensors"), mlp.state_dict())
    for name, inner in [("gate", fm.Gate()), ("helper", fm.Helper())]:
        torch.jit.script(fm.Wrapper(inner).eval()).save(os.path.join(outdir, name + ".pt"))

    torch.manual_seed(1)
    seed1 = fm.mlp().state_dict()
    torch.save(seed1, os.path.join(outdir, "mlp.seed1.state_dict.pt"))
    write_safetensors(os.path.join(outdir, "mlp.seed1.safetensors"), seed1)
    torch.save({"state_dict": seed1, "epoch": 3}, os.path.join(outdir, "mlp.wrapped.pt"))
    torch.save(fm.mlp(hidden=6).state_dict(), os.path.join(outdir, "mlp.wrong_shapes.pt"))
    partial = dict(seed1)
    del partial["2.bias"]
    partial["extra.weight"] = torch.ones(2)
    torch.save(partial, os.path.join(outdir, "mlp.partial.pt"))
    half = dict(seed1)
    half["0.weight"] = half["0.weight"].half()
    write_safetensors(os.path.join(outdir, "mlp.f16.safetensors"), half)

    views = {"transposed": torch.arange(6.0).reshape(2, 3).t(), "sliced": torch.arange(10.0)[4:7],
             "scalar": torch.tensor(7, dtype=torch.int64)}
    torch.save(views, os.path.join(outdir, "views.pt"))

    with open(os.path.join(outdir, "fixtures.stamp"), "w") as f:
        f.write("torch " + torch.__version__ + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
