#!/usr/bin/env bash
# Installs the Debian 12 packages infinirt needs, if missing. Sourced by quickstart.sh (build
# packages only) and test.sh (build and test packages); safe to run again.
# `scripts/deps.sh` installs both sets; `scripts/deps.sh build` only what building needs.
set -euo pipefail

# To build the libraries, plugins, infinirt-info and the quickstart example. libgloo-dev: the cpu
# collective plugin's transport between hosts (Gloo over TCP; built by default, INFINIRT_WITH_GLOO=AUTO).
# libvulkan-dev, mesa-vulkan-drivers, glslc, spirv-tools: the vulkan backend's headers (it builds
# where vulkan/vulkan.h is, INFINIRT_WITH_VULKAN=AUTO), the Khronos loader and Mesa's Vulkan drivers
# (lavapipe: a Vulkan device on any CPU; RADV and ANV for AMD and Intel GPUs), and the GLSL compiler
# and SPIR-V linker that build the examples' and tests' vulkan kernels (cmake/InfinirtKernels.cmake;
# the backend's built-in shaders are checked in, scripts/vulkan-shaders.sh regenerates them).
INFINIRT_BUILD_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  ocl-icd-opencl-dev opencl-headers
  libamdhip64-dev
  libgloo-dev
  libvulkan-dev mesa-vulkan-drivers glslc spirv-tools
)
# Only to build and run the tests and benchmarks: GoogleTest, Google Benchmark, the Python
# clients, PoCL (the OpenCL device the conformance suite runs on without a GPU) and clinfo;
# the Python package's tests (tests/python: pytest, NumPy, pip install with setuptools); clang 14
# and its runtime libraries for the libFuzzer target (scripts/fuzz.sh) and the public headers'
# check; the ABI check (abigail-tools: abidw, abidiff) and matplotlib for infinirt-bench --plot.
# libc6-dbg: LeakSanitizer's own suppression of the dynamic linker's TLS matches only when ld-linux
# can be symbolised; without it the ASan stage aborts while listing the tests.
# python3-venv: the Python package's documented install into a venv (docs/python.md).
# valgrind: the instruction gate (tests/gate, scripts/instruction-gate.py) counts with callgrind.
# lintian: the Debian packages' check (tests/packages/packages_test.sh).
# iproute2: the several-hosts tests (tests/ccl/netns_hosts.py) make network namespaces joined by veth
# pairs with `ip` (unshare, nsenter and setpriv are util-linux's, always there).
INFINIRT_TEST_PACKAGES=(
  python3 python3-numpy python3-pytest python3-setuptools python3-pip python3-venv python3-wheel
  libgtest-dev libgmock-dev libbenchmark-dev
  pocl-opencl-icd clinfo
  clang-14 libclang-rt-14-dev libc6-dbg valgrind
  abigail-tools python3-matplotlib
  lintian iproute2
)

# infinirt_install_deps [build|all]: installs the build packages, and with `all` (the default)
# the test packages too.
infinirt_install_deps() {
  local which="${1:-all}"
  local wanted=("${INFINIRT_BUILD_PACKAGES[@]}")
  [ "$which" = "build" ] || wanted+=("${INFINIRT_TEST_PACKAGES[@]}")
  local missing=()
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  # apt's -qq does not quiet dpkg: the output goes to a log, one line per step here.
  local log
  log="$(mktemp /tmp/infinirt-apt.XXXXXX.log)"
  echo "infinirt: installing ${#missing[@]} Debian package(s): ${missing[*]} (log: $log)"
  if ! $sudo apt-get update > "$log" 2>&1; then
    tail -n 20 "$log" >&2
    echo "infinirt: apt-get update failed (log: $log)" >&2
    return 1
  fi
  if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}" >> "$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "infinirt: apt-get install failed (log: $log)" >&2
    return 1
  fi
  echo "infinirt: installed ($(grep -c '^Setting up ' "$log") packages set up, dependencies included)"
}

# cmake flags common to every build: the cuda backend is required where CUDA 12+ headers are
# (it needs cuGetProcAddress_v2); elsewhere AUTO decides.
infinirt_cmake_flags() {
  local flags=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo)
  local h
  for h in /usr/local/cuda/include/cuda.h /usr/include/cuda.h; do
    if [ -f "$h" ] && [ "$(sed -n 's/^#define CUDA_VERSION \([0-9]*\).*/\1/p' "$h" | head -n1)" -ge 12000 ] 2>/dev/null; then
      flags+=(-DINFINIRT_WITH_CUDA=ON)
      break
    fi
  done
  flags+=(-DINFINIRT_WITH_OPENCL=ON -DINFINIRT_WITH_HIP=ON)
  echo "${flags[@]}"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  infinirt_install_deps "${1:-all}"
fi
