// GPU tests: compactions over iterator inputs (counting, transform, a user's iterator) and flags of every
// type and width, every pass, against the CPU reference and CUB; partition_flagged.
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "tests/common/compact_harness.cuh"

using namespace carry_validate;

namespace {

constexpr std::int64_t tile_u32 = carry::compact_tuning::policy<std::uint32_t>::tile_items;

std::vector<std::int64_t> iterator_sizes() {
  return capped_sizes(
      {1, 31, tile_u32 - 1, tile_u32, tile_u32 + 1, 5 * tile_u32 + 17, 300007, 1000003, (1 << 21) + 5});
}

/// The flag of item i: non-zero (of varied values, none of them 1 alone) for about `percent` % of items.
template <class F>
F flag_of(std::int64_t i, int percent) {
  const std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u;
  if ((h >> 8) % 100 >= static_cast<std::uint32_t>(percent)) return F(0);
  if constexpr (std::is_same<F, bool>::value)
    return true;
  else
    return static_cast<F>(1 + (h >> 24) % 100);
}

/// Items of a counting iterator selected by flags of F (a pointer into device memory, `shift` elements
/// past 16-byte alignment), as select_flagged and as partition_flagged, in every mode: against the CPU
/// reference and (select) CUB's DeviceSelect::Flagged on the same iterator and flags.
template <class F>
void counting_flagged(std::int64_t n, int percent, int shift) {
  using S =
      std::conditional_t<std::is_same<F, bool>::value, unsigned char, F>; // bool flags as bytes host-side
  std::vector<S> flags(static_cast<std::size_t>(n + shift));
  std::vector<std::uint32_t> selected, rejected;
  for (std::int64_t i = 0; i < n; ++i) {
    flags[static_cast<std::size_t>(i + shift)] = static_cast<S>(flag_of<F>(i, percent));
    (flags[static_cast<std::size_t>(i + shift)] != S(0) ? selected : rejected)
        .push_back(static_cast<std::uint32_t>(i));
  }
  device_buffer<S> d_flags(flags.size());
  d_flags.upload(flags);
  const F* f = reinterpret_cast<const F*>(d_flags.ptr + shift);
  const thrust::counting_iterator<std::uint32_t> first(0);
  device_buffer<std::uint32_t> d_out(static_cast<std::size_t>(n), 16), d_cub(static_cast<std::size_t>(n));
  device_buffer<std::int64_t> d_num(1), d_cub_num(1);
  // ---- CUB ----
  std::size_t bytes = 0;
  REQUIRE(cub::DeviceSelect::Flagged(nullptr, bytes, first, f, d_cub.ptr, d_cub_num.ptr, n) == cudaSuccess);
  device_buffer<unsigned char> cub_temp(bytes);
  REQUIRE(cub::DeviceSelect::Flagged(cub_temp.ptr, bytes, first, f, d_cub.ptr, d_cub_num.ptr, n) ==
          cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(d_cub_num.download(1)[0] == static_cast<std::int64_t>(selected.size()));
  REQUIRE(d_cub.download(selected.size()) == selected);
  // ---- carry, every mode, select and partition ----
  for (int m = 0; m < 3; ++m) {
    INFO(compact_mode_name(m));
    for (bool partition : {false, true}) {
      INFO((partition ? "partition_flagged" : "select_flagged"));
      auto call = [&](void* t, std::size_t& b) {
        return partition ? carry::partition_flagged(t, b, first, f, d_out.ptr, d_num.ptr, n, compact_modes[m])
                         : carry::select_flagged(t, b, first, f, d_out.ptr, d_num.ptr, n, compact_modes[m]);
      };
      d_out.poison();
      d_num.poison();
      run_two_phase(call);
      REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(selected.size()));
      auto expected = selected;
      if (partition) expected.insert(expected.end(), rejected.begin(), rejected.end());
      const auto got = d_out.download(static_cast<std::size_t>(n));
      REQUIRE(std::equal(expected.begin(), expected.end(), got.begin()));
      for (std::size_t i = expected.size(); i < got.size(); ++i) REQUIRE(got[i] == 0xA5A5A5A5u); // untouched
      REQUIRE(d_out.guard_intact());
    }
  }
}

/// A user's random-access iterator: the items 3 * i + 1 of a device array, read by index.
struct strided_reader {
  using value_type = std::uint64_t;
  using difference_type = std::ptrdiff_t;
  using pointer = const std::uint64_t*;
  using reference = std::uint64_t;
  using iterator_category = std::random_access_iterator_tag;
  const std::uint64_t* base;
  std::int64_t offset;
  __host__ __device__ std::uint64_t operator[](std::int64_t i) const { return base[3 * (offset + i) + 1]; }
  __host__ __device__ strided_reader operator+(std::int64_t k) const { return {base, offset + k}; }
};

struct low_bit_set {
  __host__ __device__ bool operator()(std::uint64_t x) const { return (x >> 3) & 1u; }
};

/// Flags read through a transform: u32 values of a counting iterator turned into bool (i % 5 < 2).
struct fifths {
  __host__ __device__ bool operator()(std::uint32_t i) const { return i % 5 < 2; }
};

} // namespace

