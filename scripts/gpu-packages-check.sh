#!/usr/bin/env bash
# On a GPU machine without apt (docs/packaging.md): builds the Debian packages here (cpack -G DEB,
# as scripts/packages.sh does, with the cuda plugin), unpacks libinfinirt0, infinirt-plugin-cuda
# and infinirt-tools side by side into one folder, as `dpkg -x` does, and checks that this
# folder alone serves cuda: infinirt-info, run from it with no infinirt variable, lists cuda
# loaded with a device from the unpacked plugin directory, and the packaged saxpy runs on cuda
# (INFINIRT_BACKENDS=cuda). This proves that the cuda package holds what the plugin needs.
#   scripts/gpu-packages-check.sh [OUT]     (about 2 minutes on a 16-core machine)
# OUT (default ./gpu-packages-out) receives build.log, info.txt, saxpy.txt and summary.txt.
# Exits 1 when a check failed. INFINIRT_PACKAGES_CMAKE_FLAGS adds cmake options (a compiler launcher).
set -uo pipefail
out="${1:-gpu-packages-out}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$(dirname "$0")/.."
build=/tmp/infinirt-gpu-packages
root=/tmp/infinirt-gpu-packages-root
summary="$out/summary.txt"
: > "$summary"
failed=0
note() {
  printf '%-28s %-7s %s\n' "$1" "$2" "$3" >> "$summary"
  [ "$2" = passed ] || failed=1
}
finish() {
  cat "$summary"
  exit $failed
}

rm -rf "$build/packages" "$root"
if ! { cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
         -DINFINIRT_WITH_CUDA=ON -DINFINIRT_WITH_OPENCL=AUTO -DINFINIRT_WITH_HIP=AUTO \
         -DINFINIRT_BUILD_TESTS=OFF -DINFINIRT_BUILD_BENCHMARKS=OFF \
         -DINFINIRT_INSTALL_PYTHONDIR=lib/python3/dist-packages -DCMAKE_SKIP_INSTALL_RPATH=ON \
         ${INFINIRT_PACKAGES_CMAKE_FLAGS:-} &&
       cmake --build "$build" --parallel "$(nproc)" &&
       (cd "$build" && cpack -G DEB); } > "$out/build.log" 2>&1; then
  note "build + cpack -G DEB" FAILED "see build.log"
  tail -n 30 "$out/build.log"
  finish
fi
debs=("$build"/packages/libinfinirt0_*.deb "$build"/packages/infinirt-plugin-cuda_*.deb "$build"/packages/infinirt-tools_*.deb)
for d in "${debs[@]}"; do
  [ -f "$d" ] || { note "packages" FAILED "no $(basename "$d")"; finish; }
done
note "build + cpack -G DEB" passed "$(ls "$build"/packages/*.deb | xargs -n1 basename | tr '\n' ' ')"

# dpkg -x, or its equivalent where dpkg-deb is missing (a .deb is an ar archive holding data.tar.*).
mkdir -p "$root"
for d in "${debs[@]}"; do
  if command -v dpkg-deb > /dev/null; then
    dpkg-deb -x "$d" "$root"
  else
    tmp="$(mktemp -d)"
    (cd "$tmp" && ar x "$d" && tar -xf data.tar.* -C "$root")
    rm -rf "$tmp"
  fi
done
multiarch="$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)"
libdir="$root/usr/lib/$multiarch"
plugin="$libdir/infinirt/libinfinirt-cuda.so"
[ -f "$plugin" ] || { note "dpkg -x" FAILED "no $plugin"; finish; }
note "dpkg -x" passed "$(cd "$root" && find . -type f | wc -l) files in $root"

# The packaged programs carry no RUNPATH (they live in /usr/bin): the unpacked libdir stands in for
# /usr/lib/<multiarch> through LD_LIBRARY_PATH; the plugins are found beside libinfinirt itself.
run() { env -u INFINIRT_PLUGINS -u INFINIRT_PLUGIN_PATH -u INFINIRT_BACKENDS -u INFINIRT_LIBRARY \
  LD_LIBRARY_PATH="$libdir" "$@"; }
run "$root/usr/bin/infinirt-info" > "$out/info.txt" 2>&1
if grep -E "^  cuda +loaded +[1-9][0-9]* device\(s\) .*$plugin" "$out/info.txt" > /dev/null; then
  note "infinirt-info: cuda" passed "$(grep -E '^  cuda ' "$out/info.txt" | sed 's/  */ /g')"
else
  note "infinirt-info: cuda" FAILED "cuda not loaded from $plugin (info.txt)"
fi
if run env INFINIRT_BACKENDS=cuda "$root/usr/bin/infinirt-saxpy" > "$out/saxpy.txt" 2>&1; then
  note "infinirt-saxpy on cuda" passed "$(head -n 1 "$out/saxpy.txt")"
else
  note "infinirt-saxpy on cuda" FAILED "$(tail -n 1 "$out/saxpy.txt")"
fi
finish
