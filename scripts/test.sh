#!/usr/bin/env bash
# Fresh machine -> all tests: installs dependencies, builds the default preset, runs ctest (unit,
# validation, kernel, example, property, corpus), then builds the clang fuzz preset and runs every
# fuzz target for 20 s from its corpus (any crash fails).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default
cmake --build --preset default -j2
ctest --test-dir build/default -j2 --output-on-failure
bash scripts/fuzz-smoke.sh 20