TEST_CASE(
    "select_flagged / partition_flagged over a counting iterator: every flag type, aligned or not, 1-99 %",
    "[select][partition][iterator]") {
  for (std::int64_t n : iterator_sizes()) {
    for (int percent : {1, 50, 99}) {
      INFO("n = " << n << ", " << percent << " %");
      counting_flagged<std::uint8_t>(n, percent, 0);
      counting_flagged<bool>(n, percent, 0);
      counting_flagged<std::uint16_t>(n, percent, 0);
      counting_flagged<std::uint32_t>(n, percent, 0);
      counting_flagged<int>(n, percent, 0);
      counting_flagged<std::int64_t>(n, percent, 0);
      counting_flagged<std::uint32_t>(n, percent, 1); // no 16-byte chunks: element loads
      if (sanitize_mode()) break;
    }
  }
  if (sanitize_mode()) return;
  // 32 MB of flags and more: the stable partition keeps its selection bits for the scatter
  const std::int64_t big = (std::int64_t{1} << 23) + 5;
  static_assert(carry::compact_tuning::index_stored_bits_from_flag_bytes <= (std::int64_t{1} << 25),
                "test sizes");
  INFO("n = " << big);
  counting_flagged<std::uint32_t>(big, 50, 0);
  counting_flagged<int>(big, 1, 1);
  counting_flagged<std::int64_t>(big, 99, 0);
}

TEST_CASE("select_flagged: pointer items with wide flags, and flags through a transform_iterator",
          "[select][iterator]") {
  for (std::int64_t n : iterator_sizes()) {
    INFO("n = " << n);
    const auto in = uniform_values<std::uint32_t>(static_cast<std::size_t>(n), 5);
    std::vector<std::uint32_t> expected_wide, expected_fifths;
    std::vector<std::uint32_t> wide(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      wide[static_cast<std::size_t>(i)] = flag_of<std::uint32_t>(i, 50) << 20;
      if (wide[static_cast<std::size_t>(i)]) expected_wide.push_back(in[static_cast<std::size_t>(i)]);
      if (fifths{}(static_cast<std::uint32_t>(i))) expected_fifths.push_back(in[static_cast<std::size_t>(i)]);
    }
    device_buffer<std::uint32_t> d_in(static_cast<std::size_t>(n)), d_flags(static_cast<std::size_t>(n));
    d_in.upload(in);
    d_flags.upload(wide);
    const auto through =
        thrust::make_transform_iterator(thrust::counting_iterator<std::uint32_t>(0), fifths{});
    for (int m = 0; m < 3; ++m) {
      INFO(compact_mode_name(m));
      for (bool in_place : {false, true}) {
        INFO((in_place ? "in place" : "apart"));
        for (int which = 0; which < 2; ++which) {
          device_buffer<std::uint32_t> d_data(static_cast<std::size_t>(n), 16);
          device_buffer<std::int64_t> d_num(1);
          d_data.poison();
          if (in_place) d_data.upload(in);
          const std::uint32_t* items = in_place ? d_data.ptr : d_in.ptr;
          auto call = [&](void* t, std::size_t& b) {
            return which == 0 ? carry::select_flagged(t, b, items, d_flags.ptr, d_data.ptr, d_num.ptr, n,
                                                      compact_modes[m])
                              : carry::select_flagged(t, b, items, through, d_data.ptr, d_num.ptr, n,
                                                      compact_modes[m]);
          };
          run_two_phase(call);
          const auto& expected = which == 0 ? expected_wide : expected_fifths;
          REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(expected.size()));
          REQUIRE(d_data.download(expected.size()) == expected);
        }
      }
    }
  }
}

