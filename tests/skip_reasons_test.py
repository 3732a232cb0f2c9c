#!/usr/bin/env python3
"""skip_reasons_test.py: tests/skip_reasons.py on a LastTest.log as ctest 3.25 writes it: a
script's SKIPPED: line and a GTEST_SKIP message are each a reason, a passing test is none, and
the reasons are grouped with their counts."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from skip_reasons import format_reasons, skip_reasons


def block(index, name, output):
    return (f"{index}/4 Testing: {name}\n{index}/4 Test: {name}\nCommand: \"/bin/sh\"\nDirectory: /b\n"
            f"\"{name}\" start time: Dec 01 05:14 UTC\nOutput:\n{'-' * 58}\n{output}<end of output>\n"
            f"Test time =   0.01 sec\n{'-' * 58}\nTest Passed.\n{'-' * 58}\n\n")


LOG = ("Start testing: Dec 01 05:14 UTC\n" + "-" * 58 + "\n"
       + block(1, "gpu.example.vector_add", "SKIPPED: no GPU here (nvidia-smi -L lists none, no /dev/nvidia0)\n")
       + block(2, "gpu.planted.racy", "checking\nSKIPPED: no GPU here (nvidia-smi -L lists none, no /dev/nvidia0)\n")
       + block(3, "unit.Compiler.Compiles", "[ RUN      ] Compiler.Compiles\n/k/compiler_test.cpp:140: Skipped\n"
                                          "nvcc is not installed\n\n[  SKIPPED ] Compiler.Compiles (0 ms)\n")
       + block(4, "unit.Expression.Parses", "[ RUN      ] Expression.Parses\n[       OK ] Expression.Parses (0 ms)\n")
       + "End testing: Dec 01 05:14 UTC\n")

reasons = skip_reasons(LOG)
expected = {"no GPU here (nvidia-smi -L lists none, no /dev/nvidia0)": ["gpu.example.vector_add", "gpu.planted.racy"],
            "nvcc is not installed": ["unit.Compiler.Compiles"]}
assert reasons == expected, reasons
text = format_reasons(reasons)
assert text.splitlines()[1] == "  2 × no GPU here (nvidia-smi -L lists none, no /dev/nvidia0): gpu.example.vector_add, gpu.planted.racy", text
assert text.splitlines()[2] == "  1 × nvcc is not installed: unit.Compiler.Compiles", text
many = format_reasons({"no GPU": [f"gpu.t{i}" for i in range(10)]})
assert many.splitlines()[1] == "  10 × no GPU: gpu.t0, gpu.t1, gpu.t2, gpu.t3 and 6 more", many
assert format_reasons(skip_reasons(block(1, "unit.A.B", "[       OK ] A.B\n"))) == ""
print("ok")
