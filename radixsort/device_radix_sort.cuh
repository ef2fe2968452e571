// Public facade of the radix sort: sort_keys, sort_pairs and their descending forms, pointer and
// double-buffer (CUB's DeviceRadixSort shape, snake_case; two-phase temp storage, stream last).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "../scan/util/stage.cuh"
#include "detail/dispatch.cuh"
#include "radix_sort_options.hpp"

namespace carry {

/// Two buffers of one array for the double-buffer sorts (CUB's DoubleBuffer): the sort reads current(),
/// uses the other as scratch, and leaves the result in current() (selector flipped when the number of
/// passes, ceil((end_bit - begin_bit) / 8), is odd and n > 0). Both buffers' contents may change.
template <class T>
struct double_buffer {
  T* d_buffers[2] = {nullptr, nullptr};
  int selector = 0;
  double_buffer() = default;
  double_buffer(T* current, T* alternate) : d_buffers{current, alternate} {}
  T* current() const { return d_buffers[selector]; }
  T* alternate() const { return d_buffers[selector ^ 1]; }
};

namespace radix_detail {

template <class T>
pass_buffers<T> pointer_buffers(const T* in, T* out) {
  return {in, out, nullptr, false};
}
template <class T>
pass_buffers<T> double_buffers(double_buffer<T>& b) {
  return {b.current(), b.alternate(), nullptr, true};
}
/// CUB's selector rule: flipped after an odd number of passes (a successful call with n > 0).
template <class T>
void flip_after(double_buffer<T>& b, cudaError_t e, void* d_temp_storage, std::int64_t n, int begin_bit,
                int end_bit) {
  if (e == cudaSuccess && d_temp_storage != nullptr && n > 0 &&
      radix_passes(begin_bit, end_bit, radix_tuning::digit_bits) % 2 == 1)
    b.selector ^= 1;
}

template <bool HAS_VALUES, class P = radix_tuning::default_policy, class K, class V>
cudaError_t sort_pointer(void* t, std::size_t& bytes, const K* ki, K* ko, const V* vi, V* vo, std::int64_t n,
                         int begin_bit, int end_bit, bool descending, radix_sort_options opt,
                         cudaStream_t stream) {
  return dispatch_sort<HAS_VALUES, P>(t, bytes, pointer_buffers(ki, ko), pointer_buffers(vi, vo), n,
                                      begin_bit, end_bit, descending, opt, stream);
}
/// sort_pairs with values from any random-access iterator: a pointer of V sorts as it is; any other
/// iterator (a counting iterator for an argsort, a transform) is first staged into a buffer placed after
/// the sort's own temp storage (one read of the iterator, one write and one read of n values more).
template <class P = radix_tuning::default_policy, class K, class ValueIt, class V>
cudaError_t sort_values_from(void* t, std::size_t& bytes, const K* ki, K* ko, ValueIt vi, V* vo,
                             std::int64_t n, int begin_bit, int end_bit, bool descending,
                             radix_sort_options opt, cudaStream_t stream) {
  if constexpr (std::is_convertible<ValueIt, const V*>::value) {
    return sort_pointer<true, P>(t, bytes, ki, ko, static_cast<const V*>(vi), vo, n, begin_bit, end_bit,
                                 descending, opt, stream);
  } else { // the sort's own check follows the staging (which writes temp storage only)
    return detail::with_staged<V>(t, bytes, vi, n,
                                  n <= 0 || (ki != nullptr && ko != nullptr && vo != nullptr), stream,
                                  [&](void* tt, std::size_t& b, const V* staged) {
                                    return sort_pointer<true, P>(tt, b, ki, ko, staged, vo, n, begin_bit,
                                                                 end_bit, descending, opt, stream);
                                  });
  }
}
template <class P = radix_tuning::default_policy, class K>
cudaError_t sort_keys_db(void* t, std::size_t& bytes, double_buffer<K>& keys, std::int64_t n, int begin_bit,
                         int end_bit, bool descending, radix_sort_options opt, cudaStream_t stream) {
  const cudaError_t e =
      dispatch_sort<false, P>(t, bytes, double_buffers(keys), pointer_buffers<null_value>(nullptr, nullptr),
                              n, begin_bit, end_bit, descending, opt, stream);
  flip_after(keys, e, t, n, begin_bit, end_bit);
  return e;
}
template <class P = radix_tuning::default_policy, class K, class V>
cudaError_t sort_pairs_db(void* t, std::size_t& bytes, double_buffer<K>& keys, double_buffer<V>& values,
                          std::int64_t n, int begin_bit, int end_bit, bool descending, radix_sort_options opt,
                          cudaStream_t stream) {
  pass_buffers<V> vb = double_buffers(values);
  const cudaError_t e = dispatch_sort<true, P>(t, bytes, double_buffers(keys), vb, n, begin_bit, end_bit,
                                               descending, opt, stream);
  flip_after(keys, e, t, n, begin_bit, end_bit);
  flip_after(values, e, t, n, begin_bit, end_bit);
  return e;
}

} // namespace radix_detail

// ---- keys ----

/// Sorts keys ascending by bits [begin_bit, end_bit) of their order-preserving image (unsigned: the
/// bits; signed: sign flipped; floats: -0.0 as +0.0, -NaN < -inf < ... < +inf < +NaN), stably. d_keys_in
/// is left unchanged and may not overlap d_keys_out. Keys: 1/2/4/8-byte integers, float, double,
/// __half, __nv_bfloat16. num_items == 0: nothing written.
///
///   keys [3 1 7 0 4 1 6 3]  ->  [0 1 1 3 3 4 6 7]
///
/// Differences from cub::DeviceRadixSort::SortKeys: std::int64_t num_items; bad bit ranges
/// (begin_bit < 0, end_bit > 8 * sizeof(K), begin_bit > end_bit) and overlapping buffers are refused with
/// cudaErrorInvalidValue; keys already in order and constant digits make passes disappear (options).
template <class K>
cudaError_t sort_keys(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* d_keys_in,
                      K* d_keys_out, std::int64_t num_items, int begin_bit, int end_bit,
                      radix_sort_options options, cudaStream_t stream = 0) {
  return radix_detail::sort_pointer<false>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,
                                           static_cast<const radix_detail::null_value*>(nullptr),
                                           static_cast<radix_detail::null_value*>(nullptr), num_items,
                                           begin_bit, end_bit, false, options, stream);
}
template <class K>
cudaError_t sort_keys(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* d_keys_in,
                      K* d_keys_out, std::int64_t num_items, int begin_bit = 0,
                      int end_bit = static_cast<int>(8 * sizeof(K)), cudaStream_t stream = 0) {
  return sort_keys(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, num_items, begin_bit, end_bit,
                   radix_sort_options{}, stream);
}

