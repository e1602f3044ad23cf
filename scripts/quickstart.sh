#!/usr/bin/env bash
# The main job: install what is missing, build, then list backends and devices and run the
# quickstart example on the default device.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
infinirt_install_deps
cmake -S . -B build $(infinirt_cmake_flags) -DINFINIRT_BUILD_TESTS=OFF
cmake --build build --parallel "$(nproc)"
./build/bin/infinirt-info
./build/bin/infinirt-quickstart
