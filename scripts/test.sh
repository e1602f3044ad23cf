#!/usr/bin/env bash
# Builds and runs every test, in stages (rough times on a 2-core machine): the main build and its
# suite (conformance, loader, clients, core, backends, benchmark smoke checks, the public headers
# under clang; 5 min), the ABI check against abi/ (scripts/abi-check.sh; 1 min), a bounded libFuzzer
# run (its own clang build, then 90 s; 5 min), the whole suite under AddressSanitizer +
# UndefinedBehaviorSanitizer (7 min), then the multi-thread stress test under ThreadSanitizer
# (its program and the plugins only; 3 min). After the ABI check, the Debian packages (tests/packages:
# their own Release build of the libraries, plugins and tools, lintian, apt install, use, apt
# remove; about 4 CPU-minutes, so about 3 min). A failing stage names itself; a test executable that
# cannot list its tests fails it.
# INFINIRT_TEST_SANITIZERS=0 skips the two sanitizer builds; INFINIRT_TEST_FUZZ_SECONDS=0 the
# bounded libFuzzer run (default 90 s, after its own clang build of the loader and plugins).
# Every configure sets the options this script needs (a build/ left by quickstart.sh has the tests
# off), and every ctest run fails when it found no test (--no-tests=error).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
infinirt_install_deps
jobs="$(nproc)"
flags=$(infinirt_cmake_flags)

started=$(date +%s)
current_step=""
step() {
  current_step="$*"
  printf '\n==== [%4ds] %s ====\n' "$(( $(date +%s) - started ))" "$*"
}
trap 'rc=$?; [ $rc -eq 0 ] || echo "test.sh: FAILED in the step \"$current_step\" (exit $rc)" >&2' EXIT

# run_ctest ARGS...: ctest, failing loudly (naming the step) when a test executable could not
# even list its tests: ctest then reports the error, runs the others and may still pass.
run_ctest() {
  local log
  log="$(mktemp /tmp/infinirt-ctest.XXXXXX.log)"
  local rc=0
  ctest --no-tests=error "$@" 2>&1 | tee "$log" || rc=$?
  if grep -qE 'Error running test executable|Unable to find executable|Subprocess aborted' "$log"; then
    echo "test.sh: in \"$current_step\", a test executable failed while listing its tests:" >&2
    grep -E -A3 'Error running test executable|Unable to find executable' "$log" | head -n 20 >&2
    return 1
  fi
  return $rc
}

# Options every build here needs, whatever an earlier configure of the same folder set.
test_flags="-DINFINIRT_BUILD_TESTS=ON"

step "build and test"
cmake -S . -B build $flags $test_flags -DINFINIRT_BUILD_BENCHMARKS=ON -DINFINIRT_SANITIZE=
cmake --build build --parallel "$jobs"
# The conformance suite fails unless cpu, PoCL's OpenCL device and lavapipe's Vulkan device are all
# loaded with a device.
INFINIRT_EXPECT_BACKENDS=cpu,opencl,vulkan \
  run_ctest --test-dir build --no-tests=error --output-on-failure --parallel "$jobs" --timeout 300

# The suite's outcome does not depend on the caller's shell (tests/CMakeLists.txt: each entry sets
# or unsets the variables it relies on): the same suite again under a hostile environment, the
# log at its loudest and a default device, plugin list and backend filter that no test expects.
step "the suite again under a hostile environment"
INFINIRT_LOG=debug INFINICORE_DEFAULT_DEVICE=cambricon:7 INFINIRT_BACKENDS=no-such-backend \
  INFINIRT_PLUGINS=/nonexistent/libinfinirt-ghost.so INFINIRT_CPU_DEVICE_COUNT=3 INFINICCL_LOG=debug \
  INFINICCL_CPU_TRANSPORT=gloo MASTER_ADDR=127.0.0.1 MASTER_PORT=9 RANK=5 WORLD_SIZE=9 SLURM_PROCID=3 \
  INFINIRT_EXPECT_BACKENDS=cpu,opencl \
  run_ctest --test-dir build --no-tests=error --output-on-failure --parallel "$jobs" --timeout 300 -LE 'bench|soak'

