#!/usr/bin/env bash
# Fresh machine -> all tests: installs dependencies (python3-torch too, so the PyTorch
# cross-checks run instead of skipping), builds the default preset, runs ctest (unit, validation,
# kernel, example, property, corpus, reports, torch), runs every law of every op once more under
# ASan+UBSan (scripts/laws-sanitized.sh), then builds the clang fuzz preset and runs every fuzz
# target from its corpus (any crash fails).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --with-torch
cmake --preset default
cmake --build --preset default -j2
ctest --test-dir build/default -j2 --output-on-failure
bash scripts/laws-sanitized.sh
bash scripts/fuzz-smoke.sh
