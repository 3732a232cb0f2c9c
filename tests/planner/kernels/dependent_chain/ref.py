"""Reference: 65536 steps of v = 0.9999 v + 0.0001, in closed form (float64)."""


def reference(x, y, N):
    v = x.double() if hasattr(x, "double") else x.astype("float64")
    a, b, steps = 0.9999, 0.0001, 65536
    y[...] = a**steps * v + b * (1 - a**steps) / (1 - a)
