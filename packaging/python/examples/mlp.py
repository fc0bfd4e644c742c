"""A small MLP (Linear, LayerNorm, GELU) for the README's numeric-debugger example: exported with
--record-activations and --quantize 4, its artifact diverges from PyTorch from the first Linear on."""

import torch
import torch.nn as nn

class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)
        self.act = nn.GELU()
    def forward(self, x):
        return self.act(self.norm(self.fc(x)))

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Linear(32, 64)
        self.blocks = nn.Sequential(*[Block(64) for _ in range(4)])
        self.head = nn.Linear(64, 10)
    def forward(self, x):
        return self.head(self.blocks(self.stem(x)))

def build():
    torch.manual_seed(0)
    return Net().eval()

def inputs():
    torch.manual_seed(1)
    return (torch.randn(256, 32),)
