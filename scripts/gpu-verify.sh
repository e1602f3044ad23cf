#!/usr/bin/env bash
# Verification on a GPU machine (not part of CI, which has no GPU). Two passes, each one command
# that fits one device call:
#
#   scripts/gpu-verify.sh --quick [OUT]   (at most 4 minutes on a 16-core GPU machine, build included)
#     builds (Release, cuda, opencl and vulkan) only what it runs, then the conformance suite on cuda,
#     on NVIDIA's OpenCL alone, on NVIDIA's Vulkan alone (and its pairs with each GPU served twice)
#     and on cpu, the vulkan backend's own tests and the C99 client on vulkan:0, then the hot-path
#     benches:
#     dispatch (cuda_dispatch_bench, infinirt-dispatch-bench on cuda), launch (infinirt-kernels-cuda-bench), allocation
#     (infinicore_alloc_bench) and the Python launch (bench/python/launch_bench.py).
#   scripts/gpu-verify.sh --pairs [OUT]   (two GPUs: at most 9 minutes; fails on fewer)
#     builds what it runs, then what needs two devices of one type: the conformance suite's
#     Pairs/* tests on cuda x cuda (peers, a capture waiting on the other GPU's event, ...), on
#     vulkan x vulkan and on cpu x cpu, the C++ layer's device-pair tests (a block used by the
#     other GPU's stream), the infiniccl conformance on NCCL and cpu (bad input included, NCCL
#     checking pointers), the published-header client, the 2-rank example, the peer and AllReduce benches, and NCCL between
#     two network-namespace hosts (one GPU each, sockets only, infinicclCommInitFromEnv).
#   scripts/gpu-verify.sh [OUT]           (full, the tests: at most 9 minutes)
#     builds everything, runs every ctest entry (the conformance suite then covers the cuda device
#     and every OpenCL platform, the stress tests included), the layers on cuda, the peer tests on
#     every pair of devices, the Python package with PyTorch, NVIDIA's OpenCL alone, NVIDIA's Vulkan
#     alone (conformance, stress) and a 2-minute soak on nvidia:0 and cpu:0.
#   scripts/gpu-verify.sh --bench [OUT]   (full, the benchmarks: at most 9 minutes)
#     builds everything, then every benchmark: the quick pass's, the other backends' dispatch and
#     launch, peers, registration, collectives where there are two GPUs, and infinirt-bench on
#     nvidia:0 and vulkan:0 (against a native Vulkan program) with its JSON and plot. The two full
#     passes together are the whole verification; each fits one device call.
#
# Logs go to OUT (default ./gpu-verify-out), at most 8 files: build.log, info.txt, tests.log,
# python.log, bench.txt, infinirt-bench.json, infinirt-bench.png and summary.txt. The pass ends by
# printing summary.txt: one line per part, `passed` or `FAILED` with its counts, and for the
# benches the rows they judge (`met`/`MISSED`). Exits 1 when any part failed.
# Needs CUDA 12+ headers and a driver; NVIDIA's OpenCL is found as libnvidia-opencl.so.1; NVIDIA's
# Vulkan through the Khronos loader unpacked from .gl/*.deb (below) and libEGL_nvidia.so.0.
set -uo pipefail
quick=0
pairs=0
bench_pass=0
if [ "${1:-}" = "--quick" ]; then
  quick=1
  shift
elif [ "${1:-}" = "--pairs" ]; then
  pairs=1
  shift
elif [ "${1:-}" = "--bench" ]; then
  bench_pass=1
  shift
fi
out="${1:-gpu-verify-out}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$(dirname "$0")/.."
build=/tmp/infinirt-gpu-build
summary="$out/summary.txt"
: > "$summary"
failed=0
started=$(date +%s)

