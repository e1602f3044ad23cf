# infinirt-pack's list output and refusals (ctest modfile.pack). Inputs: PACK, MODULE (the file
# infinirt_add_kernels built), CPU_SO, CL, WORK (a scratch folder).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(run expect_rc out_var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "${ARGN}: exit ${rc}, wanted ${expect_rc}\nstdout: ${out}\nstderr: ${err}")
  endif()
  set(${out_var} "${out}${err}" PARENT_SCOPE)
endfunction()

function(expect text regex)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "wanted /${regex}/ in:\n${text}")
  endif()
endfunction()

# The file the build packed: the OpenCL entry with its options, the cpu .so with its machine.
run(0 out ${PACK} list ${MODULE})
expect("${out}" "infinirt module file 1\\.0, [0-9]+ entries, [0-9]+ bytes")
expect("${out}" "\n +0  opencl +OPENCL_C +any +[0-9]+  -DSCALE=2\\.0f +scale\\.cl\n")
expect("${out}" "\n +1  cpu +HOST_SO +(x86_64|aarch64|[a-z0-9_]+) +[0-9]+  - +libinfinirt_test_modfile_cpu\\.so\n")

# Explicit fields override the extension; they apply to the next file only.
run(0 out ${PACK} -o ${WORK}/two.irtm --backend mydev --format spirv --arch gen9 --options "-O3" ${CL} ${CPU_SO})
run(0 out ${PACK} list ${WORK}/two.irtm)
expect("${out}" "2 entries")
expect("${out}" "\n +0  mydev +SPIRV +gen9 +[0-9]+  -O3 +scale\\.cl\n")
expect("${out}" "\n +1  cpu +HOST_SO ")

# Refusals, each with a message.
run(2 out ${PACK} -o ${WORK}/x.irtm)
expect("${out}" "no input files")
run(2 out ${PACK} ${CL})
expect("${out}" "no -o OUT")
file(WRITE ${WORK}/blob.bin "data")
run(2 out ${PACK} -o ${WORK}/x.irtm ${WORK}/blob.bin)
expect("${out}" "give --backend and --format")
run(2 out ${PACK} -o ${WORK}/x.irtm --format nosuch ${CL})
expect("${out}" "is no format")
run(2 out ${PACK} -o ${WORK}/x.irtm --backend opencl --format DEVICE_BINARY ${WORK}/blob.bin)
expect("${out}" "DEVICE_BINARY needs --arch")
run(1 out ${PACK} -o ${WORK}/x.irtm ${WORK}/missing.cl)
expect("${out}" "cannot read")
run(1 out ${PACK} list ${CL})
expect("${out}" "not an infinirt module file")
# A truncated file: the first 100 bytes.
execute_process(COMMAND head -c 100 ${WORK}/two.irtm OUTPUT_FILE ${WORK}/cut.irtm)
run(1 out ${PACK} list ${WORK}/cut.irtm)
expect("${out}" "truncated: the header says [0-9]+ bytes, the file has 100")
if(EXISTS ${WORK}/x.irtm)
  message(FATAL_ERROR "a refused pack left ${WORK}/x.irtm behind")
endif()
