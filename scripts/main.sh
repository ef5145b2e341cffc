#!/usr/bin/env bash
# Fresh machine -> main job: installs, builds, replays the bundled seed cases (outputs under out/),
# then runs the default conformance campaign, `gradconf check` (every law of every registered op
# and the planted-fault self-test, 60 s budget, one shard process per core; the fork law's 48
# forks a case take about half of it on 2 cores, spread over the rounds), which writes
# summary.md, report.json, junit.xml and report.html to reports/out/<timestamp>/ and exits
# non-zero when anything FAILED.
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
./build/default/cli/gradconf check --budget "${GRADCONF_BUDGET:-60}" --jobs "$(nproc)"
