def reference(input, output, rows, cols):
    if hasattr(input, "t"):
        output.copy_(input.t())
    else:
        output[...] = input.T
