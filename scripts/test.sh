#!/usr/bin/env bash
# Fresh machine -> all tests: installs dependencies (python3-torch too, so the PyTorch
# cross-checks run instead of skipping), builds the default preset, runs ctest (unit, validation,
# kernel, example, property, corpus, reports, torch), runs every law of every op once more under
# ASan+UBSan (scripts/laws-sanitized.sh), then builds the clang fuzz preset and runs every fuzz
# target from its corpus (any crash fails). Each step prints its wall time, so a CI log shows
# where the time budget goes.
set -euo pipefail
cd "$(dirname "$0")/.."
step() {
  local started=$SECONDS
  "$@"
  echo "test.sh: '$*' took $((SECONDS - started)) s"
}
step bash scripts/install-deps.sh --with-torch
step cmake --preset default
step cmake --build --preset default -j2
step ctest --test-dir build/default -j2 --output-on-failure
step bash scripts/laws-sanitized.sh
step bash scripts/fuzz-smoke.sh