# note PART STATUS DETAIL: one line of the summary.
note() {
  printf '%-34s %-7s %s\n' "$1" "$2" "$3" >> "$summary"
  [ "$2" = passed ] || failed=1
}
# gtest_counts LOG: "N passed, M failed" from a gtest run's closing lines.
gtest_counts() {
  local passed failed_n
  passed=$(grep -E '^\[  PASSED  \] [0-9]+ test' "$1" | tail -n 1 | grep -oE '[0-9]+' | head -n 1)
  failed_n=$(grep -E '^\[  FAILED  \] [0-9]+ test' "$1" | tail -n 1 | grep -oE '[0-9]+' | head -n 1)
  echo "${passed:-0} passed, ${failed_n:-0} failed"
}
# gtest_part NAME LOG RC: a summary line for a gtest binary's run.
gtest_part() {
  local counts
  counts=$(gtest_counts "$2")
  if [ "$3" -eq 0 ] && grep -qE '^\[  PASSED  \]' "$2"; then
    note "$1" passed "$counts"
  else
    note "$1" FAILED "$counts (exit $3; $(grep -E '^\[  FAILED  \] [A-Za-z]' "$2" | head -n 3 | sed 's/^\[  FAILED  \] //' | tr '\n' ' '))"
  fi
}
# bench_rows TEXT: the rows a bench judges, one "name figure verdict" per line, whatever its
# format: cuda_dispatch_bench's (diff ns, met/MISSED), infinirt-dispatch-bench's (added ns),
# the kernel benches' (added, PASS/FAIL/info), infinicore_alloc_bench's summary (ns per pair,
# reserved/requested with and without expandable segments) and infinirt-register-bench's.
bench_rows() {
  sed -nE \
    -e 's/^([A-Za-z].*[^ ]) +[0-9.]+ +[0-9.]+ +(-?[0-9.]+) +([0-9.]+) +(met|MISSED|info)$/\1 +\2ns x\3 \4/p' \
    -e 's/^([A-Z][A-Za-z0-9]+) +[0-9.]+ +[0-9.]+ +(-?[0-9.]+) +([0-9.]+)$/\1 +\2ns x\3/p' \
    -e 's/^([a-z].*[^ ]) +(ns|us|GB\/s) +[0-9.]+ +[0-9.]+ +([0-9.]+) +(-?[0-9.]+) +(.*[^ ]) +(PASS|FAIL|met|MISSED)$/\1 +\4\2 x\3 \6/p' \
    -e 's/^([0-9]+[KMG]?i?B) +ours=([0-9.e+]+ns) +ours_context=([0-9.e+]+ns).*/cache-hit \1 allocator \2, context \3/p' \
    -e 's/^(mixed) +ours=([0-9.]+) +torch=([0-9.]+).*/reserved\/requested ours \2, torch \3/p' \
    -e 's/^(grow) +ours=([0-9.]+) +torch=([0-9.]+).*/growing batch reserved\/requested ours \2, torch \3/p' \
    -e 's/^(mixed|grow)\/exp +ours_expandable=([0-9.]+) +torch_expandable=([0-9.]+).*/\1 expandable reserved\/requested ours \2, torch \3/p' \
    -e 's/^(registration) +(.*)$/\1 \2/p' <<< "$1"
}
# bench_part NAME TEXT: a summary line for a bench: its judged rows, MISSED/FAIL ones first.
bench_part() {
  local rows bad
  rows=$(bench_rows "$2")
  bad=$(grep -E ' (MISSED|FAIL)$' <<< "$rows" | tr '\n' ';')
  if [ -z "$2" ]; then
    note "$1" FAILED "no output"
  else
    note "$1" passed "${bad:+MISSED: $bad }rows: $(grep -vE ' (MISSED|FAIL)$' <<< "$rows" | tr '\n' ';')"
  fi
}
finish() {
  local pass=full
  [ $quick -eq 1 ] && pass=quick
  [ $pairs -eq 1 ] && pass=pairs
  [ $bench_pass -eq 1 ] && pass=bench
  echo "total wall time $(( $(date +%s) - started )) s ($pass pass)" >> "$summary"
  echo
  echo "==== summary ($summary) ===="
  cat "$summary"
  exit $failed
}

