#!/usr/bin/env bash
# On the GPU machine (PyTorch present, Nsight Systems perhaps): captures the system-level
# traces `kopt evidence` is tested on (tests/unit/system/system_trace_test.cpp), from a small
# workload — host-to-device copies, three matmul + softmax steps, a copy back — run five
# times after a warm-up:
#   torch_trace.json        the PyTorch profiler's Chrome trace (CPU + CUDA activities)
#   nsys_workload.sqlite    nsys profile --trace=cuda of the same workload, exported to SQLite
#                           (only where nsys is installed; nsys_missing.txt says so otherwise)
#   evidence_*.txt          kopt evidence on each (build/cli/kopt), to read the figures
#   capture_info.txt        versions of torch, CUDA, the GPU, nsys
# Everything goes under $OUT; commit torch_trace.json and nsys_workload.sqlite to
# tests/fixtures/evidence/. Runs from the repository root with a built tree in build/.
set -uo pipefail
out=${OUT:-/tmp/kopt-evidence}
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/workload.py" <<'PY'
import sys
import torch

def step(a, b):
    x, y = a.cuda(), b.cuda()                   # pageable host-to-device copies
    for _ in range(3):
        x = torch.softmax(x @ y, dim=-1)        # one matmul kernel and one softmax kernel
    return x.cpu()                              # a device-to-host copy

torch.backends.cuda.matmul.allow_tf32 = False
a, b = torch.randn(2048, 2048), torch.randn(2048, 2048)
step(a, b); torch.cuda.synchronize()            # warm-up: cuBLAS handles, allocator
if sys.argv[1] == "torch":
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            step(a, b)
        torch.cuda.synchronize()
    prof.export_chrome_trace(sys.argv[2])
else:
    for _ in range(5):
        step(a, b)
    torch.cuda.synchronize()
PY

{
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  command -v nsys >/dev/null && nsys --version
} > "$out/capture_info.txt" 2>&1

timeout 300 python3 "$work/workload.py" torch "$out/torch_trace.json" > "$out/torch_capture.log" 2>&1
echo "torch trace: exit $? ($(wc -c < "$out/torch_trace.json" 2>/dev/null || echo 0) bytes)"

nsys_bin=$(command -v nsys || ls /opt/nvidia/nsight-systems/*/bin/nsys /usr/local/cuda/bin/nsys 2>/dev/null | head -1)
if [ -n "$nsys_bin" ] && [ -x "$nsys_bin" ]; then
  timeout 300 "$nsys_bin" profile --trace=cuda --sample=none --cpuctxsw=none -o "$work/nsys_workload" --force-overwrite true \
    python3 "$work/workload.py" plain > "$out/nsys_capture.log" 2>&1
  timeout 300 "$nsys_bin" export --type sqlite -o "$out/nsys_workload.sqlite" "$work/nsys_workload.nsys-rep" \
    >> "$out/nsys_capture.log" 2>&1
  echo "nsys export: exit $? ($(wc -c < "$out/nsys_workload.sqlite" 2>/dev/null || echo 0) bytes)"
else
  echo "nsys is not installed on this machine: no Nsight Systems export captured" | tee "$out/nsys_missing.txt"
fi

for trace in torch_trace.json nsys_workload.sqlite; do
  [ -s "$out/$trace" ] && build/cli/kopt evidence "$out/$trace" > "$out/evidence_${trace%%.*}.txt" 2>&1
done
ls -l "$out"