TEST_CASE("select_if / partition over a user's random-access iterator of u64",
          "[select][partition][iterator]") {
  for (std::int64_t n : iterator_sizes()) {
    INFO("n = " << n);
    const auto backing = uniform_values<std::uint64_t>(static_cast<std::size_t>(3 * n + 1), 9);
    device_buffer<std::uint64_t> d_backing(backing.size());
    d_backing.upload(backing);
    const strided_reader first{d_backing.ptr, 0};
    std::vector<std::uint64_t> selected, rejected;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::uint64_t x = backing[static_cast<std::size_t>(3 * i + 1)];
      (low_bit_set{}(x) ? selected : rejected).push_back(x);
    }
    for (int m = 0; m < 3; ++m) {
      INFO(compact_mode_name(m));
      for (bool partition : {false, true}) {
        device_buffer<std::uint64_t> d_out(static_cast<std::size_t>(n), 16);
        device_buffer<std::int64_t> d_num(1);
        d_out.poison();
        auto call = [&](void* t, std::size_t& b) {
          return partition
                     ? carry::partition(t, b, first, d_out.ptr, d_num.ptr, n, low_bit_set{}, compact_modes[m])
                     : carry::select_if(t, b, first, d_out.ptr, d_num.ptr, n, low_bit_set{},
                                        compact_modes[m]);
        };
        run_two_phase(call);
        auto expected = selected;
        if (partition) expected.insert(expected.end(), rejected.begin(), rejected.end());
        REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(selected.size()));
        REQUIRE(d_out.download(expected.size()) == expected);
        REQUIRE(d_out.guard_intact());
      }
    }
  }
}

