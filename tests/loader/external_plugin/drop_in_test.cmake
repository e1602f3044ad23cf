# The drop-in proof, run by ctest as `cmake -P`:
#   1. install the infinirt build tree to a fresh prefix;
#   2. build external_plugin/ (a separate project) against that prefix only, and drop its .so
#      into <prefix>/<libdir>/infinirt/;
#   3. build a client with find_package(infinirt) and another with pkg-config; both must list the
#      new backend as LOADED and use it; build a C++ client of infinirt::core with --as-needed (it
#      NEEDs only libinfinicore) and run it with no library path set: libinfinicore's RUNPATH
#      ($ORIGIN) must find libinfinirt;
#   4. move the prefix elsewhere: the installed package and library must still work (relocatable),
#      the infinirt::core client too;
#   5. libinfinirt exports only infinirt* symbols, each plugin only infinirtPluginQuery.
# Inputs (-D): INFINIRT_BUILD_DIR, EXTERNAL_SOURCE_DIR, WORK_DIR, GENERATOR, C_COMPILER,
# CXX_COMPILER, LIBDIR.
cmake_minimum_required(VERSION 3.20)

foreach(var INFINIRT_BUILD_DIR EXTERNAL_SOURCE_DIR WORK_DIR GENERATOR C_COMPILER CXX_COMPILER LIBDIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "drop_in_test.cmake: -D${var}=... is required")
  endif()
endforeach()

include(${CMAKE_CURRENT_LIST_DIR}/../../cmake_run.cmake)

# Runs a built client (with `env` settings) and checks it reports the external backend working.
function(expect_client_works label)
  run(${CMAKE_COMMAND} -E env ${ARGN} OUTPUT_VARIABLE out)
  if(NOT out MATCHES "external backend: OK")
    message(FATAL_ERROR "${label}: the external backend was not usable:\n${out}")
  endif()
  message(STATUS "${label}: OK")
endfunction()