# ---- NVIDIA's Vulkan driver ----------------------------------------------------------------------
# The GPU machine has no Khronos loader (libvulkan.so.1) and no Vulkan headers: the lead carries
# Debian's libvulkan1 and libvulkan-dev as .deb files in .gl/ (git-ignored), unpacked here before
# the build so that the vulkan plugin is built and finds its loader (and glslc, libshaderc1 and
# spirv-tools, which build the vulkan kernels' SPIR-V). The installed ICD JSON names
# libGLX_nvidia.so.0, which gives no vkCreateInstance without a display; a JSON of our own names
# libEGL_nvidia.so.0 (with the installed one's api_version), and VK_DRIVER_FILES points the loader
# at it alone.
vk_ready=0
if ! ldconfig -p | grep 'libvulkan.so.1' > /dev/null || [ ! -f /usr/include/vulkan/vulkan.h ] || ! command -v glslc > /dev/null; then
  if compgen -G ".gl/*.deb" > /dev/null; then
    for deb in .gl/*.deb; do dpkg -x "$deb" / || echo "gpu-verify: dpkg -x $deb failed" >&2; done
    ldconfig
  fi
fi
# vk_ready: the loader and the headers are both there (else the plugin is not built: AUTO).
if ldconfig -p | grep 'libvulkan.so.1' > /dev/null && [ -f /usr/include/vulkan/vulkan.h ]; then
  nv_icd=""
  for d in /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/nvidia/share/vulkan/icd.d; do
    for f in "$d"/nvidia_icd*.json; do
      [ -f "$f" ] && { nv_icd="$f"; break 2; }
    done
  done
  vk_api=""
  [ -n "$nv_icd" ] && vk_api=$(sed -nE 's/.*"api_version" *: *"([^"]+)".*/\1/p' "$nv_icd" | head -n 1)
  vk_icd_dir=$(mktemp -d)
  printf '{\n  "file_format_version": "1.0.1",\n  "ICD": {\n    "library_path": "libEGL_nvidia.so.0",\n    "api_version": "%s"\n  }\n}\n' \
    "${vk_api:-1.3.0}" > "$vk_icd_dir/nvidia_egl_icd.json"
  export VK_DRIVER_FILES="$vk_icd_dir/nvidia_egl_icd.json" VK_ICD_FILENAMES="$vk_icd_dir/nvidia_egl_icd.json"
  vk_ready=1
fi

# ---- build -------------------------------------------------------------------------------------
quick_targets=(infinirt-info infinirt-quickstart infinirt-cpu infinirt-cuda infinirt-opencl infinirt_conformance
               cuda_dispatch_bench infinirt-dispatch-bench infinirt-kernels-cuda-bench infinicore_alloc_bench)
pairs_targets=(infinirt-info infinirt-quickstart infinirt-cpu infinirt-cuda infinirt-opencl infinirt_conformance
               infiniccl infiniccl-cpu infiniccl-nccl ccl_conformance_test ccl_published_client infiniccl-allreduce
               ccl_allreduce_bench infinicore_device_pair_tests infinirt-peer-bench ccl_hosts_nccl_bench)
# The vulkan targets exist only where the plugin is built (the loader and headers found above), and
# the vulkan kernels only where glslc and spirv-link (carried as .debs in .gl/ too) build their SPIR-V.
if [ $vk_ready -eq 1 ]; then
  quick_targets+=(infinirt-vulkan infinirt-vulkan-bench vulkan_backend_test infinirt_c99_client)
  pairs_targets+=(infinirt-vulkan)
  if command -v glslc > /dev/null && command -v spirv-link > /dev/null; then
    quick_targets+=(infinirt-vulkan-kernel-bench vulkan_kernel_test infinirt-saxpy infinirt_saxpy_kernels)
  fi
fi
t0=$(date +%s)
{
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DINFINIRT_WITH_CUDA=ON -DINFINIRT_WITH_OPENCL=ON \
    -DINFINIRT_WITH_VULKAN=$([ $vk_ready -eq 1 ] && echo ON || echo AUTO) \
    -DINFINIRT_BUILD_TESTS=ON -DINFINIRT_BUILD_BENCHMARKS=ON -DINFINIRT_SANITIZE= &&
  if [ $pairs -eq 1 ]; then
    cmake --build "$build" --parallel "$(nproc)" --target "${pairs_targets[@]}"
  elif [ $quick -eq 1 ]; then
    cmake --build "$build" --parallel "$(nproc)" --target "${quick_targets[@]}"
  else
    cmake --build "$build" --parallel "$(nproc)"
  fi
} > "$out/build.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  grep -B2 -A8 -E 'error|Error' "$out/build.log" | head -60
  note build FAILED "exit $rc after $(( $(date +%s) - t0 )) s (build.log)"
  finish
