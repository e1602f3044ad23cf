#!/usr/bin/env bash
# Checks the README's scripts for what issues 13 and 49 found: quickstart.sh installs no test-only package
# and builds no tests; test.sh turns the tests on in every build folder it configures (quickstart
# leaves build/ with them off) and every ctest run in it fails when it finds no test.
# Usage: scripts_test.sh <source dir>
set -euo pipefail
src="$1"
fail() { echo "FAIL: $*" >&2; exit 1; }

# shellcheck source=/dev/null
source "$src/scripts/deps.sh"
[ ${#INFINIRT_BUILD_PACKAGES[@]} -gt 0 ] && [ ${#INFINIRT_TEST_PACKAGES[@]} -gt 0 ] ||
  fail "deps.sh defines no INFINIRT_BUILD_PACKAGES / INFINIRT_TEST_PACKAGES"
for p in libgtest-dev libgmock-dev libbenchmark-dev; do
  for b in "${INFINIRT_BUILD_PACKAGES[@]}"; do
    [ "$p" != "$b" ] || fail "the build packages (quickstart) include the test-only package $p"
  done
done
grep -Eq '(^|\s)infinirt_install_deps build$' "$src/scripts/quickstart.sh" ||
  fail "quickstart.sh does not install the build packages only (infinirt_install_deps build)"
# quickstart.sh ends with its verdict line (issue 49), and reports a failed step as one.
grep -v '^\s*$' "$src/scripts/quickstart.sh" | tail -n 1 | grep -q '^echo "quickstart: PASSED (' ||
  fail "quickstart.sh does not end with its verdict line (quickstart: PASSED (...))"
grep -q 'echo "quickstart: FAILED at \$name' "$src/scripts/quickstart.sh" ||
  fail "quickstart.sh does not report a failed step as 'quickstart: FAILED at <step>'"

# test.sh: every configure passes $test_flags, which turns the tests on.
grep -Eq '^test_flags="[^"]*-DINFINIRT_BUILD_TESTS=ON' "$src/scripts/test.sh" ||
  fail "test.sh: test_flags does not set -DINFINIRT_BUILD_TESTS=ON"
configures=$(grep -Ec '^\s*cmake -S ' "$src/scripts/test.sh")
[ "$configures" -ge 1 ] || fail "test.sh configures nothing"
if grep -E '^\s*cmake -S ' "$src/scripts/test.sh" | grep -v '\$test_flags'; then
  fail "test.sh configures a build without \$test_flags (above)"
fi
# Every ctest invocation carries --no-tests=error, and ctest honours it here.
runs=$(grep -Ec '^\s*ctest ' "$src/scripts/test.sh")
[ "$runs" -ge 1 ] || fail "test.sh runs no ctest"
if grep -E '^\s*ctest ' "$src/scripts/test.sh" | grep -v -- '--no-tests=error'; then
  fail "test.sh runs ctest without --no-tests=error (above)"
fi
empty=$(mktemp -d)
trap 'rm -rf "$empty"' EXIT
if ctest --test-dir "$empty" --no-tests=error >/dev/null 2>&1; then
  fail "ctest --no-tests=error succeeded with no tests"
fi
echo "scripts: OK ($configures configures, $runs ctest runs checked)"
