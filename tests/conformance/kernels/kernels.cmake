# The conformance kernel set (tests/conformance/kernels/), built for each backend, included by
# tests/conformance/CMakeLists.txt after infinirt_conformance is defined:
#   cpu:    kernels_cpu.c -> a MODULE library (the system C compiler) loaded as HOST_SO;
#   cuda:   kernels.cu -> PTX, cubin and fatbin by nvcc, where CMake finds it;
#   opencl: kernels.cl, read at run time;
#   vulkan: vulkan/*.comp -> one Vulkan SPIR-V module (kernels.spv) by glslc, infinirt-pack entry and
#           spirv-link, where CMake finds them (cmake/InfinirtKernels.cmake).
# The test program finds each file through a compile definition holding its path ("" when the
# image was not built here).

add_library(infinirt_conformance_kernels_cpu MODULE ${CMAKE_CURRENT_LIST_DIR}/kernels_cpu.c)
target_link_libraries(infinirt_conformance_kernels_cpu PRIVATE infinirt::headers)
target_compile_options(infinirt_conformance_kernels_cpu PRIVATE -O2)
set_target_properties(infinirt_conformance_kernels_cpu PROPERTIES
  C_STANDARD 11
  C_STANDARD_REQUIRED ON
  PREFIX ""
  OUTPUT_NAME conformance_kernels_cpu
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/kernels)
add_dependencies(infinirt_conformance infinirt_conformance_kernels_cpu)

find_program(INFINIRT_NVCC nvcc PATHS /usr/local/cuda/bin DOC "nvcc, to build the conformance kernels for cuda")
set(INFINIRT_TEST_PTX_ARCH compute_80 CACHE STRING
  "virtual architecture of the conformance kernels' PTX image (JIT-compiled by the driver on newer GPUs)")
set(INFINIRT_TEST_CUDA_ARCH 90 CACHE STRING
  "architecture of the conformance kernels' cubin (sm_<arch>) and fatbin (sm_<arch> + compute_<arch>) images")

set(_kernels_ptx "")
set(_kernels_cubin "")
set(_kernels_fatbin "")
if(INFINIRT_NVCC)
  set(_kernels_cu ${CMAKE_CURRENT_LIST_DIR}/kernels.cu)
  set(_kernels_out ${CMAKE_CURRENT_BINARY_DIR}/kernels)
  set(_kernels_ptx ${_kernels_out}/kernels.ptx)
  set(_kernels_cubin ${_kernels_out}/kernels.cubin)
  set(_kernels_fatbin ${_kernels_out}/kernels.fatbin)
  set(_arch ${INFINIRT_TEST_CUDA_ARCH})
  add_custom_command(OUTPUT ${_kernels_ptx}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_kernels_out}
    COMMAND ${INFINIRT_NVCC} -ptx -arch=${INFINIRT_TEST_PTX_ARCH} -o ${_kernels_ptx} ${_kernels_cu}
    DEPENDS ${_kernels_cu}
    COMMENT "nvcc: conformance kernels -> PTX (${INFINIRT_TEST_PTX_ARCH})" VERBATIM)
  add_custom_command(OUTPUT ${_kernels_cubin}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_kernels_out}
    COMMAND ${INFINIRT_NVCC} -cubin -arch=sm_${_arch} -o ${_kernels_cubin} ${_kernels_cu}
    DEPENDS ${_kernels_cu}
    COMMENT "nvcc: conformance kernels -> cubin (sm_${_arch})" VERBATIM)
  add_custom_command(OUTPUT ${_kernels_fatbin}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_kernels_out}
    COMMAND ${INFINIRT_NVCC} -fatbin "-gencode=arch=compute_${_arch},code=[sm_${_arch},compute_${_arch}]"
            -o ${_kernels_fatbin} ${_kernels_cu}
    DEPENDS ${_kernels_cu}
    COMMENT "nvcc: conformance kernels -> fatbin (sm_${_arch} + compute_${_arch})" VERBATIM)
  add_custom_target(infinirt_conformance_kernels_cuda DEPENDS ${_kernels_ptx} ${_kernels_cubin} ${_kernels_fatbin})
  add_dependencies(infinirt_conformance infinirt_conformance_kernels_cuda)
else()
  message(STATUS "nvcc not found: the conformance kernels are not built for cuda (cuda devices fail the kernel tests)")
endif()

include(${PROJECT_SOURCE_DIR}/cmake/InfinirtKernels.cmake)
file(GLOB _kernels_comp CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/vulkan/*.comp)
set(_kernels_spv ${CMAKE_CURRENT_BINARY_DIR}/kernels/kernels.spv)
infinirt_glsl_module(${_kernels_spv} infinirt-pack ${_kernels_comp})
if(INFINIRT_GLSL_MODULE_BUILT)
  add_custom_target(infinirt_conformance_kernels_vulkan DEPENDS ${_kernels_spv})
  add_dependencies(infinirt_conformance infinirt_conformance_kernels_vulkan)
else()
  set(_kernels_spv "")
  message(STATUS "glslc or spirv-link not found: the conformance kernels are not built for vulkan")
endif()

target_compile_definitions(infinirt_conformance PRIVATE
  INFINIRT_TEST_KERNELS_CPU="$<TARGET_FILE:infinirt_conformance_kernels_cpu>"
  INFINIRT_TEST_KERNELS_CL="${CMAKE_CURRENT_LIST_DIR}/kernels.cl"
  INFINIRT_TEST_KERNELS_PTX="${_kernels_ptx}"
  INFINIRT_TEST_KERNELS_CUBIN="${_kernels_cubin}"
  INFINIRT_TEST_KERNELS_FATBIN="${_kernels_fatbin}"
  INFINIRT_TEST_KERNELS_SPV="${_kernels_spv}")
