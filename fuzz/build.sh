#!/usr/bin/env bash
# Builds every fuzz target the OSS-Fuzz / ClusterFuzzLite way:
#   CC CXX CFLAGS CXXFLAGS LIB_FUZZING_ENGINE OUT   (as those builders set them)
# and puts next to each binary in $OUT: <target>_seed_corpus.zip, <target>.dict and
# <target>.options. Locally, for example:
#   CC=clang-14 CXX=clang++-14 CFLAGS="-fsanitize=address,fuzzer-no-link" \
#   CXXFLAGS="-fsanitize=address,fuzzer-no-link" LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
#   OUT=/tmp/out bash fuzz/build.sh
set -euo pipefail
: "${CC:?}" "${CXX:?}" "${LIB_FUZZING_ENGINE:?}" "${OUT:?}"
SRC="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${WORK:-$SRC/build}/oss-fuzz"
cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="${CFLAGS:-}" -DCMAKE_CXX_FLAGS="${CXXFLAGS:-}" \
  -DGRADCONF_BUILD_FUZZERS=ON -DGRADCONF_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" \
  -DGRADCONF_FUZZ_INSTRUMENT=OFF -DGRADCONF_BUILD_TESTS=OFF -DGRADCONF_BUILD_BENCH=OFF
# The one list of targets, written by fuzz/CMakeLists.txt.
mapfile -t targets < "$BUILD/fuzz/targets.txt"
cmake --build "$BUILD" --target "${targets[@]}"
mkdir -p "$OUT"
for target in "${targets[@]}"; do
  cp "$BUILD/fuzz/$target" "$OUT/"
  cp "$SRC/corpus/$target.dict" "$OUT/$target.dict"
  cp "$SRC/corpus/$target.options" "$OUT/$target.options"
  rm -f "$OUT/${target}_seed_corpus.zip"
  # Seeds and every past regression: a fuzzer starts from everything that ever mattered.
  (cd "$SRC/corpus" && python3 - "$OUT/${target}_seed_corpus.zip" "$target" <<'PY'
import os, sys, zipfile
out, target = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for folder in (target, os.path.join("regressions", target)):
        if os.path.isdir(folder):
            for name in sorted(os.listdir(folder)):
                z.write(os.path.join(folder, name), name)
PY
  )
done
echo "built ${#targets[@]} targets into $OUT"
