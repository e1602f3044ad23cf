#!/usr/bin/env bash
# The Debian packages, proven as a user would meet them (docs/packaging.md; scripts/test.sh's
# "Debian packages" step). Installs into /usr of this machine and removes everything again.
#   1. builds them (scripts/packages.sh) unless INFINIRT_PACKAGES_DIR names a folder of built .debs;
#   2. lintian: no error on any package (where lintian is installed);
#   3. apt install ./...deb: every package built (one per backend this machine builds);
#   4. from a folder outside the tree, with no infinirt variable set: infinirt-info lists cpu (and
#      opencl, loaded, where PoCL is installed) from /usr/lib/<multiarch>/infinirt; a C program
#      builds with `pkg-config --cflags --libs infinirt` and runs (and dpkg-shlibdeps makes it
#      depend on libinfinirt0 (>= this version)); a CMake project with
#      find_package(infinirt) builds and runs; `python3 -c "import infinirt"` finds the library;
#   5. apt remove infinirt-plugin-opencl: the same program runs and lists opencl as absent;
#   6. apt remove of every package: nothing that `dpkg -L` listed for them is left.
# Refuses to start when an infinirt package is installed already. On any exit it removes what it
# installed, so that no later build or test finds a system-wide libinfinirt.
set -euo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$src"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
say() { echo "packages_test: $*"; }
fail() { echo "packages_test: FAILED: $*" >&2; exit 1; }

# Ours that dpkg knows, installed or removed with their configuration kept (a maintainer script).
ours_in_state() { dpkg-query -W -f='${Package} ${Status}\n' 2>/dev/null |
  awk -v s="$1" '$NF == s && $1 ~ /^(libinfinirt|infinirt-|infiniccl-|python3-infinirt)/ {print $1}'; }
installed_ours() { ours_in_state installed; }
[ -z "$(installed_ours)" ] || fail "infinirt packages are installed already: $(installed_ours | tr '\n' ' ')"

if [ -n "${INFINIRT_PACKAGES_DIR:-}" ]; then
  dir="$INFINIRT_PACKAGES_DIR"
else
  scripts/packages.sh
  dir="${INFINIRT_PACKAGES_BUILD_DIR:-build-packages}/packages"
