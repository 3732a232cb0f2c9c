"""Planted: the reference raises. kopt must report it as a reference error naming ref.py:LINE."""


def reference(A, B, C, N):
    raise ValueError("planted")
