#!/usr/bin/env bash
# Fresh machine -> main job: installs, builds, replays the bundled seed cases and writes their
# outputs under out/ (the conformance campaign replaces this in the report issue).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default
cmake --build --preset default -j2 --target gradconf
for case in examples/cases/*/; do
  name=$(basename "$case")
  ./build/default/cli/gradconf replay "$case" --out "out/$name"
  cat "out/$name/status.json"; echo
done
