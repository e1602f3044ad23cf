#!/usr/bin/env bash
# Runs the libFuzzer target over the whole C ABI (tests/fuzz/fuzz_calls.cpp) for a bounded time on
# cpu (two devices) and PoCL's OpenCL device, under AddressSanitizer + UndefinedBehaviorSanitizer.
#   scripts/fuzz.sh [seconds] [extra libFuzzer flags...]     (default 90 seconds)
#   scripts/fuzz.sh 7000 -jobs=2 -workers=2 -runs=5000000    (the 10-million run, both cores;
#                                                              each worker logs to fuzz-N.log)
# Needs clang 14 and libclang-rt-14-dev (scripts/deps.sh installs them). Builds build-fuzz/ with
# only the targets the fuzzer needs, the loader and plugins instrumented for coverage too
# (INFINIRT_FUZZ=ON adds -fsanitize=fuzzer-no-link, see CMakeLists.txt). Starts from the
# checked-in corpus (tests/fuzz/corpus/calls/), works in a scratch copy of it, and leaves a
# crashing input in build-fuzz/fuzz-artifacts/ (turn it into a regression test by adding it to the
# corpus). Exit status: libFuzzer's (0: no crash).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-90}"
shift || true
cc="${INFINIRT_FUZZ_CC:-clang-14}"
cxx="${INFINIRT_FUZZ_CXX:-clang++-14}"
if ! command -v "$cxx" >/dev/null; then
  echo "fuzz.sh: $cxx not found (scripts/deps.sh installs clang-14 and libclang-rt-14-dev)" >&2
  exit 1
fi
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
CC="$cc" CXX="$cxx" cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DINFINIRT_BUILD_TESTS=ON -DINFINIRT_BUILD_BENCHMARKS=OFF -DINFINIRT_FUZZ=ON \
  -DINFINIRT_SANITIZE=address,undefined -DINFINIRT_WITH_OPENCL=AUTO -DINFINIRT_WITH_CUDA=OFF \
  -DINFINIRT_WITH_HIP=OFF "${launcher[@]}" >/dev/null
# stub_huge: a plugin that reports 2^31 - 1 devices (refused whole) is loaded beside the real ones.
targets=(infinirt-fuzz-calls infinirt-cpu stub_huge)
# grep reads the whole list: with -q it could stop early, cmake would die of SIGPIPE and, under
# pipefail, the opencl plugin would be left out (or a stale one used) at random.
if cmake --build build-fuzz --target help | grep '^infinirt-opencl:' >/dev/null; then
  targets+=(infinirt-opencl)
fi
cmake --build build-fuzz --parallel "$(nproc)" --target "${targets[@]}"
work="build-fuzz/fuzz-corpus"
mkdir -p "$work" build-fuzz/fuzz-artifacts
cp -n tests/fuzz/corpus/calls/* "$work"/
# Leaks are checked by the target itself (the loader's allocation record is empty after each
# input); LeakSanitizer would flag the drivers' per-process caches. The link order check is off:
# the shared sanitizer runtime (see CMakeLists.txt) comes after libstdc++ in the fuzzer's list.
plugins="$PWD/build-fuzz/lib/infinirt/libinfinirt-cpu.so:$PWD/build-fuzz/test-plugins/hostile/libinfinirt-huge.so"
if [ -f build-fuzz/lib/infinirt/libinfinirt-opencl.so ]; then
  plugins="$plugins:$PWD/build-fuzz/lib/infinirt/libinfinirt-opencl.so"
fi
INFINIRT_PLUGINS="${INFINIRT_PLUGINS:-$plugins}" \
INFINIRT_BACKENDS="${INFINIRT_BACKENDS:-cpu,opencl,huge}" INFINIRT_CPU_DEVICE_COUNT=2 \
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:protect_shadow_gap=0:verify_asan_link_order=0 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  build-fuzz/bin/infinirt-fuzz-calls -max_total_time="$seconds" -max_len=256 -timeout=30 -rss_limit_mb=4096 \
    -artifact_prefix=build-fuzz/fuzz-artifacts/ -print_final_stats=1 "$@" "$work"
