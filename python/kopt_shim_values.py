"""Literal data a suite's test computes, element by element, for the stand-in torch (kopt_suite_shim.py).

A test's small edge case is often built by code from known numbers rather than drawn: a
channel written as `torch.arange(H * W).reshape(H, W).flip(0)`, columns written with
`torch.linspace(...)`, a row of token ids written one by one, a sinusoid `torch.stack((cos,
sin), dim=1)`. Each is one list of numbers, which kopt's values(...) holds exactly; these
helpers compute it from the shapes and values the stand-in records (row-major lists), and
answer None where the data is not such a list, so that the stand-in records it as built by code.
Arithmetic is in double, rounded once to the buffer's type where kopt writes it (torch's float32
steps may differ in the last bit; no test's strictness turns on that).
"""

import itertools
import math


def positions(shape):
    """Every multi-index of a row-major shape, in order."""
    return itertools.product(*(range(extent) for extent in shape))


def flat_index(shape, index):
    flat = 0
    for extent, i in zip(shape, index):
        flat = flat * extent + i
    return flat


def written_positions(shape, index):
    """The row-major positions `x[index]` names, where each part is an int or a slice (parts
    fewer than the rank leave the rest whole); None for any other index (a mask, a tensor)."""
    index = index if isinstance(index, tuple) else (index,)
    if len(index) > len(shape) or any(isinstance(p, bool) or not isinstance(p, (int, slice)) for p in index):
        return None
    axes = []
    for part, extent in zip(index + (slice(None),) * (len(shape) - len(index)), shape):
        if isinstance(part, slice):
            axes.append(range(*part.indices(extent)))
        elif -extent <= part < extent:
            axes.append([part % extent])
        else:
            return None
    return [flat_index(shape, chosen) for chosen in itertools.product(*axes)]


def written_over(values, shape, index, new):
    """`values` (of `shape`; None for an element never written) after `x[index] = new`, where
    new is one value or a list as long as the selection; None where that is not so."""
    chosen = written_positions(shape, index)
    if chosen is None or (isinstance(new, list) and len(new) not in (1, len(chosen))):
        return None
    if not isinstance(new, list) or len(new) != len(chosen):  # one value, broadcast over the selection
        new = [new[0] if isinstance(new, list) else new] * len(chosen)
    result = list(values)
    for position, value in zip(chosen, new):
        result[position] = value
    return result


def flipped(values, shape, dims):
    """torch.flip(x, dims) of a row-major list."""
    dims = {d % len(shape) for d in dims}
    return [values[flat_index(shape, [extent - 1 - i if axis in dims else i
                                      for axis, (extent, i) in enumerate(zip(shape, index))])]
            for index in positions(shape)]


def stacked(lists, shape, dim):
    """torch.stack of tensors of one shape along a new axis `dim`: for each index before the
    axis, each tensor's run of the elements after it, in turn."""
    inner = math.prod(shape[dim:])
    outer = math.prod(shape[:dim])
    return [v for o in range(outer) for values in lists for v in values[o * inner:(o + 1) * inner]]


def linspace(start, end, steps):
    """torch.linspace's values as torch computes them: the first half stepped up from start, the
    second stepped down from end, so that both ends are exact."""
    if steps == 1:
        return [start]
    step = (end - start) / (steps - 1)
    return [start + step * i if i < steps // 2 else end - step * (steps - 1 - i) for i in range(steps)]


# torch.FUNCTION(x) of literal data, element by element (a sinusoid's cos and sin tables).
ELEMENTWISE = {"cos": math.cos, "sin": math.sin, "exp": math.exp, "sqrt": math.sqrt, "abs": abs,
               "tanh": math.tanh, "log": math.log}


def mapped(name, values):
    """ELEMENTWISE[name] of each value; None where one has no real result here (sqrt(-1),
    log(0), an overflow): torch's nan or inf there is left to the stand-in's "computed"."""
    try:
        return [ELEMENTWISE[name](v) for v in values]
    except (ValueError, OverflowError):
        return None
