"""Block-scaled (MX) quantization as torchao's to_mx does it (FLOOR scale mode), for references
that must run where torchao is not installed. Every function takes torch tensors or numpy
arrays (the array's own module does the work, so a reference stays on its GPU and a CPU test
needs no torch), and gives the same bytes as kopt's host fills mx_data / mx_scale /
mx_scale_blocked (src/kopt/run/block_scaled_fill.cpp; tests/python/test_mx_formats.py).

An element format is a dict of data/block_scaled_formats.toml's [[element]] row: exponent_bits,
mantissa_bits, max, per_byte, nan_code (the reference kopt import writes carries its row).

    scale, data = quantize(x, element, 32)        # x: float32 (..., k); scale (..., k/32) uint8 e8m0
    x_back = dequantize(data, scale, element, 32)  # float32, the packed elements times their scales
"""

E8M0_BIAS = 127  # data/block_scaled_formats.toml's [scale]: byte s is 2^(s - 127)
E8M0_NAN = 255
FLOAT32_BIAS, FLOAT32_MANTISSA_BITS = 127, 23


def _module(array):
    """torch or numpy: the module whose functions work on `array`."""
    if type(array).__module__.startswith("torch"):
        import torch
        return torch
    import numpy
    return numpy


def _cast(array, dtype_name):
    xp = _module(array)
    dtype = getattr(xp, dtype_name)
    return array.to(dtype) if hasattr(array, "to") and xp.__name__ == "torch" else array.astype(dtype)


def _arange(count, like):
    xp = _module(like)
    if xp.__name__ == "torch":
        return xp.arange(count, device=like.device, dtype=xp.int64)
    return xp.arange(count, dtype=xp.int64)


def _pow2(exponent):
    """2.0 ** exponent as float32, exactly, for int32 exponents from -127 to 127 (-127: the
    subnormal 2^-127, as torchao's reciprocal scale has it)."""
    xp = _module(exponent)
    exponent = _cast(exponent, "int32")
    normal_bits = (exponent + FLOAT32_BIAS) << FLOAT32_MANTISSA_BITS
    bits = xp.where(exponent == -FLOAT32_BIAS, xp.zeros_like(exponent) + 0x00400000, normal_bits)
    return bits.view(xp.float32)


def _floor_log2(magnitude):
    """floor(log2(m)) of float32 magnitudes > 0, exactly (frexp: m = f * 2^e, f in [0.5, 1))."""
    return _cast(_module(magnitude).frexp(magnitude)[1], "int32") - 1


def bias(element):
    return (1 << (element["exponent_bits"] - 1)) - 1


def max_pow2(element):
    """floor(log2(max)): a block's scale puts its largest magnitude in [2^max_pow2, 2^(max_pow2+1))."""
    import math
    return math.frexp(element["max"])[1] - 1


def scale_of(max_abs, element):
    """The e8m0 byte of blocks whose largest magnitudes are max_abs (float32): the exponent field of
    max_abs less max_pow2, clamped to e8m0's range; NaN (255) where max_abs is not finite."""
    xp = _module(max_abs)
    field = (max_abs.view(xp.int32) >> FLOAT32_MANTISSA_BITS) & 0xFF
    unbiased = xp.clip(field - FLOAT32_BIAS - max_pow2(element), -E8M0_BIAS, E8M0_BIAS + 1)
    return _cast(xp.where(xp.isfinite(max_abs), unbiased + E8M0_BIAS, xp.zeros_like(unbiased) + E8M0_NAN), "uint8")


def encode(values, element):
    """float32 values (already divided by their scales) as element codes (uint8): round to nearest,
    ties to even, saturating at max, the sign kept (a negative that rounds to zero is -0)."""
    xp = _module(values)
    mantissa_bits, exponent_bias = element["mantissa_bits"], bias(element)
    sign_bit = 1 << (element["exponent_bits"] + mantissa_bits)
    min_exponent = 1 - exponent_bias
    magnitude = xp.abs(values)
    exponent = xp.clip(_floor_log2(magnitude), min_exponent, None)
    quantum = _pow2(exponent - mantissa_bits)
    rounded = xp.clip(xp.round(magnitude / quantum) * quantum, None, element["max"])
    rounded_exponent = _floor_log2(rounded)
    normal = (rounded_exponent >= min_exponent) & (rounded > 0)
    exponent_field = xp.where(normal, rounded_exponent + exponent_bias, xp.zeros_like(rounded_exponent))
    mantissa = xp.where(normal, rounded / _pow2(rounded_exponent - mantissa_bits) - (1 << mantissa_bits),
                        rounded / _pow2(xp.zeros_like(rounded_exponent) + min_exponent - mantissa_bits))
    code = (exponent_field << mantissa_bits) | _cast(mantissa, "int32")
    nan_code = element["nan_code"] if element["nan_code"] >= 0 else sign_bit - 1
    code = xp.where(xp.isnan(values), xp.zeros_like(code) + nan_code, code)
    code = xp.where(xp.signbit(values), code | sign_bit, code)
    return _cast(code, "uint8")


