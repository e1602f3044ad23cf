#!/usr/bin/env bash
# Verification on a GPU machine (not part of CI, which has no GPU): builds the tree, runs every
# test (the conformance suite then covers the cuda device and any OpenCL platform), runs the
# conformance suite again on NVIDIA's OpenCL alone, runs every benchmark, and infinirt-bench on the
# GPU (its JSON and bandwidth plot). Logs go to $1 (default ./gpu-verify-out), 8 files at most:
# build.log (configure + build), info.txt, ctest.log, python.log, conformance-nvidia-opencl.log,
# bench.txt, infinirt-bench.json, infinirt-bench.png. Needs CUDA 12+ headers and a driver; the
# PyTorch comparison in the allocator benchmark is built when python3 can import torch.
set -uo pipefail
out="${1:-gpu-verify-out}"
mkdir -p "$out"
build=/tmp/infinirt-gpu-build
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DINFINIRT_WITH_CUDA=ON -DINFINIRT_WITH_OPENCL=ON \
  > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
cmake --build "$build" --parallel "$(nproc)" >> "$out/build.log" 2>&1 || { grep -B2 -A8 error "$out/build.log" | head -60; exit 1; }
"$build/bin/infinirt-info" | tee "$out/info.txt"
"$build/bin/infinirt-quickstart" | tee -a "$out/info.txt"
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
echo "NCCL for infiniccl: ${INFINIRT_NCCL_LIBRARY:-libnccl.so.2 from the library path}"
INFINIRT_EXPECT_BACKENDS=cuda,opencl,cpu INFINICCL_TEST_LARGE=1 \
  ctest --test-dir "$build" --output-on-failure --parallel 8 --timeout 300 > "$out/ctest.log" 2>&1
tail -n 25 "$out/ctest.log"
# The layers on cuda (issue 16), appended to ctest.log: the 16-thread fault-injection stress on
# the cuda device alone (allocator retries, everything balances), and the conformance suite with
# the validation layer on (no refusal of a correct program; its leak report at the end).
{
  echo "==== layers on cuda ===="
  INFINIRT_BACKENDS=cuda "$build/bin/infinirt_fault_stress" 2>&1 | tail -n 5
  INFINIRT_BACKENDS=cuda INFINIRT_EXPECT_BACKENDS=cuda INFINIRT_VALIDATION=1 "$build/bin/infinirt_conformance" 2>&1 \
    | grep -E '^\[  (PASSED|FAILED)  \]|tests? from .* ran|infinirt validation' | head -n 40
} >> "$out/ctest.log" 2>&1
sed -n '/==== layers on cuda/,$p' "$out/ctest.log"
# Peers (issue 11): the peer conformance tests on every ordered pair of devices found (nvidia:0 x
# nvidia:1, nvidia x opencl, nvidia x cpu, cpu:0 x cpu:1, ...), appended to ctest.log, and the peer
# matrix (in info.txt above).
INFINIRT_CPU_DEVICE_COUNT=2 "$build/bin/infinirt_conformance" --gtest_filter='Pairs/Peer.*:Pairs/CrossDevice.*' \
  >> "$out/ctest.log" 2>&1
echo "peer conformance (all device pairs): $(grep -E '^\[  (PASSED|FAILED)  \]|tests? from .* ran' "$out/ctest.log" | tail -n 3 | tr '\n' ' ')"
# The Python package (tests/python) with this machine's python3 and PyTorch, on this build's
# library: test_gpu.py exchanges memory with torch on the nvidia device. Without pytest, only
# test_gpu.py runs, as a script.
py_env=(INFINIRT_LIBRARY="$build/lib/libinfinirt.so.0" PYTHONPATH="$PWD/python" PYTHONDONTWRITEBYTECODE=1
        INFINIRT_TEST_INCLUDE="$PWD/include" INFINIRT_TEST_BUILD_DIR="$build" INFINIRT_TEST_CMAKE=cmake)
