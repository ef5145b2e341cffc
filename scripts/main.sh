#!/usr/bin/env bash
# Fresh machine -> main job: installs, builds, replays the bundled seed cases and writes their
# outputs under out/ (the conformance campaign replaces this in the report issue).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default
cmake --build --preset default -j2 --target gradconf
mkdir -p out
for case in examples/cases/*/; do
  name=$(basename "$case")
  ./build/default/cli/gradconf replay "$case" --out "out/$name"
  cat "out/$name/status.json"; echo
done
# Property/validation smoke: every law on the shipped kernels (1000 cases each; scale with
# GRADCONF_PROPERTY_SCALE), one line per law.
cmake --build --preset default -j2 --target gradconf_property_tests
./build/default/tests/gradconf_property_tests --gtest_filter='Laws/RegisteredLaw.*' \
  2>&1 | tee out/property-smoke.txt | grep -E '^\[ *(OK|FAILED|PASSED) *\]|Falsifiable|failed for'
