"""The real torch-lattice (0.5.0 with its C++ CPU kernels, ``../shared/torch-lattice-cpu``) as the
trainer in tests: where to find it, inputs shaped like real scans, and one small model per module
family the lowering supports, plus both backbones.

The library is looked up in ``$LATTICE_TORCH_LATTICE`` or ``<repo>/../shared/torch-lattice-cpu``
(the layout of a developer's and CI's machine). ``load()`` returns the imported ``torch_lattice``
or None with the reason, so a test can skip cleanly on a user's fresh clone without it.
"""

import math
import os
import sys

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def library_dir():
    return os.environ.get("LATTICE_TORCH_LATTICE") or os.path.join(
        os.path.dirname(REPO_ROOT), "shared", "torch-lattice-cpu")


def load():
    """(torch_lattice module, "") or (None, why it is not available)."""
    path = library_dir()
    if not os.path.isdir(os.path.join(path, "torch_lattice")):
        return None, "the real torch-lattice is not at {} (set LATTICE_TORCH_LATTICE)".format(path)
    if path not in sys.path:
        sys.path.insert(0, path)
    try:
        import torch_lattice  # noqa: F401
        import torch_lattice.nn  # noqa: F401
    except Exception as error:  # noqa: BLE001 - any import failure means: not usable here
        return None, "cannot import the real torch-lattice from {}: {}: {}".format(
            path, type(error).__name__, error)
    return sys.modules["torch_lattice"], ""


def surface_points(grid, batch, per_item, seed):
    """(n, 4) int32 coordinates (batch, x, y, z): `batch` closed surfaces (an ellipsoid and a
    torus) voxelized in `grid`³, unique, about `per_item` rows each, as a scan's voxels are."""
    generator = torch.Generator().manual_seed(seed)
    rows = []
    for b in range(batch):
        n = per_item * 3
        u = torch.rand(n, generator=generator) * 2 * math.pi
        v = torch.rand(n, generator=generator) * 2 * math.pi
        if b % 2 == 0:
            xyz = torch.stack([torch.cos(u) * torch.sin(v / 2), torch.sin(u) * torch.sin(v / 2) * 0.8,
                               torch.cos(v / 2) * 0.6], 1)
        else:
            r = 0.65 + 0.3 * torch.cos(v)
            xyz = torch.stack([r * torch.cos(u), r * torch.sin(u), 0.3 * torch.sin(v)], 1)
        voxels = ((xyz * 0.5 + 0.5) * (grid - 1)).round().clamp(0, grid - 1).to(torch.int32)
        voxels = torch.unique(voxels, dim=0)[:per_item]
        rows.append(torch.cat([torch.full((len(voxels), 1), b, dtype=torch.int32), voxels], 1))
    return torch.cat(rows, 0)


def sparse_input(tl, channels, extent=63, batch=2, per_item=700, seed=0):
    """A SparseTensor of `batch` surfaces in [0, extent]³ (stride 1, no spatial range) whose largest
    coordinate on every axis is `extent`: with 2^n − 1 every downsampling by 2 keeps an odd extent,
    so torch-lattice's strided Conv3d drops no row at the upper edge (an even extent makes it)."""
    coords = surface_points(extent + 1, batch, per_item, seed)
    corner = torch.tensor([[0, extent, extent, extent]], dtype=torch.int32)
    if not (coords == corner).all(1).any():
        coords = torch.cat([coords, corner], 0)
    coords = coords[torch.sort(coords[:, 0], stable=True).indices]
    generator = torch.Generator().manual_seed(seed + 1)
    feats = torch.randn(len(coords), channels, generator=generator)
    counts = [int((coords[:, 0] == b).sum()) for b in range(batch)]
    return tl.SparseTensor(feats, coords, batch_counts=counts)


def randomize(model, seed):
    """Random weights, norm scales and biases, and random frozen batch-norm statistics (a trained
    model's are not 0 and 1), eval mode."""
    torch.manual_seed(seed)
    for module in model.modules():
        if isinstance(module, nn.modules.batchnorm._BatchNorm):
            module.running_mean.uniform_(-0.2, 0.2)
            module.running_var.uniform_(0.5, 1.5)
    for name, parameter in model.named_parameters():
        if parameter.dim() == 1:  # norm scales and biases, conv and linear biases
            parameter.data.uniform_(0.5, 1.5) if name.endswith("weight") else parameter.data.uniform_(-0.2, 0.2)
    return model.eval()


