// The radix sort's digit passes, the one header other modules include for them: a onesweep pass
// (launch_onesweep_pass: the look-back pass over a digit, counts given; bin_by_key's one pass up to 256
// bins) and a three-kernel pass (three_kernel_pass: upsweep, the engine's scan, downsweep; bin_by_key past
// 256 bins). Both take any digit functor (Digit::bin_of(key) in [0, 256)).
#pragma once

#include "onesweep_launch.cuh"
#include "three_kernel.cuh"
