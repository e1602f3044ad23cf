/* failing_waits_shim.c - an ICD loader for the opencl plugin (INFINIRT_OPENCL_LIBRARY) that is
 * the real one (it links libOpenCL.so.1, so every other cl* symbol the plugin resolves comes from
 * there), except clWaitForEvents and clFinish: while infinirt_test_failing_waits is non-zero they
 * fail at once with CL_OUT_OF_HOST_MEMORY, without waiting, as a wait that fails for a reason of
 * its own leaves its commands queued. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <dlfcn.h>

__attribute__((visibility("default"))) int infinirt_test_failing_waits = 0;

static int failing(void) { return __atomic_load_n(&infinirt_test_failing_waits, __ATOMIC_ACQUIRE); }

/* The real loader's `name` (already loaded: this library links it). */
static void *real(const char *name) {
    void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_NOLOAD);
    void *sym = lib != NULL ? dlsym(lib, name) : NULL;
    if (lib != NULL) {
        dlclose(lib); /* NOLOAD took a reference */
    }
    return sym;
}

__attribute__((visibility("default"))) CL_API_ENTRY cl_int CL_API_CALL clWaitForEvents(cl_uint n,
                                                                                        const cl_event *events) {
    if (failing()) {
        return CL_OUT_OF_HOST_MEMORY;
    }
    cl_int (*wait)(cl_uint, const cl_event *) = (cl_int(*)(cl_uint, const cl_event *))real("clWaitForEvents");
    return wait != NULL ? wait(n, events) : CL_INVALID_OPERATION;
}

__attribute__((visibility("default"))) CL_API_ENTRY cl_int CL_API_CALL clFinish(cl_command_queue queue) {
    if (failing()) {
        return CL_OUT_OF_HOST_MEMORY;
    }
    cl_int (*finish)(cl_command_queue) = (cl_int(*)(cl_command_queue))real("clFinish");
    return finish != NULL ? finish(queue) : CL_INVALID_OPERATION;
}