def families(tl):
    """{name: model}: one small model per module family the lowering supports (GroupNorm and
    InstanceNorm are refused by the reference exporter, lowering.md table 1, so they are not here)."""
    spnn = tl.nn
    ops = __import__("torch_lattice.operators", fromlist=["sparse_add"])

    class Strided(nn.Module):
        def __init__(self):
            super().__init__()
            self.down2 = spnn.Conv3d(4, 8, 2, stride=2)
            self.down3 = spnn.Conv3d(8, 8, 3, stride=2)
            self.subm = spnn.SubmConv3d(8, 8, (1, 3, 1))

        def forward(self, x):
            return self.subm(self.down3(self.down2(x)))

    class Transposed(nn.Module):
        def __init__(self):
            super().__init__()
            self.down = spnn.Conv3d(4, 8, 2, stride=2)
            self.up = spnn.ConvTranspose3d(8, 4, 2, stride=2)

        def forward(self, x):
            return self.up(self.down(x))

    class Generative(nn.Module):
        def __init__(self):
            super().__init__()
            self.down = spnn.Conv3d(4, 8, 2, stride=2)
            self.up = spnn.GenerativeConvTranspose3d(8, 8, 2, stride=2)
            self.norm = spnn.BatchNorm(8)
            self.act = spnn.ReLU()

        def forward(self, x):
            return self.act(self.norm(self.up(self.down(x))))

    class Target(nn.Module):
        def __init__(self):
            super().__init__()
            self.down = spnn.Conv3d(4, 8, 2, stride=2)
            self.onto = spnn.Conv3d(8, 8, 3)

        def forward(self, x):
            y = self.down(x)
            return self.onto(y, y)

    class Edge(nn.Module):
        def __init__(self):
            super().__init__()
            self.down = spnn.Conv3d(4, 8, 2, stride=2)

        def forward(self, x):
            return self.down(x)

    class Pools(nn.Module):
        def __init__(self):
            super().__init__()
            self.maxpool = spnn.MaxPool3d(2, 2)
            self.avgpool = spnn.AvgPool3d(2, 2)
            self.sumpool = spnn.SumPool3d(2, 2)

        def forward(self, x):
            return self.sumpool(self.avgpool(self.maxpool(x)))

    class OddPool(nn.Module):
        def __init__(self):
            super().__init__()
            self.pool = spnn.MaxPool3d(3, 2, padding=1)

        def forward(self, x):
            return self.pool(x)

    class Norms(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = spnn.SubmConv3d(4, 8, 3)
            self.bn = spnn.BatchNorm(8)
            self.ln = spnn.LayerNorm(8)
            self.rms = spnn.RMSNorm(8)

        def forward(self, x):
            return self.rms(self.ln(self.bn(self.conv(x))))

    class Activations(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = spnn.SubmConv3d(4, 8, 3)
            self.relu = spnn.ReLU()
            self.leaky = spnn.LeakyReLU(0.1)
            self.silu = spnn.SiLU()
            self.gelu = spnn.GELU()
            self.sigmoid = spnn.Sigmoid()
            self.tanh = spnn.Tanh()

        def forward(self, x):
            y = self.conv(x)
            return self.tanh(self.sigmoid(self.gelu(self.silu(self.leaky(self.relu(y))))))

    class Binary(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = spnn.SubmConv3d(4, 8, 3)
            self.b = spnn.SubmConv3d(4, 8, 1)

        def forward(self, x):
            a, b = self.a(x), self.b(x)
            return ops.cat([ops.sparse_add(a, b), ops.sparse_mul(a, b)])

    class GlobalPool(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = spnn.SubmConv3d(4, 8, 3)
            self.pool = spnn.GlobalAvgPool()
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            return self.head(self.pool(self.conv(x)))

    return {"strided": Strided(), "transposed": Transposed(), "generative": Generative(),
            "target": Target(), "edge": Edge(), "pools": Pools(), "odd_pool": OddPool(), "norms": Norms(),
            "activations": Activations(), "binary": Binary(), "global_pool": GlobalPool()}


def backbones(tl):
    from torch_lattice.backbones import SparseResNet21D, SparseResUNet42
    return {"sparse_resnet21d": SparseResNet21D(in_channels=4, width_multiplier=0.5),
            "sparse_resunet42": SparseResUNet42(in_channels=4, width_multiplier=0.5)}