fi
note build passed "$(( $(date +%s) - t0 )) s"
"$build/bin/infinirt-info" > "$out/info.txt" 2>&1
"$build/bin/infinirt-quickstart" >> "$out/info.txt" 2>&1
# ---- first use (issue 49): on a GPU machine the default device is the GPU, logged once at info with
# why, and the quick start's example names it; no fallback warning.
first_use=$(INFINIRT_LOG=info INFINICORE_DEFAULT_DEVICE= "$build/bin/infinirt-quickstart" 2>&1)
echo "$first_use" > "$out/first-use.txt"
if [ "$(grep -c 'default device ' <<< "$first_use")" -eq 1 ] &&
   grep -q '^infinirt \[info\] default device nvidia:0: the first GPU found' <<< "$first_use" &&
   ! grep -q 'every GPU backend failed' <<< "$first_use" && grep -q '^nvidia:0 (.*data verified' <<< "$first_use"; then
  note "first use: default device" passed "nvidia:0, logged once with why (first-use.txt)"
else
  note "first use: default device" FAILED "expected one info line 'default device nvidia:0: the first GPU found' (first-use.txt)"
fi

nv_ocl=$(ldconfig -p | awk '/libnvidia-opencl.so.1/ {print $NF; exit}')
[ -n "$nv_ocl" ] || nv_ocl=$(find / -xdev -name 'libnvidia-opencl.so.1*' 2>/dev/null | head -n 1)
# NCCL for infiniccl: PyTorch's Python packages carry it (nvidia.nccl, or torch's lib folder).
# NCCL_NVLS_ENABLE=0: NVLink multicast can take a shared GPU host out of service; keep it off.
export NCCL_NVLS_ENABLE=0
if [ -z "${INFINIRT_NCCL_LIBRARY:-}" ]; then
  nccl_lib=$(python3 - <<'PY' 2>/dev/null
import os
cands = []
try:
    import nvidia.nccl as m
    d = os.path.dirname(m.__file__) if getattr(m, "__file__", None) else list(m.__path__)[0]
    cands.append(os.path.join(d, "lib", "libnccl.so.2"))
except Exception:
    pass
try:
    import torch
    cands.append(os.path.join(os.path.dirname(torch.__file__), "lib", "libnccl.so.2"))
except Exception:
    pass
print(next((c for c in cands if os.path.exists(c)), ""))
PY
)
  [ -n "$nccl_lib" ] && export INFINIRT_NCCL_LIBRARY="$nccl_lib"
fi

# ---- tests -------------------------------------------------------------------------------------
tests="$out/tests.log"
: > "$tests"
# conformance LABEL ENV... [--gtest-option...]: the conformance suite under ENV, its output
# appended to tests.log.
conformance() {
  local label="$1"
  shift
  gtest_binary "conformance $label" infinirt_conformance "$@"
}
# gtest_binary LABEL BINARY [VAR=value...] [--gtest-option...]: one gtest binary of the build,
# with its output in the tests log and its line in the summary.
gtest_binary() {
  local label="$1" binary="$2" part arg
  local vars=() opts=()
  shift 2
  for arg in "$@"; do
    case "$arg" in --*) opts+=("$arg") ;; *) vars+=("$arg") ;; esac
  done
  part=$(mktemp)
  env "${vars[@]}" timeout 240 "$build/bin/$binary" "${opts[@]}" > "$part" 2>&1
  local rc=$?
  { echo "==== $label ===="; cat "$part"; } >> "$tests"
  gtest_part "$label" "$part" $rc
  rm -f "$part"
}
# conformance_vulkan: the suite on NVIDIA's Vulkan driver alone (the same GPU as nvidia:0).
conformance_vulkan() {
  if [ $vk_ready -eq 1 ]; then
    conformance "NVIDIA's Vulkan" INFINIRT_BACKENDS=vulkan INFINIRT_EXPECT_BACKENDS=vulkan "$@"
  else
    note "conformance NVIDIA's Vulkan" FAILED "libvulkan.so.1 or vulkan/vulkan.h not found (carry libvulkan1 and libvulkan-dev .debs in .gl/)"
  fi
}
gpus=$(grep -oE '^  nvidia:[0-9]+' "$out/info.txt" | sort -u | wc -l)
if [ $pairs -eq 1 ]; then
  if [ "$gpus" -lt 2 ]; then
    note "two GPUs" FAILED "$gpus nvidia device(s) found: the pairs pass needs two"
    finish
  fi
  conformance "device pairs (cuda x cuda, cpu x cpu)" INFINIRT_BACKENDS=cuda,cpu INFINIRT_CPU_DEVICE_COUNT=2 \
    --gtest_filter='Pairs/*'
  [ $vk_ready -eq 1 ] && conformance "device pairs (vulkan x vulkan)" INFINIRT_BACKENDS=vulkan --gtest_filter='Pairs/*'
  part=$(mktemp)
  timeout 120 "$build/bin/infinicore_device_pair_tests" > "$part" 2>&1
  rc=$?
  { echo "==== C++ layer, device pairs ===="; cat "$part"; } >> "$tests"
  gtest_part "C++ layer device pairs" "$part" $rc
  rm -f "$part"
  # NCCL checks its pointers itself here, so that its own refusals can be seen (CclBadInput).
  part=$(mktemp)
  INFINICCL_EXPECT_BACKENDS=nvidia,cpu INFINIRT_CPU_DEVICE_COUNT=2 INFINICCL_CPU_TIMEOUT=60 NCCL_CHECK_POINTERS=1 \
    INFINICCL_TEST_LARGE=1 timeout 240 "$build/bin/ccl_conformance_test" > "$part" 2>&1
  rc=$?
  { echo "==== ccl conformance (nvidia, cpu) ===="; cat "$part"; } >> "$tests"
  gtest_part "ccl conformance (nvidia, cpu)" "$part" $rc
  rm -f "$part"