/// sort_keys, largest first (stable: equal keys keep their input order).
///
///   keys [3 1 7 0 4 1 6 3]  ->  [7 6 4 3 3 1 1 0]
template <class K>
cudaError_t sort_keys_descending(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* d_keys_in,
                                 K* d_keys_out, std::int64_t num_items, int begin_bit, int end_bit,
                                 radix_sort_options options, cudaStream_t stream = 0) {
  return radix_detail::sort_pointer<false>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,
                                           static_cast<const radix_detail::null_value*>(nullptr),
                                           static_cast<radix_detail::null_value*>(nullptr), num_items,
                                           begin_bit, end_bit, true, options, stream);
}
template <class K>
cudaError_t sort_keys_descending(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* d_keys_in,
                                 K* d_keys_out, std::int64_t num_items, int begin_bit = 0,
                                 int end_bit = static_cast<int>(8 * sizeof(K)), cudaStream_t stream = 0) {
  return sort_keys_descending(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, num_items, begin_bit,
                              end_bit, radix_sort_options{}, stream);
}

/// Double-buffer sort_keys with options (algorithm, adaptivity), as the pointer forms take them.
///
///   current [3 1 7 0], options{onesweep, adaptive = false}  ->  current() [0 1 3 7]
template <class K>
cudaError_t sort_keys(void* d_temp_storage, std::size_t& temp_storage_bytes, double_buffer<K>& d_keys,
                      std::int64_t num_items, int begin_bit, int end_bit, radix_sort_options options,
                      cudaStream_t stream = 0) {
  return radix_detail::sort_keys_db(d_temp_storage, temp_storage_bytes, d_keys, num_items, begin_bit, end_bit,
                                    false, options, stream);
}
/// Double-buffer sort_keys_descending with options.
///
///   current [3 1 7 0], options{three_kernel}  ->  current() [7 3 1 0]
template <class K>
cudaError_t sort_keys_descending(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                 double_buffer<K>& d_keys, std::int64_t num_items, int begin_bit, int end_bit,
                                 radix_sort_options options, cudaStream_t stream = 0) {
  return radix_detail::sort_keys_db(d_temp_storage, temp_storage_bytes, d_keys, num_items, begin_bit, end_bit,
                                    true, options, stream);
}

