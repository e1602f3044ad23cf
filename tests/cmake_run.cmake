# run(<command>... [OUTPUT_VARIABLE <var>]): runs a command from a `cmake -P` test script; stops
# the test with the command and its output if it fails. The output comes back stripped.
# Included by tests/loader/external_plugin/drop_in_test.cmake and tests/install/pkg_config_test.cmake.
function(run)
  cmake_parse_arguments(ARG "" "OUTPUT_VARIABLE" "" ${ARGN})
  execute_process(COMMAND ${ARG_UNPARSED_ARGUMENTS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " shown "${ARG_UNPARSED_ARGUMENTS}")
    message(FATAL_ERROR "command failed (${rc}): ${shown}\n--- stdout\n${out}\n--- stderr\n${err}")
  endif()
  if(ARG_OUTPUT_VARIABLE)
    string(STRIP "${out}" out)
    set(${ARG_OUTPUT_VARIABLE} "${out}" PARENT_SCOPE)
  endif()
endfunction()