elif [ $quick -eq 1 ]; then
  conformance cuda INFINIRT_BACKENDS=cuda INFINIRT_EXPECT_BACKENDS=cuda
  if [ -n "$nv_ocl" ]; then
    conformance "NVIDIA's OpenCL" OCL_ICD_FILENAMES="$nv_ocl" OCL_ICD_VENDORS=/nonexistent \
      INFINIRT_BACKENDS=opencl INFINIRT_EXPECT_BACKENDS=opencl
  else
    note "conformance NVIDIA's OpenCL" FAILED "libnvidia-opencl.so.1 not found"
  fi
  conformance_vulkan
  # Each GPU served twice by the vulkan plugin (two VkDevices, whose addresses NVIDIA's driver lets
  # meet): the pairs of two vulkan devices on one GPU.
  [ $vk_ready -eq 1 ] && conformance "vulkan pairs, each GPU twice" INFINIRT_BACKENDS=vulkan \
    INFINIRT_VULKAN_DEVICE_COPIES=2 --gtest_filter='Pairs/*'
  # The vulkan backend's own tests (tests/vulkan), also with each GPU served twice, and the C99
  # client on vulkan:0 (infinirt.h alone: memory, streams, events, a captured graph).
  if [ $vk_ready -eq 1 ]; then
    gtest_binary "vulkan backend tests" vulkan_backend_test INFINIRT_BACKENDS=vulkan
    gtest_binary "vulkan backend tests, each GPU twice" vulkan_backend_test INFINIRT_BACKENDS=vulkan \
      INFINIRT_VULKAN_DEVICE_COPIES=2 --gtest_filter='VulkanPair.*'
    part=$(mktemp)
    INFINICORE_DEFAULT_DEVICE=vulkan:0 INFINIRT_BACKENDS=vulkan timeout 60 "$build/bin/infinirt_c99_client" > "$part" 2>&1
    rc=$?
    { echo "==== C99 client on vulkan:0 ===="; cat "$part"; } >> "$tests"
    if [ $rc -eq 0 ]; then note "C99 client on vulkan:0" passed "$(tail -n 1 "$part")"; else note "C99 client on vulkan:0" FAILED "exit $rc: $(tail -n 1 "$part")"; fi
    rm -f "$part"
  fi
  conformance cpu INFINIRT_BACKENDS=cpu INFINIRT_EXPECT_BACKENDS=cpu INFINIRT_CPU_DEVICE_COUNT=2