TEST_CASE("partition_flagged: u32 items with u8 and u32 flags; bad arguments write nothing", "[partition]") {
  for (std::int64_t n : iterator_sizes()) {
    INFO("n = " << n);
    const auto in = uniform_values<std::uint32_t>(static_cast<std::size_t>(n), 77);
    std::vector<std::uint8_t> f8(static_cast<std::size_t>(n));
    std::vector<std::uint32_t> f32(static_cast<std::size_t>(n)), expected;
    for (std::int64_t i = 0; i < n; ++i) {
      f8[static_cast<std::size_t>(i)] = flag_of<std::uint8_t>(i, 30);
      f32[static_cast<std::size_t>(i)] = f8[static_cast<std::size_t>(i)];
    }
    std::int64_t num = 0;
    for (int pass = 0; pass < 2; ++pass)
      for (std::int64_t i = 0; i < n; ++i)
        if ((f8[static_cast<std::size_t>(i)] != 0) == (pass == 0))
          expected.push_back(in[static_cast<std::size_t>(i)]);
    for (std::int64_t i = 0; i < n; ++i) num += f8[static_cast<std::size_t>(i)] != 0;
    device_buffer<std::uint32_t> d_in(static_cast<std::size_t>(n)), d_f32(static_cast<std::size_t>(n));
    device_buffer<std::uint8_t> d_f8(static_cast<std::size_t>(n));
    d_in.upload(in);
    d_f8.upload(f8);
    d_f32.upload(f32);
    for (int m = 0; m < 3; ++m) {
      for (int wide = 0; wide < 2; ++wide) {
        device_buffer<std::uint32_t> d_out(static_cast<std::size_t>(n), 16);
        device_buffer<int> d_num(1);
        d_out.poison();
        auto call = [&](void* t, std::size_t& b) {
          return wide ? carry::partition_flagged(t, b, d_in.ptr, d_f32.ptr, d_out.ptr, d_num.ptr, n,
                                                 compact_modes[m])
                      : carry::partition_flagged(t, b, d_in.ptr, d_f8.ptr, d_out.ptr, d_num.ptr, n,
                                                 compact_modes[m]);
        };
        run_two_phase(call);
        REQUIRE(d_num.download(1)[0] == num);
        REQUIRE(d_out.download(static_cast<std::size_t>(n)) == expected);
        REQUIRE(d_out.guard_intact());
      }
    }
    { // u64 items (the staged tile's 16 items a thread: a thread's bits are half a stored word), u8 flags
      std::vector<std::uint64_t> in64(static_cast<std::size_t>(n)), expected64;
      for (std::size_t i = 0; i < in64.size(); ++i) in64[i] = (std::uint64_t{in[i]} << 32) | i;
      for (int pass = 0; pass < 2; ++pass)
        for (std::size_t i = 0; i < in64.size(); ++i)
          if ((f8[i] != 0) == (pass == 0)) expected64.push_back(in64[i]);
      device_buffer<std::uint64_t> d_in64(in64.size()), d_out64(in64.size(), 16);
      d_in64.upload(in64);
      device_buffer<int> d_num(1);
      for (int m = 0; m < 3; ++m) {
        INFO("u64 items, " << compact_mode_name(m));
        d_out64.poison();
        run_two_phase([&](void* t, std::size_t& b) {
          return carry::partition_flagged(t, b, d_in64.ptr, d_f8.ptr, d_out64.ptr, d_num.ptr, n,
                                          compact_modes[m]);
        });
        REQUIRE(d_num.download(1)[0] == num);
        REQUIRE(d_out64.download(in64.size()) == expected64);
        REQUIRE(d_out64.guard_intact());
      }
    }
    // ---- bad arguments: a null flag pointer, an in-place partition; nothing written ----
    device_buffer<int> d_num(1);
    d_num.poison();
    std::size_t bytes = 1 << 20;
    device_buffer<unsigned char> temp(bytes);
    const std::uint8_t* no_flags = nullptr;
    REQUIRE(carry::partition_flagged(temp.ptr, bytes, d_in.ptr, no_flags, d_in.ptr + 0, d_num.ptr, n) ==
            cudaErrorInvalidValue);
    REQUIRE(carry::partition_flagged(temp.ptr, bytes, d_in.ptr, d_f8.ptr, d_in.ptr, d_num.ptr, n) ==
            cudaErrorInvalidValue);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(d_num.download(1)[0] == static_cast<int>(0xA5A5A5A5u));
    REQUIRE(d_in.download(static_cast<std::size_t>(n)) == in);
  }
}

namespace {
struct third {
  __host__ __device__ std::uint32_t operator()(std::uint32_t i) const { return i / 3; }
};
} // namespace

TEST_CASE("select_unique over a transform_iterator (runs of 3); counting items with transform flags",
          "[select][iterator]") {
  for (std::int64_t n : iterator_sizes()) {
    INFO("n = " << n);
    const auto runs = thrust::make_transform_iterator(thrust::counting_iterator<std::uint32_t>(0), third{});
    const auto fifth = thrust::make_transform_iterator(thrust::counting_iterator<std::uint32_t>(0), fifths{});
    const thrust::counting_iterator<std::uint32_t> first(0);
    std::vector<std::uint32_t> heads, picked;
    for (std::int64_t i = 0; i < n; ++i) {
      if (i % 3 == 0) heads.push_back(static_cast<std::uint32_t>(i / 3));
      if (fifths{}(static_cast<std::uint32_t>(i))) picked.push_back(static_cast<std::uint32_t>(i));
    }
    for (int m = 0; m < 3; ++m) {
      INFO(compact_mode_name(m));
      for (int which = 0; which < 2; ++which) {
        device_buffer<std::uint32_t> d_out(static_cast<std::size_t>(n), 16);
        device_buffer<std::int64_t> d_num(1);
        d_out.poison();
        auto call = [&](void* t, std::size_t& b) {
          return which == 0
                     ? carry::select_unique(t, b, runs, d_out.ptr, d_num.ptr, n, carry::equal_to{},
                                            compact_modes[m])
                     : carry::select_flagged(t, b, first, fifth, d_out.ptr, d_num.ptr, n, compact_modes[m]);
        };
        run_two_phase(call);
        const auto& expected = which == 0 ? heads : picked;
        REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(expected.size()));
        REQUIRE(d_out.download(expected.size()) == expected);
        REQUIRE(d_out.guard_intact());
      }
    }
  }
}

