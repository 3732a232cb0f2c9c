mkdir -p /tmp/site; for w in .whl/*.whl; do python3 -m zipfile -e "$w" /tmp/site; done; export PYTHONPATH=/tmp/site
CTEST_LIMIT=420 CTEST_JOBS=5 bench/device_round.sh '^gpu\.(cutlass|schemas)|^gpu\.triton\.(autotune|sass|launch|profile|roofline|example|planted)' margins
mkdir -p $OUT/triton_profile && cp -r build/tests/gpu/profiles/triton_softmax* $OUT/triton_profile/ 2>/dev/null; find $OUT/triton_profile -name '*.ncu-rep' -delete; ls -R $OUT/triton_profile | head -30
