# CTest driver of the consumer project: installs carry from the build tree, then configures and builds a
# fresh project (validate/tests/consumer) through find_package and through add_subdirectory.
#  1. With no architecture set (a fresh project: CUDA 13 defaults to sm_75): where the compiler's default is
#     below sm_80, configuring must stop with carry's message naming the minimum (never later, in ptxas).
#  2. With CUDA_ARCHS: both ways build, warning-free (-Wall -Wextra -Werror in both passes; nvcc's own
#     warnings fail the check too), the README's C++ blocks included.
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}\n${out}\n${err}")
  endif()
  if("${out}${err}" MATCHES "[Ww]arning")
    message(FATAL_ERROR "warnings in: ${ARGV}\n${out}\n${err}")
  endif()
endfunction()
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
set(src ${CARRY_SOURCE_DIR}/validate/tests/consumer)
set(readme -DREADME_MD=${CARRY_SOURCE_DIR}/README.md -DCARRY_CMAKE_DIR=${CARRY_SOURCE_DIR}/cmake)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${CARRY_BUILD_DIR} --prefix ${prefix} RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed")
endif()

# 1. the fresh project, no architecture named
foreach(way find_package subdirectory)
  if(way STREQUAL "find_package")
    set(args -DCMAKE_PREFIX_PATH=${prefix})
  else()
    set(args -DUSE_SUBDIRECTORY=ON -DCARRY_SOURCE_DIR=${CARRY_SOURCE_DIR})
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${src} -B ${WORK_DIR}/default-${way} -G ${GENERATOR} ${args} ${readme}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  file(STRINGS ${WORK_DIR}/default-${way}/CMakeCache.txt arch REGEX "^CMAKE_CUDA_ARCHITECTURES:")
  string(REGEX REPLACE "^[^=]*=" "" arch "${arch}")
  if(arch MATCHES "^[0-9]+" AND arch LESS 80)
    if(rc EQUAL 0 OR NOT err MATCHES "carry needs a CUDA architecture of sm_80")
      message(FATAL_ERROR "${way}, default architecture ${arch}: configure should stop naming sm_80\n${out}\n${err}")
    endif()
    message(STATUS "${way}, default architecture ${arch}: stopped at configure time, naming sm_80")
  elseif(NOT rc EQUAL 0)
    message(FATAL_ERROR "${way}, default architecture ${arch}: configure failed\n${out}\n${err}")
  else()
    run(${CMAKE_COMMAND} --build ${WORK_DIR}/default-${way})
    message(STATUS "${way}, default architecture ${arch}: built")
  endif()
  # 2. the architecture named
  run(${CMAKE_COMMAND} -S ${src} -B ${WORK_DIR}/${way} -G ${GENERATOR} ${args} ${readme}
      -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHS})
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/${way})
  message(STATUS "${way}, architecture ${CUDA_ARCHS}: built warning-free, README blocks included")
endforeach()
