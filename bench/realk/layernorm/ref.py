def reference(x, y, rows, cols):
    if hasattr(x, "double"):
        v = x.double()
        mean = v.mean(dim=1, keepdim=True)
        var = v.var(dim=1, unbiased=False, keepdim=True)
        y.copy_(((v - mean) / (var + 1e-5).sqrt()).float())
    else:
        v = x.astype("float64")
        mean = v.mean(axis=1, keepdims=True)
        var = v.var(axis=1, keepdims=True)
        y[...] = (v - mean) / (var + 1e-5) ** 0.5
