# infinirt_add_kernels(<name> SOURCES <file>... [OUTPUT <path>]
#                      [CUDA_ARCHITECTURES <sm>...] [OPENCL_OPTIONS <options>])
#
# Builds the kernel images this machine can build from SOURCES and packs them with infinirt-pack
# into one module file (docs/module-file.md), by default ${CMAKE_CURRENT_BINARY_DIR}/<name>.irtm:
#   .c         -> one cpu shared object (lib<name>_cpu.so, the C compiler), always;
#   .cl, .spv  -> packed as they are (OpenCL C source, SPIR-V) with OPENCL_OPTIONS as build options
#                 (a .spv of the Vulkan flavour is filed under vulkan, one of OpenCL's under opencl);
#   .comp      -> GLSL compute shaders, one kernel each, named after the file: compiled by glslc
#                 (--target-env=vulkan1.2 -O), each entry point renamed from "main" to the file's
#                 name (infinirt-pack entry) and linked into one Vulkan SPIR-V module by spirv-link,
#                 when both are found (INFINIRT_GLSLC, INFINIRT_SPIRV_LINK; Debian's glslc and
#                 spirv-tools); otherwise a status message says the file has no vulkan image;
#   .cu        -> PTX (compute_<lowest architecture>) and a cubin per architecture, when nvcc is
#                 found (INFINIRT_NVCC); otherwise a status message says the file has no cuda image.
# CUDA_ARCHITECTURES defaults to INFINIRT_KERNELS_CUDA_ARCHITECTURES if set, else the build
# machine's first GPU (nvidia-smi), else 90. Creates the custom target <name> (built by ALL) whose
# property INFINIRT_MODULE_FILE holds the file's path. Usable in the infinirt tree and, through
# find_package(infinirt), by other projects (the project must enable C for .c sources).
include_guard(GLOBAL)

# infinirt_glsl_module(<out.spv> <pack> <source.comp>...): the custom commands that build <out.spv>,
# one Vulkan SPIR-V module holding one kernel per source, each named after its file (see above).
# Sets INFINIRT_GLSL_MODULE_BUILT in the caller's scope to TRUE when glslc and spirv-link were
# found (and the commands added), FALSE otherwise.
function(infinirt_glsl_module out pack)
  find_program(INFINIRT_GLSLC glslc DOC "glslc, to compile GLSL kernels for vulkan")
  find_program(INFINIRT_SPIRV_LINK spirv-link DOC "spirv-link, to link GLSL kernels into one vulkan module")
  if(NOT INFINIRT_GLSLC OR NOT INFINIRT_SPIRV_LINK)
    set(INFINIRT_GLSL_MODULE_BUILT FALSE PARENT_SCOPE)
    return()
  endif()
  get_filename_component(dir "${out}" DIRECTORY)
  set(named "")
  foreach(src IN LISTS ARGN)
    get_filename_component(stem "${src}" NAME_WE)
    set(spv ${dir}/${stem}.main.spv)
    add_custom_command(OUTPUT ${dir}/${stem}.spv
      COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
      COMMAND ${INFINIRT_GLSLC} --target-env=vulkan1.2 -O -o ${spv} ${src}
      COMMAND ${pack} entry ${stem} ${spv} -o ${dir}/${stem}.spv
      DEPENDS ${src} ${pack}
      COMMENT "glslc: ${stem}.comp -> Vulkan SPIR-V (entry point ${stem})" VERBATIM)
    list(APPEND named ${dir}/${stem}.spv)
  endforeach()
  add_custom_command(OUTPUT ${out}
    COMMAND ${INFINIRT_SPIRV_LINK} --target-env vulkan1.2 -o ${out} ${named}
    DEPENDS ${named}
    COMMENT "spirv-link: ${out}" VERBATIM)
  set(INFINIRT_GLSL_MODULE_BUILT TRUE PARENT_SCOPE)
endfunction()