def decode(codes, element):
    """Element codes (uint8, one per byte) as float32 values."""
    xp = _module(codes)
    mantissa_bits, exponent_bits = element["mantissa_bits"], element["exponent_bits"]
    sign_bit = 1 << (exponent_bits + mantissa_bits)
    codes = _cast(codes, "int32")
    field = (codes >> mantissa_bits) & ((1 << exponent_bits) - 1)
    mantissa = _cast(codes & ((1 << mantissa_bits) - 1), "float32")
    subnormal = mantissa * _pow2(xp.zeros_like(field) + 1 - bias(element) - mantissa_bits)
    normal = (mantissa + (1 << mantissa_bits)) * _pow2(field - bias(element) - mantissa_bits)
    value = xp.where(field == 0, subnormal, normal)
    if element["nan_code"] >= 0:
        value = xp.where((codes & (sign_bit - 1)) == element["nan_code"], value * float("nan"), value)
    return xp.where((codes & sign_bit) != 0, -value, value)


def pack(codes, element):
    """Codes along the last axis, two to a byte for a 4-bit format (the lower index in the low nibble)."""
    if element["per_byte"] == 1:
        return codes
    return codes[..., 0::2] | (codes[..., 1::2] << 4)


def unpack(data, element):
    if element["per_byte"] == 1:
        return data
    xp = _module(data)
    pairs = xp.stack([data & 0xF, data >> 4], -1)
    return pairs.reshape(tuple(data.shape[:-1]) + (data.shape[-1] * 2,))


def quantize(x, element, block):
    """(scales, packed data) of float32 x (..., k), k a multiple of block: torchao's
    to_mx(x, elem_dtype, block) in its default FLOOR mode, both as uint8."""
    xp = _module(x)
    blocks = x.reshape(tuple(x.shape[:-1]) + (x.shape[-1] // block, block))
    max_abs = xp.amax(xp.abs(blocks), -1)
    scales = scale_of(max_abs, element)
    reciprocal = _pow2(E8M0_BIAS - _cast(scales, "int32"))
    reciprocal = xp.where(scales == E8M0_NAN, reciprocal * float("nan"), reciprocal)
    codes = encode(blocks * reciprocal[..., None], element).reshape(tuple(x.shape))
    return scales, pack(codes, element)


def dequantize(data, scales, element, block):
    """float32 values of packed data (..., k / per_byte) and its scales (..., k / block): torchao's
    to_dtype(..., torch.float32)."""
    xp = _module(data)
    values = decode(unpack(data, element), element)
    shape = tuple(values.shape)
    scale_values = _pow2(_cast(scales, "int32") - E8M0_BIAS)
    scale_values = xp.where(scales == E8M0_NAN, scale_values * float("nan"), scale_values)
    blocks = values.reshape((-1, block)) * scale_values.reshape((-1, 1))
    return blocks.reshape(shape)


def blocked_offsets(rows, blocks_per_row, like):
    """Where scale (r, c) of a rows x blocks_per_row matrix lies in cuBLAS's blocked layout (128 x 4
    tiles, each as its four 32-row strips interleaved: torchao's to_blocked), row-major (r, c) order."""
    tiles_per_row = (blocks_per_row + 3) // 4
    index = _arange(rows * blocks_per_row, like)
    row, column = index // blocks_per_row, index % blocks_per_row
    tile = (row // 128) * tiles_per_row + column // 4
    return tile * 512 + (row % 32) * 16 + (row % 128) // 32 * 4 + column % 4


def to_blocked(scales):
    """A rows x blocks scale matrix in the blocked layout, flat, its padding zero bytes."""
    xp = _module(scales)
    rows, blocks_per_row = scales.shape
    padded = ((rows + 127) // 128 * 128) * ((blocks_per_row + 3) // 4 * 4)
    flat = xp.zeros(padded, dtype=scales.dtype, device=scales.device) if xp.__name__ == "torch" \
        else xp.zeros(padded, dtype=scales.dtype)
    flat[blocked_offsets(rows, blocks_per_row, scales)] = scales.reshape(-1)
    return flat


def from_blocked(flat, rows, blocks_per_row):
    """The rows x blocks_per_row scale matrix of a blocked layout."""
    return flat.reshape(-1)[blocked_offsets(rows, blocks_per_row, flat)].reshape((rows, blocks_per_row))


def scaled_matmul(q_a, scale_a, q_b, scale_b, element, block, blocked_scales):
    """a @ b.T of two quantized matrices, a (m, k) and b (n, k), in float32: each dequantized, then
    multiplied (what torch's scaled_mm computes, up to the order of its sums)."""
    m, n = q_a.shape[0], q_b.shape[0]
    k = q_a.shape[-1] * element["per_byte"]
    if blocked_scales:
        scale_a, scale_b = from_blocked(scale_a, m, k // block), from_blocked(scale_b, n, k // block)
    a = dequantize(q_a, scale_a.reshape((m, k // block)), element, block)
    b = dequantize(q_b, scale_b.reshape((n, k // block)), element, block)
    return a @ b.T
