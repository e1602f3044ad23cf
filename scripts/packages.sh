#!/usr/bin/env bash
# Builds the Debian packages (docs/packaging.md) from this checkout: a Release build for the prefix
# /usr in build-packages/ (its own folder: build/ is the source build's), then `cpack -G DEB`.
# The packages land in build-packages/packages/*.deb; install them with
#     sudo apt install ./build-packages/packages/*.deb
# One package per backend this machine builds (the cuda plugin where CUDA 12+ headers are, hip
# where libamdhip64-dev is, opencl where opencl-headers is: scripts/deps.sh installs the last two).
# INFINIRT_PACKAGES_BUILD_DIR=DIR builds in DIR instead; INFINIRT_PACKAGES_JOBS=N sets the
# build's parallelism (default: the number of cores); INFINIRT_PACKAGES_CMAKE_FLAGS adds cmake
# options (last, so they win: e.g. a compiler launcher).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
infinirt_install_deps build
dir="${INFINIRT_PACKAGES_BUILD_DIR:-build-packages}"

# The backends this machine builds, as the source build decides (infinirt_cmake_flags); then what
# the packages need: Release, /usr (so <libdir> is lib/<multiarch>), no tests or benchmarks, the
# Python package in Debian's dist-packages, no RUNPATH (the libraries are on the system search
# path) and the hardening Debian packages carry (fortified libc calls, RELRO, immediate binding).
# shellcheck disable=SC2046
cmake -S . -B "$dir" $(infinirt_cmake_flags) \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX=/usr \
  -DINFINIRT_BUILD_TESTS=OFF -DINFINIRT_BUILD_BENCHMARKS=OFF \
  -DINFINIRT_INSTALL_PYTHONDIR=lib/python3/dist-packages \
  -DCMAKE_SKIP_INSTALL_RPATH=ON \
  -DCMAKE_C_FLAGS=-D_FORTIFY_SOURCE=2 -DCMAKE_CXX_FLAGS=-D_FORTIFY_SOURCE=2 \
  "-DCMAKE_SHARED_LINKER_FLAGS=-Wl,-z,relro -Wl,-z,now" \
  "-DCMAKE_MODULE_LINKER_FLAGS=-Wl,-z,relro -Wl,-z,now" \
  "-DCMAKE_EXE_LINKER_FLAGS=-Wl,-z,relro -Wl,-z,now" \
  ${INFINIRT_PACKAGES_CMAKE_FLAGS:-}
# Every install() must land in a package (cmake/InfinirtPackaging.cmake lists those that do not).
if [ -s "$dir/packaging/unpackaged-components" ]; then
  echo "packages.sh: install components in no package: $(cat "$dir/packaging/unpackaged-components")" \
       "(give each install() a COMPONENT: docs/packaging.md)" >&2
  exit 1
fi
cmake --build "$dir" --parallel "${INFINIRT_PACKAGES_JOBS:-$(nproc)}"
rm -f "$dir"/packages/*.deb
(cd "$dir" && cpack -G DEB)
echo "packages.sh: the packages, in $dir/packages/:"
ls -1 "$dir"/packages/*.deb
