#!/usr/bin/env bash
# ABI check (abi/README.md): compares the ABI of the public libraries (build/lib/libinfini*.so) and
# of the cpu plugins (libinfinirt-cpu's infinirtPluginQuery and libinfiniccl-cpu's
# infinicclPluginQuery reach the plugin tables, so the tables' layouts are checked) with the
# baselines in abi/, written by abidw (Debian's abigail-tools).
#
#   scripts/abi-check.sh [BUILD_DIR]            check (default BUILD_DIR: build); exit 1 on an
#                                               incompatible change, a missing library or baseline
#   scripts/abi-check.sh --update [BUILD_DIR]   rewrite the baselines from BUILD_DIR (a deliberate
#                                               commit that says why)
#
# Passes: added functions, added enumerators, members appended at the end of a struct. Fails: a
# removed or changed function, a changed, removed or inserted (not appended) struct member, a
# changed enumerator value, a public library with no baseline or a baseline with no library.
# abidw needs debug info: when BUILD_DIR's libraries have none (a Release build), the libraries are
# built with -g (RelWithDebInfo, no tests) in build-abi/ and read from there.
set -euo pipefail
caller=$PWD
cd "$(dirname "$0")/.."
root=$PWD

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# compare BASELINE NEW NAME: prints the verdict; returns 1 on an incompatible change.
compare() {
  local base="$1" new="$2" name="$3" rc=0 full=0
  # 1. libabigail's verdict, with appended struct members allowed (abi/suppressions.ini) and
  #    added functions not counted: exit bits 4 (ABI change) and 8 (incompatible) both fail.
  abidiff --no-added-syms --suppressions "$root/abi/suppressions.ini" "$base" "$new" > "$tmp/$name.diff" 2>&1 || rc=$?
  # 2. libabigail 2.2's appended-member suppression also hides a member whose type changed in a
  #    struct that grew: the unsuppressed report must hold no change, deletion or move of a member
  #    or enumerator (an appended member reads "data member insertion").
  abidiff --no-added-syms "$base" "$new" > "$tmp/$name.full" 2>&1 || full=$?
  if [ $((rc & 3)) -ne 0 ] || [ $((full & 3)) -ne 0 ]; then
    echo "abi-check: FAIL: abidiff could not compare $name (exit $rc/$full):"
    cat "$tmp/$name.diff"
    return 1
  elif [ $((rc & 12)) -ne 0 ]; then
    echo "abi-check: FAIL: $name: incompatible ABI change (abidiff exit $rc):"
    cat "$tmp/$name.diff"
    return 1
  elif grep -qE 'data member (change|deletion)|offset changed|enumerator (change|deletion)|[1-9][0-9]* Removed' "$tmp/$name.full"; then
    echo "abi-check: FAIL: $name: a struct member or enumerator changed:"
    cat "$tmp/$name.full"
    return 1
  elif [ "$full" -ne 0 ]; then
    echo "abi-check: ok: $name (compatible additions only)"
  else
    echo "abi-check: ok: $name"
  fi
}

update=0
case "${1:-}" in
  --update) update=1; shift ;;
  --compare)
    # scripts/abi-check.sh --compare BASELINE.abi NEW.abi: the verdict on two abidw files (tests/abi).
    [ $# -eq 3 ] || { echo "usage: scripts/abi-check.sh --compare BASELINE.abi NEW.abi" >&2; exit 2; }
    cd "$caller"
    compare "$2" "$3" "$(basename "$3" .abi)"
    exit $? ;;
esac
build="${1:-build}"
for tool in abidw abidiff readelf; do
  command -v "$tool" > /dev/null || { echo "abi-check: $tool not found (Debian: abigail-tools, binutils)" >&2; exit 1; }
done

has_debug_info() { readelf -S --wide "$1" 2>/dev/null | grep '\.debug_info' > /dev/null; }

# The libraries whose ABI is kept: every public library, and the cpu plugins of infinirt and
# infiniccl (their one export reaches the plugin tables).
libraries() {
  local b="$1" f
  for f in "$b"/lib/libinfini*.so "$b"/lib/infinirt/libinfinirt-cpu.so "$b"/lib/infinirt/libinfiniccl-cpu.so; do
    if [ -e "$f" ]; then echo "$f"; fi
  done
}

if [ ! -e "$build/lib/libinfinirt.so" ]; then
  echo "abi-check: $build/lib/libinfinirt.so not found: build first (or name the build folder)" >&2
  exit 1
fi
need_g=0
for lib in $(libraries "$build"); do
  has_debug_info "$(readlink -f "$lib")" || need_g=1
done
if [ "$need_g" = 1 ]; then
  echo "abi-check: $build has no debug info; building the libraries with -g in build-abi/"
  launcher=()
  command -v ccache > /dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S . -B build-abi -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DINFINIRT_BUILD_TESTS=OFF \
    -DINFINIRT_BUILD_BENCHMARKS=OFF "${launcher[@]}" > "$tmp/abi-build.log" 2>&1 || { tail -20 "$tmp/abi-build.log"; exit 1; }
  cmake --build build-abi --parallel "$(nproc)" >> "$tmp/abi-build.log" 2>&1 || { tail -40 "$tmp/abi-build.log"; exit 1; }
  build=build-abi
fi

# abidw of one library: exported interfaces only, types from the public headers, no paths.
dump() {
  abidw --exported-interfaces-only --headers-dir "$root/include" --drop-private-types --no-corpus-path \
    --no-show-locs --no-comp-dir-path --type-id-style hash "$(readlink -f "$1")" |
    sed -e "s|path='$root/|path='|"
}

mkdir -p abi
status=0
seen=" "
for lib in $(libraries "$build"); do
  name=$(basename "$lib" .so)
  seen+="$name "
  dump "$lib" > "$tmp/$name.abi"
  if [ "$update" = 1 ]; then
    cp "$tmp/$name.abi" "abi/$name.abi"
    echo "abi-check: wrote abi/$name.abi"
    continue
  fi
  if [ ! -f "abi/$name.abi" ]; then
    echo "abi-check: FAIL: $name has no baseline abi/$name.abi (a new public library: run" \
         "scripts/abi-check.sh --update and commit the baseline)"
    status=1
    continue
  fi
  compare "abi/$name.abi" "$tmp/$name.abi" "$name" || status=1
done
if [ "$update" = 0 ]; then
  for base in abi/*.abi; do
    [ -e "$base" ] || continue
    name=$(basename "$base" .abi)
    case "$seen" in
      *" $name "*) ;;
      *) echo "abi-check: FAIL: baseline $base has no library in $build (removed? then remove the baseline deliberately)"
         status=1 ;;
    esac
  done
fi
exit $status