TEST_CASE(
    "graph replay: partition_flagged and select_flagged over a counting iterator, changing flags, dirty temp",
    "[select][partition][iterator][graph]") {
  const std::int64_t n = sanitize_mode() ? 20000 : 7 * tile_u32 + 17;
  const thrust::counting_iterator<std::uint32_t> first(0);
  device_buffer<std::uint32_t> d_flags(static_cast<std::size_t>(n)), d_part(static_cast<std::size_t>(n)),
      d_sel(static_cast<std::size_t>(n));
  device_buffer<std::int64_t> d_num(2);
  const std::uint32_t* f = d_flags.ptr;
  for (int m = 0; m < 3; ++m) {
    INFO(compact_mode_name(m));
    std::size_t bytes = 0, b2 = 0;
    REQUIRE(carry::partition_flagged(nullptr, bytes, first, f, d_part.ptr, d_num.ptr, n, compact_modes[m]) ==
            cudaSuccess);
    REQUIRE(carry::select_flagged(nullptr, b2, first, f, d_sel.ptr, d_num.ptr + 1, n, compact_modes[m]) ==
            cudaSuccess);
    bytes = std::max(bytes, b2);
    device_buffer<unsigned char> temp(bytes);
    captured_call graph([&](cudaStream_t s) {
      std::size_t b = bytes;
      const cudaError_t e =
          carry::partition_flagged(temp.ptr, b, first, f, d_part.ptr, d_num.ptr, n, compact_modes[m], s);
      if (e != cudaSuccess) return e;
      return carry::select_flagged(temp.ptr, b, first, f, d_sel.ptr, d_num.ptr + 1, n, compact_modes[m], s);
    });
    REQUIRE(graph.status == cudaSuccess);
    for (int rep = 0; rep < test_reps(8, 4); ++rep) {
      const int percent = rep % 3 == 0 ? 1 : rep % 3 == 1 ? 50 : 99;
      std::vector<std::uint32_t> flags(static_cast<std::size_t>(n)), selected, rejected;
      for (std::int64_t i = 0; i < n; ++i) {
        flags[static_cast<std::size_t>(i)] = flag_of<std::uint32_t>(i + rep * 1000003, percent);
        (flags[static_cast<std::size_t>(i)] ? selected : rejected).push_back(static_cast<std::uint32_t>(i));
      }
      d_flags.upload(flags);
      dirty_temp(temp.ptr, bytes, rep);
      REQUIRE(graph.replay(rep) == cudaSuccess);
      const auto num = d_num.download(2);
      REQUIRE(num[0] == static_cast<std::int64_t>(selected.size()));
      REQUIRE(num[1] == static_cast<std::int64_t>(selected.size()));
      REQUIRE(d_sel.download(selected.size()) == selected);
      selected.insert(selected.end(), rejected.begin(), rejected.end());
      REQUIRE(d_part.download(static_cast<std::size_t>(n)) == selected);
    }
  }
}

