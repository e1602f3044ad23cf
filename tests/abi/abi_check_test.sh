#!/usr/bin/env bash
# tests/abi: scripts/abi-check.sh's verdicts on a small C library changed in each way the ABI
# rules name (abi/README.md), and the baselines in abi/ record what the check relies on.
#   pass: functions added, enumerators added, members appended to a struct;
#   fail: a function removed, an enumerator's value changed, a member inserted before others,
#         a member's type changed (in a struct that also grew: libabigail 2.2's suppression alone
#         would let it through), a function's parameter type changed.
# Usage: abi_check_test.sh SOURCE_DIR WORK_DIR C_COMPILER
set -uo pipefail
src="$1"
work="$2"
cc="$3"
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
failures=0

# lib NAME HEADER_BODY SOURCE_BODY: builds libNAME.so with -g and writes NAME.abi like abi-check.sh.
lib() {
  mkdir -p "$1"
  printf '%s\n' "$2" > "$1/toy.h"
  printf '#include "toy.h"\n%s\n' "$3" > "$1/toy.c"
  "$cc" -g -O2 -shared -fPIC -o "$1/libtoy.so" "$1/toy.c" || { echo "FAIL: cannot build $1"; exit 1; }
  abidw --exported-interfaces-only --headers-dir "$1" --drop-private-types --no-show-locs "$1/libtoy.so" > "$1.abi"
}
F='int f(struct S *s, enum E e) { return s->a + (int)e; }'
lib base 'struct S { unsigned size; int a; }; enum E { A = 0, B = 1 }; int f(struct S *s, enum E e);' "$F"
lib added 'struct S { unsigned size; int a; int c; }; enum E { A = 0, B = 1, C = 2 };
int f(struct S *s, enum E e); int g(void);' "$F int g(void) { return 1; }"
lib removed 'struct S { unsigned size; int a; }; enum E { A = 0, B = 1 }; int h(struct S *s, enum E e);' \
  'int h(struct S *s, enum E e) { return s->a + (int)e; }'
lib enum_value 'struct S { unsigned size; int a; }; enum E { A = 0, B = 2 }; int f(struct S *s, enum E e);' "$F"
lib inserted 'struct S { int c; unsigned size; int a; }; enum E { A = 0, B = 1 }; int f(struct S *s, enum E e);' "$F"
lib member_type 'struct S { unsigned size; long a; }; enum E { A = 0, B = 1 }; int f(struct S *s, enum E e);' \
  'int f(struct S *s, enum E e) { return (int)s->a + (int)e; }'
lib parameter 'struct S { unsigned size; int a; }; enum E { A = 0, B = 1 }; int f(struct S *s, long e);' \
  'int f(struct S *s, long e) { return s->a + (int)e; }'

expect() { # expect pass|fail VARIANT
  local out rc=0
  out=$("$src/scripts/abi-check.sh" --compare base.abi "$2.abi" 2>&1) || rc=$?
  # A failure must be a verdict on the change, not abidiff failing to read its input.
  if { [ "$1" = pass ] && [ $rc -ne 0 ]; } || { [ "$1" = fail ] && { [ $rc -ne 1 ] || [[ "$out" == *"could not compare"* ]]; }; }; then
    echo "FAIL: $2: expected $1, abi-check exited $rc:"
    echo "$out"
    failures=$((failures + 1))
  else
    echo "ok: $2: ${out%%$'\n'*}"
  fi
}
expect pass added
expect fail removed
expect fail enum_value
expect fail inserted
expect fail member_type
expect fail parameter

# The baselines: every public library and the cpu plugins, whose entries reach the plugin tables
# with all their members (the first and the header's last: "type *name;" or "type (*name)(...)").
# The header is preprocessed first: infinirtPluginTable_t's members come from the entry list.
last_member() { # HEADER TYPEDEF_NAME
  "${CC:-cc}" -E -P -I"$src/include" -x c "$1" |
    awk "/typedef struct/ { body = \"\" } { body = body \$0 \"\\n\" } /} $2;/ { printf \"%s\", body }" |
    grep -oE '\(\*[a-z_0-9]+\)|\*[a-z_0-9]+;' | tail -n 1 | tr -d '()*;'
}
for f in libinfinirt.abi libinfinicore.abi libinfinirt-cpu.abi libinfiniccl.abi libinfiniccl-cpu.abi; do
  [ -s "$src/abi/$f" ] || { echo "FAIL: abi/$f missing"; failures=$((failures + 1)); }
done
contains() { # FILE WHAT...
  local file="$1" want
  shift
  for want in "$@"; do
    grep -q "$want" "$src/abi/$file" || { echo "FAIL: abi/$file lacks $want"; failures=$((failures + 1)); }
  done
}
rt_last=$(last_member "$src/include/infinirt_plugin.h" infinirtPluginTable_t)
ccl_last=$(last_member "$src/include/infiniccl_plugin.h" infinicclPluginTable_t)
echo "the plugin tables' last members in the headers: $rt_last, $ccl_last"
[ -n "$rt_last" ] && [ -n "$ccl_last" ] || { echo "FAIL: no last member found in a plugin header"; failures=$((failures + 1)); }
contains libinfinirt-cpu.abi "elf-symbol name='infinirtPluginQuery'" "name='infinirtPluginTable'" \
  "var-decl name='struct_size'" "var-decl name='$rt_last'"
contains libinfiniccl-cpu.abi "elf-symbol name='infinicclPluginQuery'" "name='infinicclPluginTable_t'" \
  "var-decl name='$ccl_last'"
contains libinfinirt.abi "elf-symbol name='infinirtMalloc'"
[ "$failures" -eq 0 ] && echo "all ABI verdicts as expected" || exit 1
