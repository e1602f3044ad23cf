# The README's C program, as a newcomer uses it (issue 49), run by ctest as `cmake -P`:
#   1. extract the program (the first ```c block after the line "<!-- test: hello.c -->") and the
#      CMake project (the first ```cmake block after "<!-- test: CMakeLists.txt -->") from README.md;
#   2. install the build tree to a fresh prefix (cmake --install, as the README says);
#   3. build the program with `pkg-config --cflags --libs infinirt` (C99, -Wall -Wextra -Werror)
#      and with the README's CMake project (find_package), against that prefix only;
#   4. run both: each must name its device ("running on <type>:<id> (<name>)") and pass its round
#      trip, and exit 0.
# Inputs (-D): INFINIRT_BUILD_DIR, README, WORK_DIR, GENERATOR, C_COMPILER, LIBDIR.
cmake_minimum_required(VERSION 3.20)

foreach(var INFINIRT_BUILD_DIR README WORK_DIR GENERATOR C_COMPILER LIBDIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "readme_c_test.cmake: -D${var}=... is required")
  endif()
endforeach()
find_program(PKG_CONFIG pkg-config REQUIRED)

include(${CMAKE_CURRENT_LIST_DIR}/../cmake_run.cmake)

# The text of the first ```<lang> block after the line `marker` in README.md.
function(readme_block out_var marker lang)
  file(READ ${README} text)
  string(FIND "${text}" "${marker}\n" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "README.md has no line \"${marker}\" (it marks the block this test builds)")
  endif()
  string(SUBSTRING "${text}" ${at} -1 text)
  string(FIND "${text}" "\n```${lang}\n" open)
  if(open EQUAL -1)
    message(FATAL_ERROR "README.md: no ```${lang} block after \"${marker}\"")
  endif()
  math(EXPR open "${open} + 5")
  string(LENGTH "${lang}" lang_length)
  math(EXPR open "${open} + ${lang_length}")
  string(SUBSTRING "${text}" ${open} -1 text)
  string(FIND "${text}" "\n```" close)
  if(close EQUAL -1)
    message(FATAL_ERROR "README.md: the ```${lang} block after \"${marker}\" is not closed")
  endif()
  math(EXPR close "${close} + 1")
  string(SUBSTRING "${text}" 0 ${close} text)
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# Runs a built program and checks its output.
function(expect_program_works label program)
  run(${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH --unset=INFINIRT_PLUGINS ${program} OUTPUT_VARIABLE out)
  if(NOT out MATCHES "running on [a-z]+:[0-9]+ \\([^)\n]+\\)" OR NOT out MATCHES "round trip OK")
    message(FATAL_ERROR "${label}: the README's program did not work:\n${out}")
  endif()
  message(STATUS "${label}: ${out}")
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/hello)
readme_block(program "<!-- test: hello.c -->" c)
readme_block(project "<!-- test: CMakeLists.txt -->" cmake)
file(WRITE ${WORK_DIR}/hello/hello.c "${program}")
file(WRITE ${WORK_DIR}/hello/CMakeLists.txt "${project}")

set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${INFINIRT_BUILD_DIR} --prefix ${prefix})

# pkg-config, as the README's line: cc hello.c -o hello $(pkg-config --cflags --libs infinirt) -Wl,-rpath,...
run(${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${prefix}/${LIBDIR}/pkgconfig ${PKG_CONFIG} --cflags --libs infinirt
    OUTPUT_VARIABLE flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${C_COMPILER} -std=c99 -Wall -Wextra -Werror ${WORK_DIR}/hello/hello.c -o ${WORK_DIR}/hello-pkg-config ${flags}
    -Wl,-rpath,${prefix}/${LIBDIR})
expect_program_works("pkg-config build" ${WORK_DIR}/hello-pkg-config)

# CMake, as the README's lines: cmake -S . -B build -DCMAKE_PREFIX_PATH=...; cmake --build build
run(${CMAKE_COMMAND} -S ${WORK_DIR}/hello -B ${WORK_DIR}/hello/build -G ${GENERATOR}
    -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_PREFIX_PATH=${prefix} "-DCMAKE_C_FLAGS=-Wall -Wextra -Werror")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/hello/build)
expect_program_works("find_package build" ${WORK_DIR}/hello/build/hello)
file(REMOVE_RECURSE ${WORK_DIR})
