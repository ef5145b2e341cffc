#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build step: fuzz/build.sh already builds every target the way these
# builders expect (it reads CC, CXX, CFLAGS, CXXFLAGS, LIB_FUZZING_ENGINE, OUT) and puts each
# target's seed corpus (seeds + regressions), dictionary and options next to it in $OUT.
# The kernels' loops are left uninstrumented for coverage (fuzz/coverage_ignorelist.txt), as in
# our own fuzz builds.
cd "$SRC/gradconf"
export CFLAGS="${CFLAGS:-} -fsanitize-coverage-ignorelist=$SRC/gradconf/fuzz/coverage_ignorelist.txt"
export CXXFLAGS="${CXXFLAGS:-} -fsanitize-coverage-ignorelist=$SRC/gradconf/fuzz/coverage_ignorelist.txt"
bash fuzz/build.sh
