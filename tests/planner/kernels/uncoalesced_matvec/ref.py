"""Reference: y = A x in float64."""


def reference(A, x, y, M, N):
    if hasattr(A, "double"):
        y.copy_((A.double().reshape(M, N) @ x.double()).float())
    else:
        y[...] = A.reshape(M, N).astype("float64") @ x.astype("float64")
