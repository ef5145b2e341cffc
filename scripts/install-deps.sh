#!/usr/bin/env bash
# Installs every Debian package gradconf needs to build, test and fuzz. Idempotent: when all
# packages are already installed it does nothing (no apt-get update). Run as root.
#   --with-torch   also install python3-torch (~800 MB) for the PyTorch cross-checks (ctest label
#                  `torch`) and benchmarks, and chromium for the test that renders report.html;
#                  scripts/test.sh (so CI) passes it, so those checks run there; without it they
#                  skip (exit 77).
set -euo pipefail

packages=(
  build-essential cmake ninja-build git
  libeigen3-dev libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev
  clang-14 libclang-rt-14-dev llvm-14 clang-format-14
  libpugixml-dev libfmt-dev
  python3 python3-numpy zip
)
if [[ "${1:-}" == "--with-torch" ]]; then
  packages+=(python3-torch chromium)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