# Builds the find_package client against `prefix` in `build_dir`.
function(build_cmake_client prefix build_dir)
  run(${CMAKE_COMMAND} -S ${EXTERNAL_SOURCE_DIR}/client -B ${build_dir} -G ${GENERATOR}
      -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
  run(${CMAKE_COMMAND} --build ${build_dir})
endfunction()

# Builds the infinirt::core client against `prefix` in `build_dir` and checks what it NEEDs:
# libinfinicore, not libinfinirt (else the test would not show that libinfinicore finds it).
function(build_core_client prefix build_dir)
  run(${CMAKE_COMMAND} -S ${EXTERNAL_SOURCE_DIR}/core_client -B ${build_dir} -G ${GENERATOR}
      -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
  run(${CMAKE_COMMAND} --build ${build_dir})
  run(readelf -d ${build_dir}/core_client OUTPUT_VARIABLE dynamic)
  if(NOT dynamic MATCHES "NEEDED[^\n]*libinfinicore\\.so" OR dynamic MATCHES "NEEDED[^\n]*libinfinirt\\.so")
    message(FATAL_ERROR "the infinirt::core client should NEED libinfinicore and not libinfinirt "
                        "(linked with --as-needed):\n${dynamic}")
  endif()
endfunction()

# Runs the infinirt::core client with LD_LIBRARY_PATH unset.
function(expect_core_client_works label client)
  run(${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${client} OUTPUT_VARIABLE out)
  if(NOT out MATCHES "infinicore client: OK")
    message(FATAL_ERROR "${label}: the infinirt::core client did not work:\n${out}")
  endif()
  message(STATUS "${label}: OK")
endfunction()

# Builds the client with the flags `pkg-config --cflags --libs infinirt` gives for `prefix`.
function(build_pkg_config_client prefix output)
  set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
  run(pkg-config --cflags --libs infinirt OUTPUT_VARIABLE flags)
  string(STRIP "${flags}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run(${C_COMPILER} -std=c99 -o ${output} ${EXTERNAL_SOURCE_DIR}/client/client.c ${flags})
endfunction()

# Every dynamic symbol a file defines, as "name" (version suffixes and version nodes removed).
function(defined_symbols file out_var)
  run(nm -D --defined-only ${file} OUTPUT_VARIABLE listing)
  string(REPLACE "\n" ";" lines "${listing}")
  set(names "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[0-9a-fA-F]* +([A-Za-z]) +([^@ ]+)")
      if(NOT CMAKE_MATCH_1 STREQUAL "A") # version definitions such as INFINIRT_0
        list(APPEND names ${CMAKE_MATCH_2})
      endif()
    endif()
  endforeach()
  set(${out_var} "${names}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
set(moved ${WORK_DIR}/moved-elsewhere/prefix)

# 1. install
run(${CMAKE_COMMAND} --install ${INFINIRT_BUILD_DIR} --prefix ${prefix})

# infinirt_add_plugin links infinirt::headers when it runs outside the infinirt tree.
file(READ ${prefix}/${LIBDIR}/cmake/infinirt/infinirtTargets.cmake exported_targets)
if(NOT exported_targets MATCHES "add_library\\(infinirt::headers ")
  message(FATAL_ERROR "the installed package defines no infinirt::headers target, which infinirt_add_plugin "
                      "links for out-of-tree plugins (infinirt_headers is exported without EXPORT_NAME headers)")
endif()

# 2. the external plugin, built against the installed package only
run(${CMAKE_COMMAND} -S ${EXTERNAL_SOURCE_DIR} -B ${WORK_DIR}/plugin-build -G ${GENERATOR}
    -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/plugin-build)
file(GLOB plugin ${WORK_DIR}/plugin-build/libinfinirt-external.so)
if(NOT plugin)
  message(FATAL_ERROR "the external project did not produce libinfinirt-external.so")
endif()
file(COPY ${plugin} DESTINATION ${prefix}/${LIBDIR}/infinirt)

# 3. clients
build_cmake_client(${prefix} ${WORK_DIR}/client-build)
expect_client_works("find_package client" ${WORK_DIR}/client-build/drop_in_client)
build_pkg_config_client(${prefix} ${WORK_DIR}/pkg-config-client)
expect_client_works("pkg-config client" LD_LIBRARY_PATH=${prefix}/${LIBDIR} ${WORK_DIR}/pkg-config-client)
run(readelf -d ${prefix}/${LIBDIR}/libinfinicore.so OUTPUT_VARIABLE core_dynamic)
if(NOT core_dynamic MATCHES "RUNPATH[^\n]*\\[\\$ORIGIN\\]")
  message(FATAL_ERROR "the installed libinfinicore.so has no RUNPATH [$ORIGIN] to find libinfinirt:\n${core_dynamic}")
endif()
build_core_client(${prefix} ${WORK_DIR}/core-client-build)
expect_core_client_works("infinirt::core client" ${WORK_DIR}/core-client-build/core_client)

# 5. exported symbols
defined_symbols(${prefix}/${LIBDIR}/libinfinirt.so loader_symbols)
if(NOT loader_symbols)
  message(FATAL_ERROR "nm found no symbols in libinfinirt.so")
endif()
foreach(sym IN LISTS loader_symbols)
  if(NOT sym MATCHES "^infinirt" AND NOT sym MATCHES "^(_init|_fini|_edata|_end|__bss_start)$")
    message(FATAL_ERROR "libinfinirt.so exports ${sym}: only infinirt* symbols may be exported")
  endif()
endforeach()
# The plugin folder holds infinirt's plugins (libinfinirt-<name>.so) and infiniccl's
# (libinfiniccl-<name>.so); each exports only its library's query function.
file(GLOB installed_plugins ${prefix}/${LIBDIR}/infinirt/*.so)
foreach(p IN LISTS installed_plugins)
  get_filename_component(plugin_file ${p} NAME)
  if(plugin_file MATCHES "^libinfiniccl-")
    set(query infinicclPluginQuery)
  elseif(plugin_file MATCHES "^libinfinirt-")
    set(query infinirtPluginQuery)
  else()
    message(FATAL_ERROR "${p}: the plugin folder holds only libinfinirt-<name>.so and libinfiniccl-<name>.so")
  endif()
  defined_symbols(${p} plugin_symbols)
  list(REMOVE_ITEM plugin_symbols _init _fini _edata _end __bss_start)
  if(NOT plugin_symbols STREQUAL query)
    message(FATAL_ERROR "${p} exports \"${plugin_symbols}\": a plugin exports only ${query}")
  endif()
endforeach()
list(LENGTH installed_plugins plugin_count)
message(STATUS "exports: libinfinirt.so and ${plugin_count} plugins OK")

# 4. relocation: the old prefix disappears
get_filename_component(moved_parent ${moved} DIRECTORY)
file(MAKE_DIRECTORY ${moved_parent})
file(RENAME ${prefix} ${moved})
expect_client_works("moved prefix, existing client" LD_LIBRARY_PATH=${moved}/${LIBDIR}
                    ${WORK_DIR}/client-build/drop_in_client)
build_cmake_client(${moved} ${WORK_DIR}/client-build-moved)
expect_client_works("moved prefix, find_package client" ${WORK_DIR}/client-build-moved/drop_in_client)
build_pkg_config_client(${moved} ${WORK_DIR}/pkg-config-client-moved)
expect_client_works("moved prefix, pkg-config client" LD_LIBRARY_PATH=${moved}/${LIBDIR}
                    ${WORK_DIR}/pkg-config-client-moved)
build_core_client(${moved} ${WORK_DIR}/core-client-build-moved)
expect_core_client_works("moved prefix, infinirt::core client" ${WORK_DIR}/core-client-build-moved/core_client)
file(REMOVE_RECURSE ${WORK_DIR})
