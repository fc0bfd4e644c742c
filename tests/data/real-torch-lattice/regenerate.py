"""Regenerates transposed.ltfx: the real torch-lattice's ConvTranspose3d after a k2 s2 Conv3d
(packaging/python/tests/real_torch_lattice.py, model "transposed"), exported with recorded
activations by our exporter. Run from the repository root with Debian's python3:

    /usr/bin/python3 tests/data/real-torch-lattice/regenerate.py
"""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path[:0] = [os.path.join(ROOT, "packaging", "python"), os.path.join(ROOT, "packaging", "python", "tests")]

import torch  # noqa: E402

import real_torch_lattice as real  # noqa: E402
from lattice_studio_export import export_archive  # noqa: E402

tl, why = real.load()
if tl is None:
    sys.exit(why)
torch.set_num_threads(1)
model = real.randomize(real.families(tl)["transposed"], seed=0)
out = os.path.join(HERE, "transposed.ltfx")
shutil.rmtree(out, ignore_errors=True)
export_archive(model, out, example_inputs=(real.sparse_input(tl, 4, extent=31, per_item=150),),
               record_activations=True)
print(out)
