"""Reference for reduction: output[0] = sum(input), in float64, rounded to float32 once."""


def reference(input, output, N):
    if hasattr(input, "double"):  # torch tensors (on the GPU)
        output[0] = input[:N].double().sum()
    else:  # numpy arrays
        output[0] = input[:N].sum(dtype="float64")