if python3 -c 'import pytest' 2>/dev/null; then
  env "${py_env[@]}" python3 -m pytest -v -rs -p no:cacheprovider tests/python > "$out/python.log" 2>&1
else
  env "${py_env[@]}" python3 tests/python/test_gpu.py > "$out/python.log" 2>&1
fi
echo "python package: $(tail -n 1 "$out/python.log")"
grep -E '(test_gpu.py::|^)test_[a-z_]+.*(PASSED|FAILED|SKIPPED|ERROR)|^(PASSED|FAILED|SKIPPED) ' "$out/python.log"
nv_ocl=$(ldconfig -p | awk '/libnvidia-opencl.so.1/ {print $NF; exit}')
[ -n "$nv_ocl" ] || nv_ocl=$(find / -name 'libnvidia-opencl.so.1*' 2>/dev/null | head -n 1)
if [ -n "$nv_ocl" ]; then
  OCL_ICD_FILENAMES="$nv_ocl" OCL_ICD_VENDORS=/nonexistent INFINIRT_BACKENDS=opencl INFINIRT_EXPECT_BACKENDS=opencl \
    "$build/bin/infinirt_conformance" > "$out/conformance-nvidia-opencl.log" 2>&1
  echo "NVIDIA OpenCL conformance: $(grep -E '^\[  (PASSED|FAILED)  \]|tests? from .* ran' "$out/conformance-nvidia-opencl.log" | tr '\n' ' ')"
fi
{
  for backend in cuda opencl cpu; do
    INFINIRT_BENCH_BACKEND=$backend "$build/bin/infinirt-dispatch-bench" 2>&1 | sed -n '/^Dispatch overhead/,$p'
    # The same with the validation layer on: what the layer costs per call (issue 16).
    INFINIRT_VALIDATION=1 INFINIRT_BENCH_BACKEND=$backend "$build/bin/infinirt-dispatch-bench" 2>&1 \
      | sed -n '/^Dispatch overhead/,$p' | sed 's/^/[validation] /'
  done
  "$build/bin/cuda_dispatch_bench"
  # Peers (issue 11): nvidia:0 -> nvidia:1 against cuMemcpyPeerAsync, staged cuda <-> cpu/opencl.
  "$build/bin/infinirt-peer-bench"
  # Kernel launch (issue 9): cuda; every OpenCL device found (NVIDIA's, PoCL); cpu.
  "$build/bin/infinirt-kernels-cuda-bench"
  INFINIRT_BACKENDS=opencl "$build/bin/infinirt-kernels-opencl-bench"
  INFINIRT_BACKENDS=cpu "$build/bin/infinirt-kernels-cpu-bench"
  "$build/bin/infinicore_alloc_bench" 2>&1 | tail -n 40
  # infiniccl on the nvidia devices through NCCL (conformance, 64 MiB included) and the example.
  INFINICCL_EXPECT_BACKENDS=nvidia INFINICCL_TEST_LARGE=1 "$build/bin/ccl_conformance_test" 2>&1 | tail -n 3
  "$build/bin/ccl_published_client"
  "$build/bin/infiniccl-allreduce" --nranks 2 --device nvidia
  "$build/bin/ccl_allreduce_bench"
  # infinirt-bench (issue 15) on the GPU: tables here, every figure in infinirt-bench.json, the
  # bandwidth sweeps in infinirt-bench.png (the README's plot) where a python3 has matplotlib;
  # elsewhere the JSON can be drawn later: tools/bench/infinirt-bench-plot.py JSON PNG.
  plot=()
  for py in python3 /usr/bin/python3; do
    if "$py" -c 'import matplotlib' 2>/dev/null; then
      plot=(--plot "$out/infinirt-bench.png")
      break
    fi
  done
  [ ${#plot[@]} -gt 0 ] || echo "infinirt-bench: no python3 with matplotlib here: no PNG (draw the JSON elsewhere)"
  "$build/bin/infinirt-bench" --device nvidia:0 --json="$out/infinirt-bench.json" "${plot[@]}"
} > "$out/bench.txt" 2>&1
cat "$out/bench.txt"