function(infinirt_add_kernels name)
  cmake_parse_arguments(ARG "" "OUTPUT;OPENCL_OPTIONS" "SOURCES;CUDA_ARCHITECTURES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "infinirt_add_kernels(${name}): no SOURCES")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "infinirt_add_kernels(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${name}.irtm)
  if(ARG_OUTPUT)
    get_filename_component(out "${ARG_OUTPUT}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${name}_kernels)

  # The packer: the in-tree target, else the installed one.
  if(TARGET infinirt-pack)
    set(pack infinirt-pack)
  elseif(TARGET infinirt::infinirt-pack)
    set(pack infinirt::infinirt-pack)
  else()
    message(FATAL_ERROR "infinirt_add_kernels(${name}): no infinirt-pack target (find_package(infinirt) first)")
  endif()
  if(TARGET infinirt_headers)
    set(headers infinirt_headers)
  else()
    set(headers infinirt::headers)
  endif()

  set(c_sources "")
  set(cu_sources "")
  set(comp_sources "")
  set(pack_args "")
  set(depends "")
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(src "${src}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    get_filename_component(ext "${src}" LAST_EXT)
    if(ext STREQUAL ".c")
      list(APPEND c_sources ${src})
    elseif(ext STREQUAL ".cu")
      list(APPEND cu_sources ${src})
    elseif(ext STREQUAL ".comp")
      list(APPEND comp_sources ${src})
    elseif(ext STREQUAL ".cl" OR ext STREQUAL ".spv")
      if(DEFINED ARG_OPENCL_OPTIONS AND NOT ARG_OPENCL_OPTIONS STREQUAL "")
        list(APPEND pack_args --options "${ARG_OPENCL_OPTIONS}")
      endif()
      list(APPEND pack_args ${src})
      list(APPEND depends ${src})
    else()
      message(FATAL_ERROR "infinirt_add_kernels(${name}): ${src}: not a .c, .cl, .spv, .comp or .cu file")
    endif()
  endforeach()

  if(c_sources)
    add_library(${name}_cpu MODULE ${c_sources})
    target_link_libraries(${name}_cpu PRIVATE ${headers})
    target_compile_options(${name}_cpu PRIVATE -O2)
    set_target_properties(${name}_cpu PROPERTIES
      PREFIX "lib"
      SUFFIX ".so"
      OUTPUT_NAME ${name}_cpu
      C_VISIBILITY_PRESET default  # the kernels are the exports, whatever the project's preset
      LIBRARY_OUTPUT_DIRECTORY ${dir})
    list(APPEND pack_args $<TARGET_FILE:${name}_cpu>)
    list(APPEND depends ${name}_cpu)
  endif()

  if(cu_sources)
    find_program(INFINIRT_NVCC nvcc PATHS /usr/local/cuda/bin DOC "nvcc, to build kernels for cuda")
    if(INFINIRT_NVCC)
      set(archs ${ARG_CUDA_ARCHITECTURES})
      if(NOT archs AND DEFINED INFINIRT_KERNELS_CUDA_ARCHITECTURES)
        set(archs ${INFINIRT_KERNELS_CUDA_ARCHITECTURES})
      endif()
      if(NOT archs)
        execute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader
                        OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
        if(rc EQUAL 0 AND caps MATCHES "^([0-9]+)\\.([0-9]+)")
          set(archs "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
        else()
          set(archs 90)
        endif()
      endif()
      list(SORT archs COMPARE NATURAL)
      list(GET archs 0 lowest)
      foreach(cu IN LISTS cu_sources)
        get_filename_component(stem "${cu}" NAME_WE)
        set(ptx ${dir}/${stem}.ptx)
        add_custom_command(OUTPUT ${ptx}
          COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
          COMMAND ${INFINIRT_NVCC} -ptx -arch=compute_${lowest} -o ${ptx} ${cu}
          DEPENDS ${cu}
          COMMENT "nvcc: ${stem}.cu -> PTX (compute_${lowest})" VERBATIM)
        list(APPEND pack_args ${ptx})
        list(APPEND depends ${ptx})
        foreach(arch IN LISTS archs)
          set(cubin ${dir}/${stem}.sm_${arch}.cubin)
          add_custom_command(OUTPUT ${cubin}
            COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
            COMMAND ${INFINIRT_NVCC} -cubin -arch=sm_${arch} -o ${cubin} ${cu}
            DEPENDS ${cu}
            COMMENT "nvcc: ${stem}.cu -> cubin (sm_${arch})" VERBATIM)
          list(APPEND pack_args ${cubin})
          list(APPEND depends ${cubin})
        endforeach()
      endforeach()
    else()
      message(STATUS "infinirt_add_kernels(${name}): nvcc not found: ${name}.irtm has no cuda image")
    endif()
  endif()

  if(comp_sources)
    infinirt_glsl_module(${dir}/${name}_vulkan.spv ${pack} ${comp_sources})
    if(INFINIRT_GLSL_MODULE_BUILT)
      list(APPEND pack_args ${dir}/${name}_vulkan.spv)
      list(APPEND depends ${dir}/${name}_vulkan.spv)
    else()
      message(STATUS "infinirt_add_kernels(${name}): glslc or spirv-link not found: ${name}.irtm has no vulkan image")
    endif()
  endif()

  add_custom_command(OUTPUT ${out}
    COMMAND ${pack} -o ${out} ${pack_args}
    DEPENDS ${depends} ${pack}
    COMMENT "infinirt-pack: ${name}.irtm" VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${out})
  set_target_properties(${name} PROPERTIES INFINIRT_MODULE_FILE ${out})
endfunction()