fi
debs=("$dir"/*.deb)
[ -f "${debs[0]}" ] || fail "no .deb in $dir"
names=()
for d in "${debs[@]}"; do names+=("$(dpkg-deb -f "$d" Package)"); done
say "packages: ${names[*]}"
# A plugin package depends on libinfinirt0 of its own version and on the C/C++ runtime only, never
# on a vendor's driver package.
for d in "${debs[@]}"; do
  n="$(dpkg-deb -f "$d" Package)"
  case "$n" in infinirt-plugin-*|infiniccl-plugin-*) ;; *) continue ;; esac
  dep="$(dpkg-deb -f "$d" Depends)"
  v="$(dpkg-deb -f "$d" Version)"
  echo "$dep" | grep -qF "libinfinirt0 (= $v)" || fail "$n: Depends '$dep' lacks libinfinirt0 (= $v)"
  others="$(echo "$dep" | tr ',' '\n' | sed 's/^ *//; s/ .*//' | grep -vxE 'libinfinirt0|libc6|libgcc-s1|libstdc\+\+6' || true)"
  [ -z "$others" ] || fail "$n depends on $(echo "$others" | tr '\n' ' '): a plugin needs only libinfinirt0"
done

if command -v lintian >/dev/null; then
  # Errors fail; the warnings that stay are listed with why in docs/packaging.md.
  lint_rc=0
  lintian --fail-on error "${debs[@]}" > "$dir/lintian.txt" 2>&1 || lint_rc=$?
  grep -v 'running with root privileges' "$dir/lintian.txt" || true
  [ $lint_rc -eq 0 ] || fail "lintian reports an error (above; exit $lint_rc)"
  say "lintian: no error ($(grep -c '^W:' "$dir/lintian.txt" || true) warning(s), each listed in docs/packaging.md)"
else
  say "lintian not installed: its check skipped"
fi

work="$(mktemp -d /tmp/infinirt-packages-test.XXXXXX)"
remove_all() {
  local left
  left="$(installed_ours)"
  if [ -n "$left" ]; then
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 remove -y -qq $left > "$work/apt-remove.log" 2>&1 ||
      { tail -n 20 "$work/apt-remove.log" >&2; return 1; }
  fi
}
cleanup() {
  local rc=$?
  remove_all || rc=1
  local kept
  kept="$(ours_in_state config-files)"
  # shellcheck disable=SC2086
  [ -z "$kept" ] || $sudo dpkg --purge $kept > /dev/null || rc=1
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT

# apt needs the paths to start with ./ or /.
abs=()
for d in "${debs[@]}"; do abs+=("$(cd "$(dirname "$d")" && pwd)/$(basename "$d")"); done
DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${abs[@]}" > "$work/apt-install.log" 2>&1 ||
  { tail -n 30 "$work/apt-install.log" >&2; fail "apt install of the packages"; }
say "installed with apt: ${names[*]}"
for n in "${names[@]}"; do dpkg -L "$n" > "$work/$n.list"; done
multiarch="$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)"
plugin_dir="/usr/lib/$multiarch/infinirt"

# As a program outside the tree: its own folder, no infinirt variable, the system's tools.
cd "$work"
outside() { env -u INFINIRT_PLUGINS -u INFINIRT_PLUGIN_PATH -u INFINIRT_BACKENDS -u INFINIRT_LIBRARY \
  -u LD_LIBRARY_PATH -u PYTHONPATH -u CMAKE_PREFIX_PATH -u PKG_CONFIG_PATH "$@"; }
has_pocl=0
[ -e /etc/OpenCL/vendors/pocl.icd ] && printf '%s\n' "${names[@]}" | grep -qx infinirt-plugin-opencl && has_pocl=1

outside infinirt-info > info.txt || { cat info.txt; fail "infinirt-info"; }
grep -E "^  cpu +loaded .*$plugin_dir/libinfinirt-cpu.so" info.txt > /dev/null ||
  { cat info.txt; fail "infinirt-info does not list cpu loaded from $plugin_dir"; }
if [ $has_pocl = 1 ]; then
  grep -E "^  opencl +loaded .*$plugin_dir/libinfinirt-opencl.so" info.txt > /dev/null ||
    { cat info.txt; fail "infinirt-info does not list opencl (PoCL) loaded from $plugin_dir"; }
fi
say "infinirt-info: $(grep -cE '^  [a-z]+ +(loaded|unavailable|failed)' info.txt) backend(s) from $plugin_dir, cpu$([ $has_pocl = 1 ] && echo ' and opencl') loaded"

# The source build beside the installed packages loads only its own plugins (the loader looks
# beside its own libinfinirt), so the installed packages never reach a build tree's tests.
if [ -x "$src/build/bin/infinirt-info" ]; then
  outside "$src/build/bin/infinirt-info" > build-info.txt 2>&1 || { cat build-info.txt; fail "build/bin/infinirt-info"; }
  if grep -E "^  [a-z]+ +(loaded|unavailable|failed|shadowed)" build-info.txt | grep -v " $src/build/" > /dev/null; then
    cat build-info.txt
    fail "build/bin/infinirt-info loaded a plugin from outside build/ while the packages are installed"
  fi
  say "build/bin/infinirt-info, with the packages installed: every plugin from $src/build/"
fi

cp "$src/tests/packages/consumer/backends.c" "$src/tests/packages/consumer/CMakeLists.txt" .
# shellcheck disable=SC2046
outside cc -std=c99 -Wall -Werror -o backends-pc backends.c $(outside pkg-config --cflags --libs infinirt)
outside ./backends-pc cpu opencl > pc.txt || { cat pc.txt; fail "the pkg-config-built program"; }
grep -qx "cpu: loaded $plugin_dir/libinfinirt-cpu.so" pc.txt || { cat pc.txt; fail "cpu through the pkg-config-built program"; }
if [ $has_pocl = 1 ]; then
  grep -qx "opencl: loaded $plugin_dir/libinfinirt-opencl.so" pc.txt || { cat pc.txt; fail "opencl through the pkg-config-built program"; }
fi
say "pkg-config: built and ran ($(tr '\n' ';' < pc.txt))"
# What a package of that program would depend on (DEBIAN/symbols, else shlibs, of libinfinirt0).
version="$(dpkg-query -W -f='${Version}' libinfinirt0)"
mkdir -p debian && : > debian/control
deps="$(outside dpkg-shlibdeps -O backends-pc 2>/dev/null)"
echo "$deps" | grep -q "libinfinirt0 (>= $version)" || fail "dpkg-shlibdeps of the program: want libinfinirt0 (>= $version), got: $deps"
say "dpkg-shlibdeps of the program: ${deps#shlibs:Depends=}"

outside cmake -S . -B cm -G Ninja > cmake.log 2>&1 && outside cmake --build cm >> cmake.log 2>&1 ||
  { cat cmake.log; fail "the find_package(infinirt) project"; }
grep -q "/usr/lib/$multiarch/cmake/infinirt" cm/CMakeCache.txt || fail "find_package(infinirt) did not find /usr/lib/$multiarch/cmake/infinirt"
outside cm/backends cpu > cm.txt || { cat cm.txt; fail "the find_package(infinirt) program"; }
grep -qx "copy through cpu:0: ok" cm.txt || { cat cm.txt; fail "the find_package(infinirt) program's copy"; }
say "find_package(infinirt): built and ran"

outside /usr/bin/python3 -c "import infinirt; print(infinirt.library_path()); print(infinirt.devices())" > py.txt 2>&1 ||
  { cat py.txt; fail "python3 -c 'import infinirt'"; }
grep -q "libinfinirt.so.0" py.txt || { cat py.txt; fail "the Python package's library"; }
say "python3: import infinirt: $(tr '\n' ' ' < py.txt)"

if printf '%s\n' "${names[@]}" | grep -qx infinirt-plugin-opencl; then
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 remove -y -qq infinirt-plugin-opencl > apt-remove-opencl.log 2>&1 ||
    { tail -n 20 apt-remove-opencl.log >&2; fail "apt remove infinirt-plugin-opencl"; }
  outside ./backends-pc cpu opencl > pc2.txt || { cat pc2.txt; fail "the program after removing the opencl plugin"; }
  grep -qx "opencl: absent" pc2.txt || { cat pc2.txt; fail "opencl is still listed after apt remove infinirt-plugin-opencl"; }
  grep -qx "cpu: loaded $plugin_dir/libinfinirt-cpu.so" pc2.txt || { cat pc2.txt; fail "cpu after removing the opencl plugin"; }
  [ ! -e "$plugin_dir/libinfinirt-opencl.so" ] || fail "libinfinirt-opencl.so is still on disk"
  say "apt remove infinirt-plugin-opencl: the program runs, $(tr '\n' ';' < pc2.txt)"
fi

remove_all
[ -z "$(installed_ours)" ] || fail "still installed: $(installed_ours | tr '\n' ' ')"
left=()
for n in "${names[@]}"; do
  while IFS= read -r p; do
    [ -n "$p" ] && [ "$p" != "/." ] || continue
    # A folder that other packages share (/usr/lib, /usr/share/doc...) stays; a file or a folder
    # of ours alone must be gone.
    if [ -e "$p" ] || [ -L "$p" ]; then
      if [ -d "$p" ] && [ ! -L "$p" ] && [ -n "$(dpkg -S "$p" 2>/dev/null)" ]; then
        continue
      fi
      left+=("$p")
    fi
  done < "$work/$n.list"
done
[ ${#left[@]} -eq 0 ] || fail "left on disk after apt remove: ${left[*]}"
say "apt remove: nothing of the packages left on disk ($(cat "$work"/*.list | sort -u | wc -l) paths checked)"
