import triton

def launch(x, y, n):
    pass
