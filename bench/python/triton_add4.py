"""The Triton kernel of launch_bench.py (imported only where Triton is): 4 arguments at launch
(BLOCK is a compile-time constant), out = x + y over n elements."""
import triton
import triton.language as tl


@triton.jit
def add4(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)
