// `carry dist` in a build without NCCL: says so.
#include <cstdio>

#include "tool.hpp"

int carry_tool::dist_main(int, char**) {
  std::printf(
      "carry dist: this carry was built without NCCL (set NCCL_ROOT and reconfigure): no distributed calls\n");
  return 2;
}
