// GPU tests: the coarsened three-phase block scan and the block reduction.
#include "tests/common/block_harness.cuh"

using namespace carry_validate;
using A = carry::block_scan_algorithm;

TEST_CASE("coarsened: seed example", "[gpu][block]") {
  check_seed_example<A::coarsened>();
}
TEST_CASE("coarsened: u32 sum, 16 items, all block sizes", "[gpu][block]") {
  check_block_sizes<A::coarsened, 16, std::uint32_t>(carry::sum{}, 7u);
}
TEST_CASE("coarsened: affine composition, 4 items, all block sizes", "[gpu][block]") {
  check_block_sizes<A::coarsened, 4, affine>(compose_affine{}, affine{3, 5});
}
TEST_CASE("coarsened, Kogge-Stone warps: u32 sum and affine composition, all block sizes", "[gpu][block]") {
  constexpr auto ks = carry::warp_scan_shape::kogge_stone;
  check_block_sizes<A::coarsened, 8, std::uint32_t, ks>(carry::sum{}, 7u);
  check_block_sizes<A::coarsened, 1, affine, ks>(compose_affine{}, affine{3, 5});
  check_block_scan<mat2, 65, A::coarsened, 3, false, ks>(mat2_product{}, mat2{{1, 0, 0, 1}}, 65);
}
TEST_CASE("coarsened: 2x2 matrices, u8, f32 max, 1 and 7 items", "[gpu][block]") {
  check_block_scan<mat2, 65, A::coarsened, 3, false>(mat2_product{}, mat2{{1, 0, 0, 1}}, 61);
  check_block_scan<mat2, 256, A::coarsened, 1, true>(mat2_product{}, mat2{{1, 2, 0, 1}}, 62);
  check_block_scan<std::uint8_t, 96, A::coarsened, 64, false>(carry::sum{}, 0, 63);
  check_block_scan<float, 1024, A::coarsened, 7, true>(carry::maximum{}, -1.f, 64);
}

template <class T, int BT, int ITEMS, class Op>
__global__ void __launch_bounds__(BT) block_reduce_kernel(const T* in, T* out, Op op, int live_threads) {
  using reduce_t = carry::block_reduce<T, BT, ITEMS>;
  __shared__ typename reduce_t::temp_storage ts;
  T items[ITEMS];
  for (int j = 0; j < ITEMS; ++j) items[j] = in[threadIdx.x * ITEMS + j];
  T r;
  if (live_threads == BT) {
    r = reduce_t(ts).reduce(items, op);
  } else {
    T v = items[0];
    for (int j = 1; j < ITEMS; ++j) v = op(v, items[j]);
    r = reduce_t(ts).reduce_live(v, op, live_threads);
  }
  if (threadIdx.x == 0) *out = r;
}

template <class T, int BT, int ITEMS, class Op>
void check_block_reduce(Op op, int live_threads, std::uint64_t seed) {
  auto in = random_values<T>(BT * ITEMS, seed);
  std::vector<T> live(in.begin(), in.begin() + live_threads * ITEMS);
  T ref = reference_inclusive(live, op).back();
  device_buffer<T> d_in(in.size()), d_out(1);
  d_in.upload(in);
  d_out.poison();
  block_reduce_kernel<T, BT, ITEMS><<<1, BT>>>(d_in.ptr, d_out.ptr, op, live_threads);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  INFO(BT << " threads x " << ITEMS << " items, " << live_threads << " live");
  CHECK(same_bits(d_out.download(1)[0], ref));
}

TEST_CASE("block_reduce: in order, all block sizes, partial blocks", "[gpu][block]") {
  check_block_reduce<affine, 32, 4>(compose_affine{}, 32, 71);
  check_block_reduce<affine, 65, 4>(compose_affine{}, 65, 72);
  check_block_reduce<affine, 65, 4>(compose_affine{}, 33, 73);
  check_block_reduce<affine, 128, 3>(compose_affine{}, 128, 74);
  check_block_reduce<affine, 256, 8>(compose_affine{}, 1, 75);
  check_block_reduce<affine, 256, 8>(compose_affine{}, 200, 76);
  check_block_reduce<affine, 512, 1>(compose_affine{}, 512, 77);
  check_block_reduce<affine, 1024, 2>(compose_affine{}, 1024, 78);
  check_block_reduce<affine, 1024, 2>(compose_affine{}, 999, 79);
  check_block_reduce<std::uint32_t, 1024, 16>(carry::sum{}, 1024, 80);
  check_block_reduce<float, 65, 1>(carry::maximum{}, 65, 81);
}