elif [ $bench_pass -eq 0 ]; then
  # Every ctest entry: the conformance suite on cuda, every OpenCL platform (NVIDIA's and PoCL)
  # and cpu, the stress tests, the clients, the Python smoke tests.
  part=$(mktemp)
  # The soak runs below on cuda for 2 minutes; its 30 s cpu entry is left to CI.
  INFINIRT_EXPECT_BACKENDS=cuda,opencl,cpu$([ $vk_ready -eq 1 ] && echo ,vulkan) INFINICCL_TEST_LARGE=1 \
    ctest --test-dir "$build" --output-on-failure --parallel 8 --timeout 180 -LE soak > "$part" 2>&1
  rc=$?
  { echo "==== ctest ===="; cat "$part"; } >> "$tests"
  line=$(grep -E '% tests passed' "$part" | tail -n 1)
  if [ $rc -eq 0 ]; then note ctest passed "$line"; else note ctest FAILED "$line; $(grep -E '^\s+[0-9]+ - ' "$part" | head -n 4 | tr -s ' ' | tr '\n' ';')"; fi
  rm -f "$part"
  if [ -n "$nv_ocl" ]; then
    conformance "NVIDIA's OpenCL" OCL_ICD_FILENAMES="$nv_ocl" OCL_ICD_VENDORS=/nonexistent \
      INFINIRT_BACKENDS=opencl INFINIRT_EXPECT_BACKENDS=opencl
  else
    note "conformance NVIDIA's OpenCL" FAILED "libnvidia-opencl.so.1 not found"
  fi
  # NVIDIA's Vulkan alone: the suite, then the 16-thread stress tests on it.
  conformance_vulkan
  if [ $vk_ready -eq 1 ]; then
    part=$(mktemp)
    INFINIRT_BACKENDS=vulkan timeout 180 "$build/bin/infinirt_stress" > "$part" 2>&1
    rc=$?
    { echo "==== stress on NVIDIA's Vulkan ===="; cat "$part"; } >> "$tests"
    gtest_part "stress on NVIDIA's Vulkan" "$part" $rc
    rm -f "$part"
  fi
  # The layers on cuda: the 16-thread fault-injection stress on the cuda device alone (allocator
  # retries, everything balances), and the conformance suite with the validation layer on (no
  # refusal of a correct program).
  part=$(mktemp)
  INFINIRT_BACKENDS=cuda timeout 180 "$build/bin/infinirt_fault_stress" > "$part" 2>&1
  rc=$?
  { echo "==== fault injection on cuda ===="; cat "$part"; } >> "$tests"
  gtest_part "fault injection on cuda" "$part" $rc
  rm -f "$part"
  conformance "cuda, validation layer" INFINIRT_BACKENDS=cuda INFINIRT_EXPECT_BACKENDS=cuda INFINIRT_VALIDATION=1
  # The soak: 16 threads for 2 minutes over nvidia:0 and cpu:0; memory flat after warm-up.
  part=$(mktemp)
  INFINIRT_BACKENDS=cuda,cpu INFINIRT_SOAK_SECONDS=120 timeout 200 "$build/bin/infinirt_soak" > "$part" 2>&1
  rc=$?
  { echo "==== soak on cuda and cpu ===="; cat "$part"; } >> "$tests"
  gtest_part "soak (nvidia:0, cpu:0, 2 min)" "$part" $rc
  grep '^soak:' "$part" | sed 's/^/    /' >> "$summary"
  rm -f "$part"
  # Peers: the peer conformance tests on every ordered pair of devices found.
  conformance "device pairs (peers)" INFINIRT_CPU_DEVICE_COUNT=2 --gtest_filter='Pairs/Peer.*:Pairs/CrossDevice.*'
  # The Python package with this machine's python3 and PyTorch, on this build's library.
  py_env=(INFINIRT_LIBRARY="$build/lib/libinfinirt.so.0" PYTHONPATH="$PWD/python" PYTHONDONTWRITEBYTECODE=1
          INFINIRT_TEST_INCLUDE="$PWD/include" INFINIRT_TEST_BUILD_DIR="$build" INFINIRT_TEST_CMAKE="$(command -v cmake)")
  if python3 -c 'import pytest' 2>/dev/null; then
    # faulthandler_timeout: a test that hangs prints every thread's stack before the timeout kills it.
    # infinirt.ccl's ranks of one process need two cpu devices (as its ctest entry sets).
    pytest=(python3 -m pytest -q -rs -p no:cacheprovider -o faulthandler_timeout=60)
    env "${py_env[@]}" timeout 240 "${pytest[@]}" tests/python --ignore=tests/python/test_ccl.py > "$out/python.log" 2>&1
    rc=$?
    py_line=$(tail -n 1 "$out/python.log")
    env "${py_env[@]}" INFINIRT_CPU_DEVICE_COUNT=2 timeout 120 "${pytest[@]}" tests/python/test_ccl.py >> "$out/python.log" 2>&1
    rc_ccl=$?
    py_line="$py_line; test_ccl.py (two cpu devices): $(tail -n 1 "$out/python.log")"
    [ $rc -eq 0 ] && rc=$rc_ccl
  else
    env "${py_env[@]}" timeout 240 python3 tests/python/test_gpu.py > "$out/python.log" 2>&1
    rc=$?
    py_line=$(tail -n 1 "$out/python.log")
  fi
  if [ $rc -eq 0 ]; then note python passed "$py_line"; else note python FAILED "$py_line"; fi
  finish # the benchmarks are the --bench pass
