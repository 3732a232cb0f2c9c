#!/usr/bin/env bash
# Checks and times the tunable reduction and softmax examples at a few configurations (their
# slow defaults, hand-picked fast ones, every method switched off), on a GPU machine with
# build/, from the repo root: bench/example_configs.sh OUT_DIR. Prints one line per
# configuration: median and achieved DRAM bandwidth from the spec's bytes formula.
set -uo pipefail
out=${1:?OUT_DIR}; mkdir -p "$out"
kopt=build/cli/kopt
export PATH="$PATH:/usr/local/cuda/bin"
measure() {  # example label -D...
  local example=$1 label=$2; shift 2
  if $kopt bench examples/$example "$@" --case default --seeds 1 --no-reference \
       --out "$out/$example.$label.json" > "$out/$example.$label.txt" 2>&1; then
    python3 - "$out/$example.$label.json" "$example $label" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["variants"][0]
bw = v.get("bytes_per_second") or 0
print(f"{sys.argv[2]}: median {v['summary']['median']*1e6:.2f} us, {bw/1e12:.3f} TB/s")
PY
  else
    echo "$example $label: FAILED"; tail -4 "$out/$example.$label.txt"
  fi
}
off="-D KOPT_USE_VECTORIZED_ACCESS=0 -D KOPT_USE_WARP_SHUFFLE_REDUCTION=0"
measure reduction default
measure reduction t256_i4_b8 -D THREADS=256 -D ITEMS=4 -D BLOCKS_PER_SM=8
measure reduction t512_i2_b4 -D THREADS=512 -D ITEMS=2 -D BLOCKS_PER_SM=4
measure reduction t1024_i4_b2 -D THREADS=1024 -D ITEMS=4 -D BLOCKS_PER_SM=2
measure reduction switches_off $off -D KOPT_USE_GRID_STRIDE_LOOP=0 -D THREADS=256
measure softmax default
measure softmax t256_i2 -D THREADS=256 -D ITEMS=2
measure softmax t512_i1 -D THREADS=512 -D ITEMS=1
measure softmax t1024_i2 -D THREADS=1024 -D ITEMS=2
measure softmax t256_no_smem -D THREADS=256 -D KOPT_USE_SMEM_TILING=0
measure softmax switches_off $off -D KOPT_USE_SMEM_TILING=0 -D THREADS=128
