#!/usr/bin/env bash
# The main job: install what building needs (no test packages), build the libraries, plugins and
# tools without tests or benchmarks, then list backends and devices and run the quickstart example
# on the default device. scripts/test.sh reconfigures the same build/ with the tests on.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
infinirt_install_deps build
cmake -S . -B build $(infinirt_cmake_flags) \
  -DINFINIRT_BUILD_TESTS=OFF -DINFINIRT_BUILD_BENCHMARKS=OFF -DINFINIRT_SANITIZE=
cmake --build build --parallel "$(nproc)"
./build/bin/infinirt-info
echo "(A backend listed as unavailable has no usable device here, and its reason line says why: expected for" \
     "cuda and hip without an NVIDIA or AMD GPU, and for opencl until an OpenCL driver is installed.)"
./build/bin/infinirt-quickstart
./build/bin/infinirt-saxpy
