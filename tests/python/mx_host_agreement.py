#!/usr/bin/env python3
"""kopt's host fills mx_data / mx_scale / mx_scale_blocked against python/kopt_mx_formats.py, bit for bit.

    python3 tests/python/mx_host_agreement.py KOPT

Writes a spec whose inputs are a float32 source `a` (uniform(-1,1)) and its quantizations to mxfp4
and mxfp8 by kopt's host (the blocked scale layout on 130 rows: a partial 128-row tile), and a
ref.py that quantizes the `a` it is given with kopt_mx_formats (numpy on a machine without torch)
and raises where one byte differs. `kopt check` runs that reference before it looks for a GPU:
exit 3 (no GPU) or 0 (a GPU, and the kernel's zeros match) means every byte agreed; exit 2 names
the first difference.
"""

import os
import shutil
import subprocess
import sys
import tempfile

try:
    import tomllib
except ImportError:
    print("SKIPPED: needs Python 3.11's tomllib")
    sys.exit(77)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SPEC = """name = "mx_host_agreement"
kernel = "kernel.cu"
reference = "ref.py"

[dims]
m = 130
k = 96

[buffers.a]
shape = ["m", "k"]
init = "uniform(-1,1)"
[buffers.q4]
shape = ["m", "k/2"]
init = "mx_data(uniform(-1,1), e2m1, 32, a)"
[buffers.s4]
shape = ["m", "k/32"]
init = "mx_scale(uniform(-1,1), e2m1, 32, a)"
[buffers.q8]
shape = ["m", "k"]
init = "mx_data(uniform(-1,1), e4m3, 32, a)"
[buffers.sb8]
shape = ["cdiv(m,128)*32", "cdiv(k,128)*16"]
init = "mx_scale_blocked(uniform(-1,1), e4m3, 32, a, m, k)"
[buffers.out]
shape = "1"
"""

KERNEL = """#include <cstdint>
__global__ void zero(float* out) { out[0] = 0.0f; }
extern "C" void solve(const float* a, const uint8_t* q4, const uint8_t* s4, const uint8_t* q8,
                      const uint8_t* sb8, float* out, int m, int k) {
  zero<<<1, 1>>>(out);
}
"""

REFERENCE = """import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kopt_mx_formats as mx

ELEMENTS = {elements!r}


def as_numpy(x):
    return x.cpu().numpy() if hasattr(x, "cpu") else x


def same(name, ours, host):
    ours, host = as_numpy(ours).reshape(-1), as_numpy(host).reshape(-1)
    differ = (ours != host).nonzero()[0]
    if len(differ):
        raise AssertionError("%s: %d of %d bytes differ from kopt's host fill (first at %d: %d, the host's %d)"
                             % (name, len(differ), ours.size, differ[0], ours[differ[0]], host[differ[0]]))


def reference(a, q4, s4, q8, sb8, out, m, k):
    s, q = mx.quantize(a, ELEMENTS["e2m1"], 32)
    same("mxfp4 data", q, q4)
    same("mxfp4 scales", s, s4)
    s, q = mx.quantize(a, ELEMENTS["e4m3"], 32)
    same("mxfp8 data", q, q8)
    same("mxfp8 blocked scales", mx.to_blocked(s), sb8)
    same("blocked scales read back", mx.from_blocked(sb8, m, k // 32), s)
    out[...] = 0
"""


def main(argv):
    if len(argv) != 2:
        print("usage: mx_host_agreement.py KOPT", file=sys.stderr)
        return 2
    with open(os.path.join(ROOT, "data", "block_scaled_formats.toml"), "rb") as f:
        elements = {row["name"]: row for row in tomllib.load(f)["element"]}
    folder = tempfile.mkdtemp(prefix="kopt-mx-agreement-")
    try:
        for name, text in (("kopt.toml", SPEC), ("kernel.cu", KERNEL), ("ref.py", REFERENCE.format(elements=elements))):
            with open(os.path.join(folder, name), "w") as f:
                f.write(text)
        shutil.copy(os.path.join(ROOT, "python", "kopt_mx_formats.py"), folder)
        env = dict(os.environ, KOPT_CACHE_DIR=os.path.join(folder, "cache"))
        done = subprocess.run([argv[1], "check", folder, "--seed", "11", "--seeds", "1"], capture_output=True,
                              text=True, env=env)
        print(done.stdout + done.stderr)
        if done.returncode in (0, 3):
            print("PASSED: kopt_mx_formats.py gives the bytes kopt's host fills write")
            return 0
        return 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