TEST_CASE(
    "graph replay: stable partition_flagged keeping its selection bits (u32 items with u8 flags; indices with "
    "32 MB of u32 flags), changing flags, dirty temp; n = 0",
    "[partition][iterator][graph]") {
  // one captured partition_flagged over `first` and flags of F in mode m, replayed with new flags and temp
  // storage zeroed, 0xFF, random or left over, against the CPU
  auto replays = [](auto first, auto item_of, auto flag_type, std::int64_t n, int reps) {
    using F = decltype(flag_type);
    using T = std::uint32_t;
    device_buffer<F> d_flags(static_cast<std::size_t>(n));
    device_buffer<T> d_out(static_cast<std::size_t>(n), 16);
    device_buffer<std::int64_t> d_num(1);
    const F* f = d_flags.ptr;
    for (int m = 0; m < 3; ++m) {
      INFO(compact_mode_name(m) << ", n = " << n);
      std::size_t bytes = 0;
      REQUIRE(carry::partition_flagged(nullptr, bytes, first, f, d_out.ptr, d_num.ptr, n, compact_modes[m]) ==
              cudaSuccess);
      device_buffer<unsigned char> temp(bytes);
      captured_call graph([&](cudaStream_t s) {
        std::size_t b = bytes;
        return carry::partition_flagged(temp.ptr, b, first, f, d_out.ptr, d_num.ptr, n, compact_modes[m], s);
      });
      REQUIRE(graph.status == cudaSuccess);
      for (int rep = 0; rep < reps; ++rep) {
        const int percent = rep % 3 == 0 ? 1 : rep % 3 == 1 ? 50 : 99;
        std::vector<F> flags(static_cast<std::size_t>(n));
        std::vector<T> expected, rejected;
        for (std::int64_t i = 0; i < n; ++i) {
          flags[static_cast<std::size_t>(i)] = flag_of<F>(i + rep * 1000003, percent);
          (flags[static_cast<std::size_t>(i)] != F(0) ? expected : rejected).push_back(item_of(i));
        }
        const std::size_t num = expected.size();
        expected.insert(expected.end(), rejected.begin(), rejected.end());
        d_flags.upload(flags);
        d_out.poison();
        dirty_temp(temp.ptr, bytes, rep);
        REQUIRE(graph.replay(rep) == cudaSuccess);
        REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(num));
        REQUIRE(d_out.download(static_cast<std::size_t>(n)) == expected);
        REQUIRE(d_out.guard_intact());
      }
    }
  };
  // ---- u32 items with u8 flags: the staged tile keeps the bits at every size ----
  const std::int64_t n = sanitize_mode() ? 20000 : 7 * tile_u32 + 17;
  const auto in = uniform_values<std::uint32_t>(static_cast<std::size_t>(n), 91);
  device_buffer<std::uint32_t> d_in(in.size());
  d_in.upload(in);
  replays(
      static_cast<const std::uint32_t*>(d_in.ptr),
      [&](std::int64_t i) { return in[static_cast<std::size_t>(i)]; }, std::uint8_t{}, n, test_reps(8, 4));
  // ---- n = 0: the count 0 written, nothing else ----
  device_buffer<std::uint8_t> d_f8(1);
  device_buffer<std::uint32_t> d_none(4, 4);
  device_buffer<std::int64_t> d_count(1);
  d_none.poison();
  d_count.poison();
  run_two_phase([&](void* t, std::size_t& b) {
    return carry::partition_flagged(t, b, static_cast<const std::uint32_t*>(d_in.ptr), d_f8.ptr, d_none.ptr,
                                    d_count.ptr, 0);
  });
  REQUIRE(d_count.download(1)[0] == 0);
  for (std::uint32_t x : d_none.download(4)) REQUIRE(x == 0xA5A5A5A5u);
  REQUIRE(d_none.guard_intact());
  if (sanitize_mode()) return;
  // ---- a counting iterator with 32 MB of u32 flags: the index tile keeps the bits from there ----
  const std::int64_t big = std::int64_t{1} << 23;
  static_assert(carry::compact_tuning::index_stored_bits_from_flag_bytes <= (std::int64_t{1} << 25),
                "test sizes");
  replays(
      thrust::counting_iterator<std::uint32_t>(0),
      [](std::int64_t i) { return static_cast<std::uint32_t>(i); }, std::uint32_t{}, big + 17, 3);
}
