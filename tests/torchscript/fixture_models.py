"""Models scripted by make_fixtures.py for the TorchScript importer and checkpoint tests.

Kept in their own module so their qualified type names are stable
(`fixture_models.Residual`, not `__main__.Residual`). tst_torchscript.cpp finds the source
lines of the unsupported constructs below by their `# marker:` comments.
"""
import torch
from torch import nn


def nested_sequential():
    """Sequentials inside a Sequential, with BatchNorm buffers."""
    return nn.Sequential(
        nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU()),
        nn.Sequential(nn.Linear(8, 8), nn.Sequential(nn.ReLU(), nn.Dropout(0.25))),
        nn.Linear(8, 2, bias=False),
    )


class Residual(nn.Module):
    """A custom block with a residual add."""

    def __init__(self, channels):
        super().__init__()
        self.channels = channels
        self.fc = nn.Linear(channels, channels)
        self.norm = nn.LayerNorm(channels)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(x + self.norm(self.fc(x)))


class ResidualNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Linear(4, 8)
        self.blocks = nn.Sequential(Residual(8), Residual(8))
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)))


class FlattenHead(nn.Module):
    """A Linear head after flatten; `y.mean()` is a method call TorchScript records as torch.mean."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(3, 4), nn.ReLU())
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        y = torch.flatten(self.features(x), 1)
        return self.fc(y), y.mean()


class Scaled(nn.Module):
    """forward with a default argument."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, scale: float = 2.0):
        return self.fc(x) * scale


def mlp(hidden=8):
    """The checkpoint-swap model: every module has a lattice lowering (dense input x: ?x4)."""
    return nn.Sequential(nn.Linear(4, hidden), nn.ReLU(), nn.Linear(hidden, 3))


# Models the importer must refuse, each with the construct inside a child module `inner`.

class Gate(nn.Module):
    def forward(self, x):
        if bool(x.sum() > 0):  # marker: prim::If
            return x
        return -x


class Helper(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return self.twice(self.fc(x))  # marker: non-forward call

    def twice(self, x):
        return x * 2


class Wrapper(nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        return self.inner(x)
