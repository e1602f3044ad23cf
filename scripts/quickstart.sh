#!/usr/bin/env bash
# The main job: install what building needs (no test packages), build the libraries, plugins and
# tools without tests or benchmarks, then list backends and devices and run the two examples (the
# copies on the default device, saxpy on every device). scripts/test.sh reconfigures the same build/ with the tests on.
# Its last line is the verdict: "quickstart: PASSED (<what ran>)" or "quickstart: FAILED at <step>"
# (exit status 1).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
set +e # each step's failure is reported by step(), not by the shell

# step <name> <command...>: runs the command; on failure prints the verdict and exits.
step() {
  local name="$1"
  shift
  echo "== quickstart: $name"
  if ! "$@"; then
    echo "quickstart: FAILED at $name (the output above says why)"
    exit 1
  fi
}

configure() {
  cmake -S . -B build $(infinirt_cmake_flags) \
    -DINFINIRT_BUILD_TESTS=OFF -DINFINIRT_BUILD_BENCHMARKS=OFF -DINFINIRT_SANITIZE=
}

# After the listing: the backends that are unavailable here, as infinirt-info --json says (one
# backend per line there), each with its reason already shown above.
note_unavailable() {
  local json names
  json="$(./build/bin/infinirt-info --json)" || return 1
  names="$(printf '%s\n' "$json" | sed -n 's/.*"name": "\([^"]*\)".*"state": "unavailable".*/\1/p' | paste -sd, -)"
  names="${names//,/, }"
  if [ -n "$names" ]; then
    echo "(Unavailable here: $names. Such a backend was built but finds no usable device on this machine;"
    echo " its reason line above says why. That is expected for a GPU backend on a machine without that GPU.)"
  fi
  default_device="$(printf '%s\n' "$json" | sed -n 's/.*"default_device": {"type": "\([a-z]*\)", "id": \([0-9]*\)}.*/\1:\2/p')"
}

step "installing the build packages" infinirt_install_deps build
step "configuring build/" configure
step "building" cmake --build build --parallel "$(nproc)"
step "infinirt-info" ./build/bin/infinirt-info
default_device=""
step "reading infinirt-info --json" note_unavailable
step "infinirt-quickstart" ./build/bin/infinirt-quickstart
step "infinirt-saxpy" ./build/bin/infinirt-saxpy

missing_python=()
for p in python3-venv python3-numpy; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing_python+=("$p")
done
echo
echo "Next: install it where your programs will find it: cmake --install build --prefix ~/infinirt"
echo "      (README.md, \"Use it from C\"; nothing to rebuild)."
if [ ${#missing_python[@]} -gt 0 ]; then
  echo "      For Python (README.md, \"Use it from Python\"): sudo apt-get install ${missing_python[*]}"
fi
echo "quickstart: PASSED (built build/, listed backends and devices, copies verified on ${default_device:-the default device}, saxpy on every device)"
