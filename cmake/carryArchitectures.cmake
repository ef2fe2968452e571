# carry_check_cuda_architectures(<list>): stops at configure time when a listed CUDA architecture is older
# than carry's minimum, sm_80 (cp.async), instead of letting ptxas fail deep inside a kernel.
set(CARRY_MIN_CUDA_ARCH 80)
function(carry_check_cuda_architectures archs)
  set(bad "")
  foreach(a IN LISTS archs)
    string(REGEX REPLACE "-(real|virtual)$" "" n "${a}")
    if(n STREQUAL "all" OR n STREQUAL "all-major")
      list(APPEND bad "${a}")
    elseif(n MATCHES "^[0-9]+[af]?$")
      string(REGEX REPLACE "[af]$" "" n "${n}")
      if(n LESS ${CARRY_MIN_CUDA_ARCH})
        list(APPEND bad "${a}")
      endif()
    endif()
  endforeach()
  if(bad)
    message(FATAL_ERROR
      "carry needs a CUDA architecture of sm_${CARRY_MIN_CUDA_ARCH} or newer (Ampere, Ada, Hopper, Blackwell); "
      "CMAKE_CUDA_ARCHITECTURES is \"${archs}\", which includes ${bad}"
      " (CUDA 13's default is 75). Set it before project() or on the command line, e.g. "
      "-DCMAKE_CUDA_ARCHITECTURES=native (the GPU of this machine), 80 (A100), 89 (L4, RTX 40xx) or 90 (H100).")
  endif()
endfunction()