fi

# ---- benches -----------------------------------------------------------------------------------
bench="$out/bench.txt"
: > "$bench"
# run_bench NAME CMD...: the bench's output appended to bench.txt and judged in the summary.
run_bench() {
  local name="$1" text rc
  shift
  text=$(timeout 240 "$@" 2>&1)
  rc=$?
  # The last 200 lines of each bench: what it judges and its tables (bench.txt stays small).
  { echo "==== $name ===="; tail -n 200 <<< "$text"; } >> "$bench"
  if [ $rc -ne 0 ]; then
    note "$name" FAILED "exit $rc: $(tail -n 2 <<< "$text" | tr '\n' ' ')"
  else
    bench_part "$name" "$text"
  fi
}
if [ $pairs -eq 1 ]; then
  run_bench "ccl published client" "$build/bin/ccl_published_client"
  run_bench "ccl allreduce example" "$build/bin/infiniccl-allreduce" --nranks 2 --device nvidia
  run_bench "peer bench" "$build/bin/infinirt-peer-bench"
  run_bench "ccl allreduce bench" "$build/bin/ccl_allreduce_bench"
  # NCCL between two network-namespace hosts, one GPU each, NCCL on its sockets only, through
  # infinicclCommInitFromEnv's rendezvous; results checked, bus bandwidth beside raw NCCL (>= 0.98
  # at >= 64 MiB). Needs root, user namespaces or sudo, and iproute2.
  run_bench "ccl nccl across namespace hosts" python3 tests/ccl/netns_hosts.py "$build/bin/ccl_hosts_nccl_bench" nccl-2
  finish
fi
run_bench "cuda_dispatch_bench" "$build/bin/cuda_dispatch_bench"
run_bench "dispatch bench (cuda)" env INFINIRT_BENCH_BACKEND=cuda "$build/bin/infinirt-dispatch-bench"
run_bench "kernels bench (cuda)" "$build/bin/infinirt-kernels-cuda-bench"
run_bench "alloc bench" "$build/bin/infinicore_alloc_bench"
# NVIDIA's Vulkan: issue 45's small work (a 64-byte copy, a fill, an event, and 1,000 of them then one
# synchronize) against a native Vulkan program on the same GPU.
if [ $vk_ready -eq 1 ]; then
  run_bench "vulkan small work" env INFINIRT_BACKENDS=vulkan "$build/bin/infinirt-vulkan-bench"
  # The C++ layer's cache-hit allocate + free on vulkan:0 (issue 45: <= 50 ns, as on the other types).
  run_bench "alloc bench (vulkan)" env INFINIRT_BACKENDS=vulkan "$build/bin/infinicore_alloc_bench" \
    --benchmark_filter=CacheHit
  # Issue 46's kernels: saxpy over 256 MiB, an empty launch, 1,000 launches and a new shape's first
  # launch against a native Vulkan program dispatching the same SPIR-V; the kernel tests beyond the
  # conformance suite; saxpy from its module file on every device (cuda, NVIDIA's OpenCL, vulkan).
  if [ -x "$build/bin/infinirt-vulkan-kernel-bench" ]; then
    run_bench "vulkan kernels" env INFINIRT_BACKENDS=vulkan "$build/bin/infinirt-vulkan-kernel-bench"
    part=$(mktemp)
    INFINIRT_BACKENDS=vulkan timeout 120 "$build/bin/vulkan_kernel_test" > "$part" 2>&1
    rc=$?
    { echo "==== vulkan kernel tests on NVIDIA's Vulkan ===="; cat "$part"; } >> "$tests"
    gtest_part "vulkan kernel tests on NVIDIA's Vulkan" "$part" $rc
    rm -f "$part"
    run_bench "saxpy on every device" env OCL_ICD_FILENAMES="$nv_ocl" OCL_ICD_VENDORS=/nonexistent \
      INFINIRT_BACKENDS=cuda,opencl,vulkan "$build/bin/infinirt-saxpy"
  else
    note "vulkan kernels" FAILED "glslc or spirv-link not found (carry the glslc, libshaderc1 and spirv-tools .debs in .gl/)"
  fi
