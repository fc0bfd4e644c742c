"""Write PyTorch models as Lattice Studio ``.ltfx`` FX archives (fx-archive.md).

    from lattice_studio_export import export_archive
    export_archive(model, "model.ltfx", example_inputs=(x,), lowering={"batch_size": 1})
    export_archive(model.eval(), "model.ltfx", example_inputs=(x,), record_activations=True)

``python3 -m lattice_studio_export --help`` does the same from the command line.
"""

from .archive import build_document, check_recordable, record_values, write_archive
from .errors import ExportError

__all__ = ["export_archive", "ExportError", "__version__"]

__version__ = "0.1.0"


def export_archive(model, path, example_inputs=None, lowering=None, *, use_torch_lattice=None,
                   record_activations=False):
    """Writes `model` (a torch.nn.Module) as the ``.ltfx`` directory `path` and returns `path`.

    - The root and every module that is not a library leaf get their own forward traced with
      torch.fx, every child module kept as a ``call_module`` leaf; all modules get their type
      and bases, public attributes, parameters and buffers (keyed by state_dict key in
      ``weights.safetensors``), children and forward signature.
    - `example_inputs`: optional example values for the root forward (a tensor or
      torch-lattice SparseTensor, a tuple/list of them for the positional parameters, or a dict
      parameter name → value); recorded as the artifact's input specs.
    - `lowering`: optional dict of lowering hints: ``batch_size``, ``input_dtype`` (``"f32"`` or
      ``"f16"``), ``quantize_bits`` (4 or 8), ``quantize_group_size``,
      ``quantize_scale_dtype`` (``"f16"`` or ``"f32"``), ``output_names``. With
      `example_inputs`, an unset (None) ``batch_size`` and ``input_dtype`` are recorded as
      torch-lattice's save_lattice_model_artifact infers them from the sparse inputs
      (lowering.md §6.1 steps 5-6): the number of ``batch_counts``, else ``spatial_range[0]``,
      else null; the features' dtype, else ``"f32"``.
    - `use_torch_lattice`: None (default) uses torch-lattice's leaf rule and autowrap set when
      ``torch_lattice`` is importable, else plain torch.fx; False forces plain torch.fx; True
      requires torch-lattice.
    - `record_activations`: run the model once on `example_inputs` (required) and write
      ``inputs.safetensors`` (the inputs, named as the artifact runtime names them: ``x_coords``,
      ``x_features``, ``x_active`` for a sparse ``x``, a dense input under its name) and
      ``activations.safetensors`` (every node of the flat traced graph, the graph ``lattice-cli
      trace`` prints, under its FX name; sparse values as ``NAME.coords``/``.features``/
      ``.active``, tuple items as ``NAME.0``, ``NAME.1``), with ``{"producer", "torch",
      "device"}`` metadata, so the studio and ``lattice-cli`` can check the artifact against
      PyTorch. Every module must be in eval mode. Without it an earlier export's two files are
      removed and the archive is byte for byte what it was before this option existed.

    Raises ExportError (one line naming the module, node or option) for anything that cannot
    be written, and leaves `model` unchanged.
    """
    if record_activations:
        check_recordable(example_inputs)
    graphs = {} if record_activations else None
    document, tensors = build_document(model, example_inputs, lowering, use_torch_lattice, __version__, graphs)
    recordings = None
    if record_activations:
        recordings = record_values(model, example_inputs, document, graphs, __version__)
    write_archive(path, document, tensors, recordings)
    return path
