# CTest driver: install carry from the build tree, then configure and build the consumer both ways.
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}\n${out}\n${err}")
  endif()
endfunction()
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${CARRY_BUILD_DIR} --prefix ${prefix})
run(${CMAKE_COMMAND} -S ${CARRY_SOURCE_DIR}/validate/consumer -B ${WORK_DIR}/via-find-package -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHS})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/via-find-package)
run(${CMAKE_COMMAND} -S ${CARRY_SOURCE_DIR}/validate/consumer -B ${WORK_DIR}/via-subdirectory -G ${GENERATOR}
    -DUSE_SUBDIRECTORY=ON -DCARRY_SOURCE_DIR=${CARRY_SOURCE_DIR} -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHS})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/via-subdirectory)
message(STATUS "consumer built through find_package and add_subdirectory")