/// Double-buffer sort_keys: no n-sized scratch; the sorted keys end in d_keys.current().
///
///   current [3 1 7 0 4 1 6 3]  ->  current() [0 1 1 3 3 4 6 7]
template <class K>
cudaError_t sort_keys(void* d_temp_storage, std::size_t& temp_storage_bytes, double_buffer<K>& d_keys,
                      std::int64_t num_items, int begin_bit = 0,
                      int end_bit = static_cast<int>(8 * sizeof(K)), cudaStream_t stream = 0) {
  return sort_keys(d_temp_storage, temp_storage_bytes, d_keys, num_items, begin_bit, end_bit,
                   radix_sort_options{}, stream);
}
/// Double-buffer sort_keys_descending.
///
///   current [3 1 7 0 4 1 6 3]  ->  current() [7 6 4 3 3 1 1 0]
template <class K>
cudaError_t sort_keys_descending(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                 double_buffer<K>& d_keys, std::int64_t num_items, int begin_bit = 0,
                                 int end_bit = static_cast<int>(8 * sizeof(K)), cudaStream_t stream = 0) {
  return sort_keys_descending(d_temp_storage, temp_storage_bytes, d_keys, num_items, begin_bit, end_bit,
                              radix_sort_options{}, stream);
}

// ---- pairs ----

/// Sorts key-value pairs by key (as sort_keys), stably; values (any trivially copyable type of 1 to 16
/// bytes) travel with their keys. Inputs are left unchanged; neither input may overlap its output.
///
///   keys [3 1 7 0 4 1 6 3], values [a b c d e f g h]  ->  keys [0 1 1 3 3 4 6 7], values [d b f a h e g c]
///
/// The values in may be any random-access iterator of V: a counting iterator gives an argsort,
///   keys [3 1 7 0], values counting from 0  ->  keys [0 1 3 7], values [3 1 0 2];
/// such an iterator is staged into temp storage first (n values written and read once more than from a
/// pointer; the size query counts that buffer).
template <class K, class ValueIt, class V>
cudaError_t sort_pairs(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* d_keys_in,
                       K* d_keys_out, ValueIt d_values_in, V* d_values_out, std::int64_t num_items,
                       int begin_bit, int end_bit, radix_sort_options options, cudaStream_t stream = 0) {
  return radix_detail::sort_values_from(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,
                                        d_values_in, d_values_out, num_items, begin_bit, end_bit, false,
                                        options, stream);
}
template <class K, class ValueIt, class V>
cudaError_t sort_pairs(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* d_keys_in,
                       K* d_keys_out, ValueIt d_values_in, V* d_values_out, std::int64_t num_items,
                       int begin_bit = 0, int end_bit = static_cast<int>(8 * sizeof(K)),
                       cudaStream_t stream = 0) {
  return sort_pairs(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out,
                    num_items, begin_bit, end_bit, radix_sort_options{}, stream);
}

