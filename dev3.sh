set -u; rm -rf build; mv .devbuild build; mkdir -p /work; ln -sfn "$PWD" /work/main; cd /work/main; touch build/tests/kopt_unit_tests*_tests.cmake; export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/r3; mkdir -p $R
# a smoke test of the prestarted workers and parallel audits before the figures
timeout 80 ctest --test-dir build -L gpu -R 'gpu.example.vector_add$|gpu.integrity.audit_sniff$|gpu.integrity.call_counter$|gpu.compare.a_a$|gpu.integrity.forge_in_solve$' -j5 --output-on-failure > $R/smoke.txt 2>&1
# issue 17: the verdict's wall time (prestarted reference and timing workers, parallel audits)
( OUT=$R/wall RUNS=3 timeout 70 tools/bench_wall.sh ) > $R/wall.txt 2>&1
# issues 21, 23: a loop run with rewritten full-kernel branches, its audit, report and overhead
( time OUT=$R/overhead timeout 190 tools/loop_overhead_gpu.sh ) > $R/overhead.txt 2>&1
find $R -name '*.ncu-rep' -delete; find $R -name '*samples*.bin' -delete
tar czf $OUT/dev3.tgz -C $OUT r3
