// out[i] = in[i] * SCALE + OFFSET. SCALE comes from the entry's own build options (infinirt-pack
// --options), OFFSET from the options infinirtModuleLoadFile's caller appends.
kernel void scale(global float *out, const global float *in, int n) {
    const int i = (int)(get_group_id(0) * get_local_size(0) + get_local_id(0));
    if (i < n) {
        out[i] = in[i] * SCALE + OFFSET;
    }
}
