"""A transformer block's MLP, built here with random weights (no downloads): x -> x W1 ->
gelu(. + b1) -> . W2 + b2 (addmm), with the activation either PyTorch's (an add and a GELU, two
kernels) or kopt's fused bias_gelu through the operator `kopt export` made."""
import importlib
import os
import sys

import torch


def load_bias_gelu(export_dir):
    """The exported operator's package (kopt export ... --torch DIR), or None for PyTorch's."""
    if not export_dir:
        return None
    parent, name = os.path.split(os.path.abspath(export_dir))
    sys.path.insert(0, parent)
    return importlib.import_module(name)


class Mlp(torch.nn.Module):
    def __init__(self, width, hidden, bias_gelu=None):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.w1 = torch.nn.Parameter(torch.randn(width, hidden, generator=g) / width**0.5)
        self.b1 = torch.nn.Parameter(torch.randn(hidden, generator=g) * 0.1)
        self.w2 = torch.nn.Parameter(torch.randn(hidden, width, generator=g) / hidden**0.5)
        self.b2 = torch.nn.Parameter(torch.randn(width, generator=g) * 0.1)
        self.bias_gelu = bias_gelu

    def forward(self, x):
        h = x @ self.w1
        if self.bias_gelu is None:
            h = torch.nn.functional.gelu(h + self.b1)
        else:
            h = self.bias_gelu.bias_gelu(h, self.b1)
        return torch.addmm(self.b2, h, self.w2)  # the second bias in the GEMM: the only add left is b1's
