"""Reference: Horner's rule for 64 terms of acc = acc * x / 2 + 1 / (k + 1), in float64."""


def reference(x, y, N):
    v = x.double() if hasattr(x, "double") else x.astype("float64")
    acc = v * 0.0
    for k in range(64):
        acc = acc * v * 0.5 + 1.0 / (k + 1)
    y[...] = acc
