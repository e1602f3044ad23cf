// saxpy for opencl: y[i] = a * x[i] + y[i].
kernel void saxpy(global float *y, const global float *x, float a, uint n) {
    const uint i = (uint)(get_group_id(0) * get_local_size(0) + get_local_id(0));
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