step "ABI check (abi/README.md)"
scripts/abi-check.sh build

# ---- Debian packages (docs/packaging.md) ----------------------------------------------------
# Builds them (scripts/packages.sh: a Release build of the libraries, plugins and tools only, in
# build-packages/), lintian, apt install, uses them as a program outside the tree would, removes the
# opencl plugin, then everything, and checks that nothing is left. Installs into /usr for a minute:
# the build trees above never load it (the loader looks beside its own libinfinirt only).
step "Debian packages: build, lintian, apt install, use, apt remove (tests/packages)"
tests/packages/packages_test.sh
# ---- end of Debian packages -----------------------------------------------------------------

# The libFuzzer target over the whole C ABI, bounded (scripts/fuzz.sh; INFINIRT_TEST_FUZZ_SECONDS).
if [ "${INFINIRT_TEST_FUZZ_SECONDS:-90}" != "0" ]; then
  step "libFuzzer (${INFINIRT_TEST_FUZZ_SECONDS:-90} s, after its own clang build)"
  # On cpu devices and PoCL's OpenCL device together (scripts/fuzz.sh's default backends). Its
  # thousands of lines go to a log; here, one summary line.
  fuzz_log="$PWD/build-fuzz.log"
  if scripts/fuzz.sh "${INFINIRT_TEST_FUZZ_SECONDS:-90}" > "$fuzz_log" 2>&1; then
    echo "libFuzzer: no crash; $(grep -oE 'Done [0-9]+ runs in [0-9]+ second\(s\)' "$fuzz_log" | tail -n 1)," \
         "$(grep -oE 'cov: [0-9]+' "$fuzz_log" | tail -n 1) (log: $fuzz_log)"
  else
    tail -n 60 "$fuzz_log" >&2
    echo "libFuzzer: FAILED (log: $fuzz_log; a crashing input is in build-fuzz/fuzz-artifacts/)" >&2
    exit 1
  fi
fi

if [ "${INFINIRT_TEST_SANITIZERS:-1}" != "0" ]; then
  step "AddressSanitizer + UndefinedBehaviorSanitizer"
  cmake -S . -B build-asan $flags $test_flags -DINFINIRT_SANITIZE=address,undefined -DINFINIRT_BUILD_BENCHMARKS=OFF
  cmake --build build-asan --parallel "$jobs"
  # PoCL and the vendor libraries are not built with ASan; leaks inside them are not ours.
  # use_tls=0: LeakSanitizer's tracer crashes (SIGSEGV) scanning the dynamic TLS of the cpu
  # plugin's detached kernel-pool threads, which live until exit; their thread_local buffers'
  # destructor registrations are then listed in lsan.supp.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:protect_shadow_gap=0 \
  LSAN_OPTIONS=suppressions=$PWD/scripts/lsan.supp:print_suppressions=0:use_tls=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  INFINIRT_EXPECT_BACKENDS=cpu,opencl,vulkan \
    run_ctest --test-dir build-asan --no-tests=error --output-on-failure --parallel "$jobs" --timeout 300 -LE 'nosan'

  step "ThreadSanitizer (stress)"
  cmake -S . -B build-tsan $flags $test_flags -DINFINIRT_SANITIZE=thread -DINFINIRT_BUILD_BENCHMARKS=OFF
  # Only what the stress tests run: their program and every plugin of the build (the tests use
  # every device found).
  cmake --build build-tsan --parallel "$jobs" --target infinirt_stress infinirt-plugins
  # tsan.supp: the cpu backend's copies of the user's data (unordered streams race in user data).
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/tsan.supp \
    run_ctest --test-dir build-tsan --no-tests=error --output-on-failure --timeout 300 -L stress
fi
