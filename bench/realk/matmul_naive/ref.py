def reference(A, B, C, M, N, K):
    if hasattr(A, "double"):  # torch
        C.copy_((A.double() @ B.double()).float())
    else:
        C[...] = A.astype("float64") @ B.astype("float64")
