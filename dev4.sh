set -u; rm -rf build; mv .devbuild build; mkdir -p /work; ln -sfn "$PWD" /work/main; cd /work/main; touch build/tests/kopt_unit_tests*_tests.cmake; export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/r4; mkdir -p $R
# issue 17: the verdict's wall time (reference started after the kernel's CUDA set-up, page-locked output copies)
( OUT=$R/wall RUNS=3 timeout 60 tools/bench_wall.sh ) > $R/wall.txt 2>&1
# issue 22: two kopt processes on one GPU take turns
timeout 40 ctest --test-dir build -R 'gpu.bench.two_at_once' --output-on-failure > $R/two.txt 2>&1
# issues 21, 23: the loop with rewritten full-kernel branches, its audit, report and overhead
( time OUT=$R/overhead K1=4 K2=4 timeout 195 tools/loop_overhead_gpu.sh ) > $R/overhead.txt 2>&1
find $R -name '*.ncu-rep' -delete; find $R -name '*samples*.bin' -delete
tar czf $OUT/dev4.tgz -C $OUT r4