fi
run_bench "python launch bench" env INFINIRT_LIBRARY="$build/lib/libinfinirt.so.0" PYTHONPATH="$PWD/python" \
  PYTHONDONTWRITEBYTECODE=1 INFINIRT_TEST_INCLUDE="$PWD/include" timeout 150 python3 bench/python/launch_bench.py
if [ $quick -eq 0 ]; then
  for backend in opencl cpu; do
    run_bench "dispatch bench ($backend)" env INFINIRT_BENCH_BACKEND=$backend "$build/bin/infinirt-dispatch-bench"
  done
  run_bench "dispatch bench (cuda, validation)" env INFINIRT_VALIDATION=1 INFINIRT_BENCH_BACKEND=cuda \
    "$build/bin/infinirt-dispatch-bench"
  run_bench "peer bench" "$build/bin/infinirt-peer-bench"
  run_bench "register bench" "$build/bin/infinirt-register-bench"
  run_bench "kernels bench (opencl)" env INFINIRT_BACKENDS=opencl "$build/bin/infinirt-kernels-opencl-bench"
  run_bench "kernels bench (cpu)" env INFINIRT_BACKENDS=cpu "$build/bin/infinirt-kernels-cpu-bench"
  # infiniccl on the nvidia devices through NCCL (conformance, 64 MiB included) and the example:
  # NCCL puts one rank on each GPU, so these need two (ctest's ccl entries ran on one above).
  if [ "$gpus" -ge 2 ]; then
    run_bench "ccl conformance (nvidia)" env INFINICCL_EXPECT_BACKENDS=nvidia INFINICCL_TEST_LARGE=1 \
      "$build/bin/ccl_conformance_test"
    run_bench "ccl published client" "$build/bin/ccl_published_client"
    run_bench "ccl allreduce example" "$build/bin/infiniccl-allreduce" --nranks 2 --device nvidia
    run_bench "ccl allreduce bench" "$build/bin/ccl_allreduce_bench"
  else
    echo "collectives across GPUs: skipped ($gpus nvidia device(s); NCCL needs one GPU per rank)" >> "$summary"
  fi
  # infinirt-bench: tables, every figure in infinirt-bench.json, the bandwidth sweeps in
  # infinirt-bench.png where a python3 has matplotlib (else: tools/bench/infinirt-bench-plot.py).
  plot=()
  python3 -c 'import matplotlib' 2>/dev/null && plot=(--plot "$out/infinirt-bench.png")
  run_bench "infinirt-bench" "$build/bin/infinirt-bench" --device nvidia:0 --json="$out/infinirt-bench.json" "${plot[@]}"
  # NVIDIA's Vulkan driver on the same GPU: infinirt's vulkan backend beside a native Vulkan
  # program (its own VkDevice) doing the same copies, events and synchronizes (up to 256 MiB: the
  # issue's copies; the ratios are the issue's "How fast" figures, next to cuda's above).
  if [ $vk_ready -eq 1 ]; then
    run_bench "infinirt-bench (vulkan)" env INFINIRT_BACKENDS=vulkan "$build/bin/infinirt-bench" --device vulkan:0 \
      --max-size 256M
  fi
fi
finish
