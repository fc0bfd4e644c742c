"""Write PyTorch models as Lattice Studio ``.ltfx`` FX archives (fx-archive.md).

    from lattice_studio_export import export_archive
    export_archive(model, "model.ltfx", example_inputs=(x,), lowering={"batch_size": 1})

``python3 -m lattice_studio_export --help`` does the same from the command line.
"""

from .archive import build_document, write_archive
from .errors import ExportError

__all__ = ["export_archive", "ExportError", "__version__"]

__version__ = "0.1.0"


def export_archive(model, path, example_inputs=None, lowering=None, *, use_torch_lattice=None):
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

    Raises ExportError (one line naming the module, node or option) for anything that cannot
    be written, and leaves `model` unchanged.
    """
    document, tensors = build_document(model, example_inputs, lowering, use_torch_lattice, __version__)
    write_archive(path, document, tensors)
    return path
