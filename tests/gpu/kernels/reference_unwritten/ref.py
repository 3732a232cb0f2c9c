"""Planted: the reference computes the sum but never writes it into C (rebinds the name)."""


def reference(A, B, C, N):
    C = A + B  # noqa: F841 -- rebinding, not C[...] = A + B: the output stays poisoned
