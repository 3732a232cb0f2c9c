"""python/kopt_mx_formats.py (the imported MX problems' reference without torchao) on the vectors
the host quantizer's unit tests hold (tests/unit/run/block_scaled_fill_test.cpp), with numpy;
tests/python/mx_host_agreement.py holds the two to the same bytes on random data."""

import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
import kopt_mx_formats as mx  # noqa: E402
import kopt_tensara_facts  # noqa: E402

try:
    import tomllib
except ImportError:  # Python < 3.11: the table's rows as the file has them
    tomllib = None

E2M1 = {"name": "e2m1", "exponent_bits": 2, "mantissa_bits": 1, "max": 6.0, "per_byte": 2, "nan_code": -1}
E4M3 = {"name": "e4m3", "exponent_bits": 4, "mantissa_bits": 3, "max": 448.0, "per_byte": 1, "nan_code": 127}


def codes(values, element):
    return mx.encode(np.array(values, dtype=np.float32), element).tolist()


def test_the_table_rows_are_the_ones_tested():
    if tomllib is None:
        return
    with open(os.path.join(ROOT, "data", "block_scaled_formats.toml"), "rb") as f:
        rows = {row["name"]: row for row in tomllib.load(f)["element"]}
    for element in (E2M1, E4M3):
        assert all(rows[element["name"]][key] == value for key, value in element.items())


def test_e2m1_is_the_ocp_table_with_ties_to_even():
    assert codes([0, 0.5, 1, 1.5, 2, 3, 4, 6], E2M1) == list(range(8))
    assert codes([-0.5, -6], E2M1) == [0x9, 0xF]
    assert codes([0.25, 0.75, 2.5, 5.0, 100.0, -0.1], E2M1) == [0x0, 0x2, 0x4, 0x6, 0x7, 0x8]
    assert mx.decode(np.arange(16, dtype=np.uint8), E2M1).tolist() == \
        [0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6]


def test_e4m3_is_the_ocp_fp8_spec():
    assert codes([1.0, 448.0, -448.0, 464.0, 1e6], E4M3) == [0x38, 0x7E, 0xFE, 0x7E, 0x7E]
    assert codes([2.0 ** -9, 2.0 ** -6, 2.0 ** -10, 3 * 2.0 ** -10, -2.0 ** -12], E4M3) == [0x01, 0x08, 0x00, 0x02, 0x80]
    assert np.isnan(mx.decode(np.array([0x7F], dtype=np.uint8), E4M3)[0])


def test_scales_are_the_floor_power_of_two():
    max_abs = np.array([1.0, 0.99, 0.0, np.inf], dtype=np.float32)
    assert mx.scale_of(max_abs, E2M1).tolist() == [125, 124, 0, 255]
    assert mx.scale_of(max_abs[:1], E4M3).tolist() == [119]


def test_quantize_then_dequantize_is_within_a_step():
    """Each value comes back within its block's scale times the largest gap the format rounds or
    saturates across at the top of its range (e2m1: [6, 8) to 6; e4m3: [448, 512) to 448)."""
    x = np.random.default_rng(3).random((6, 64), dtype=np.float32) * 2 - 1
    for element, widest in ((E2M1, 2.0), (E4M3, 64.0)):
        scales, data = mx.quantize(x, element, 32)
        assert data.shape == (6, 64 // element["per_byte"]) and scales.shape == (6, 2)
        back = mx.dequantize(data, scales, element, 32)
        scale = np.repeat(2.0 ** (scales.astype(np.float64) - 127), 32, axis=1)
        assert (np.abs(back - x) <= scale * widest).all()


def test_blocked_scales_round_trip_with_zero_padding():
    scales = np.arange(130 * 5, dtype=np.int64).astype(np.uint8).reshape(130, 5)
    flat = mx.to_blocked(scales)
    assert flat.shape == (256 * 8,)
    assert (mx.from_blocked(flat, 130, 5) == scales).all()
    assert flat[16] == scales[1, 0] and flat[4] == scales[32, 0] and flat[512] == scales[0, 4]


def test_tensara_mx_problems_read_as_the_halves_of_one_quantization():
    folder = os.path.join(ROOT, "tests", "fixtures", "import", "suites", "tensara")
    gemm = kopt_tensara_facts.read(os.path.join(folder, "mxfp4-gemm", "def.py"))
    assert gemm["buffers"]["q_a"]["init"] == "mx_data(normal(0,1), e2m1, 32, a)"
    assert gemm["buffers"]["scale_b"]["init"] == "mx_scale_blocked(normal(0,1), e2m1, 32, b, n, k)"
    assert gemm["buffers"]["c"]["shape"] == ["m", "n"]
    assert gemm["block_scaled"]["operation"] == "gemm"
    quantize = kopt_tensara_facts.read(os.path.join(folder, "mxfp8-quantize", "def.py"))
    assert [quantize["buffers"][n]["shape"] for n in ("q", "scale")] == [["m", "k"], ["m", "k/32"]]
    assert quantize["buffers"]["q"]["exact"] and quantize["block_scaled"]["parts"] == ["data", "scale"]