/// sort_pairs, largest key first (stable).
///
///   keys [3 1 7 0 4 1 6 3], values [a b c d e f g h]  ->  keys [7 6 4 3 3 1 1 0], values [c g e a h b f d]
template <class K, class ValueIt, class V>
cudaError_t sort_pairs_descending(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* d_keys_in,
                                  K* d_keys_out, ValueIt d_values_in, V* d_values_out, std::int64_t num_items,
                                  int begin_bit, int end_bit, radix_sort_options options,
                                  cudaStream_t stream = 0) {
  return radix_detail::sort_values_from(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,
                                        d_values_in, d_values_out, num_items, begin_bit, end_bit, true,
                                        options, stream);
}
template <class K, class ValueIt, class V>
cudaError_t sort_pairs_descending(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* d_keys_in,
                                  K* d_keys_out, ValueIt d_values_in, V* d_values_out, std::int64_t num_items,
                                  int begin_bit = 0, int end_bit = static_cast<int>(8 * sizeof(K)),
                                  cudaStream_t stream = 0) {
  return sort_pairs_descending(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, d_values_in,
                               d_values_out, num_items, begin_bit, end_bit, radix_sort_options{}, stream);
}

/// Double-buffer sort_pairs with options.
///
///   keys [3 1 7 0], values [a b c d], options{onesweep}  ->  current(): [0 1 3 7], [d b a c]
template <class K, class V>
cudaError_t sort_pairs(void* d_temp_storage, std::size_t& temp_storage_bytes, double_buffer<K>& d_keys,
                       double_buffer<V>& d_values, std::int64_t num_items, int begin_bit, int end_bit,
                       radix_sort_options options, cudaStream_t stream = 0) {
  return radix_detail::sort_pairs_db(d_temp_storage, temp_storage_bytes, d_keys, d_values, num_items,
                                     begin_bit, end_bit, false, options, stream);
}
/// Double-buffer sort_pairs_descending with options.
///
///   keys [3 1 7 0], values [a b c d], options{onesweep}  ->  current(): [7 3 1 0], [c a b d]
template <class K, class V>
cudaError_t sort_pairs_descending(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                  double_buffer<K>& d_keys, double_buffer<V>& d_values,
                                  std::int64_t num_items, int begin_bit, int end_bit,
                                  radix_sort_options options, cudaStream_t stream = 0) {
  return radix_detail::sort_pairs_db(d_temp_storage, temp_storage_bytes, d_keys, d_values, num_items,
                                     begin_bit, end_bit, true, options, stream);
}
/// Double-buffer sort_pairs: the sorted keys and values end in current() of each.
///
///   keys [3 1 7 0 4 1 6 3], values [a b c d e f g h]  ->  current(): [0 1 1 3 3 4 6 7], [d b f a h e g c]
template <class K, class V>
cudaError_t sort_pairs(void* d_temp_storage, std::size_t& temp_storage_bytes, double_buffer<K>& d_keys,
                       double_buffer<V>& d_values, std::int64_t num_items, int begin_bit = 0,
                       int end_bit = static_cast<int>(8 * sizeof(K)), cudaStream_t stream = 0) {
  return sort_pairs(d_temp_storage, temp_storage_bytes, d_keys, d_values, num_items, begin_bit, end_bit,
                    radix_sort_options{}, stream);
}
/// Double-buffer sort_pairs_descending.
///
///   keys [3 1 7 0 4 1 6 3], values [a b c d e f g h]  ->  current(): [7 6 4 3 3 1 1 0], [c g e a h b f d]
template <class K, class V>
cudaError_t sort_pairs_descending(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                  double_buffer<K>& d_keys, double_buffer<V>& d_values,
                                  std::int64_t num_items, int begin_bit = 0,
                                  int end_bit = static_cast<int>(8 * sizeof(K)), cudaStream_t stream = 0) {
  return sort_pairs_descending(d_temp_storage, temp_storage_bytes, d_keys, d_values, num_items, begin_bit,
                               end_bit, radix_sort_options{}, stream);
}

} // namespace carry
