// carry::dist, the distributed layer over NCCL: the communicator and local_group, scans, compactions and
// histograms and the sort over the shards of every rank (needs NCCL: #include <nccl.h>, link -lnccl).
#pragma once

#include "distributed/communicator.hpp"
#include "distributed/histogram.cuh"
#include "distributed/rebalance.cuh"
#include "distributed/scan.cuh"
#include "distributed/select.cuh"
#include "distributed/sort.cuh"
