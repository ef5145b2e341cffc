#!/usr/bin/env bash
# Fresh machine -> all tests: installs dependencies, builds the default preset, runs ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default
cmake --build --preset default -j2
ctest --test-dir build/default -j2 --output-on-failure
