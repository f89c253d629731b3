// The fp64 reference: materializes S in fp64 (naive attention), for the tests and every
// benchmark run's correctness check.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/internal.h"
#include "kernels/ops.h"

namespace attnscope {
namespace detail {

namespace {

// One (batch, head): materializes S = scale * q k^T [seq_len_q, seq_len_k], masks, softmax, S V.
// q: [seq_len_q, d], k and v: [seq_len_k, d] (fp64, contiguous). out: row stride out_stride.
void naive_head(const double* q, const double* k, const double* v, int seq_len_q, int seq_len_k,
                int d, double scale, const MaskGeometry& mask, double* out, int64_t out_stride,
                double* lse, int64_t lse_stride) {
  std::vector<double> s(size_t(seq_len_q) * seq_len_k);
  for (int i = 0; i < seq_len_q; ++i) {
    for (int j = 0; j < seq_len_k; ++j) {
      double dot = 0.0;
      for (int x = 0; x < d; ++x) dot += q[int64_t(i) * d + x] * k[int64_t(j) * d + x];
      s[size_t(i) * seq_len_k + j] = scale * dot;
    }
  }
  for (int i = 0; i < seq_len_q; ++i) {
    int64_t lo, hi;
    mask.range(i, &lo, &hi);
    double* o = out + i * out_stride;
    std::fill(o, o + d, 0.0);
    if (lo > hi) {
      lse[i * lse_stride] = -std::numeric_limits<double>::infinity();
      continue;
    }
    const double* row = s.data() + size_t(i) * seq_len_k;
    double big = -std::numeric_limits<double>::infinity();
    for (int64_t j = lo; j <= hi; ++j) big = std::max(big, row[j]);
    double total = 0.0;
    for (int64_t j = lo; j <= hi; ++j) {
      const double e = std::exp(row[j] - big);
      total += e;
      for (int x = 0; x < d; ++x) o[x] += e * v[j * d + x];
    }
    for (int x = 0; x < d; ++x) o[x] /= total;
    lse[i * lse_stride] = big + std::log(total);
  }
}

Status check_reference(const ReferenceParams& p) {
  if (!p.q || !p.k || !p.v || !p.o || !p.lse) return fail(Status::kInvalidArgument, "null tensor pointer");
  if (!dtype_valid(p.dtype)) return fail(Status::kInvalidArgument, "unknown dtype");
  if (p.batch < 1 || p.seq_len_q < 1 || p.seq_len_k < 1 || p.num_heads < 1 || p.num_kv_heads < 1 ||
      p.head_dim < 1)
    return fail(Status::kInvalidArgument, "all sizes must be >= 1");
  if (p.num_heads % p.num_kv_heads != 0)
    return fail(Status::kInvalidArgument, "num_heads must be a multiple of num_kv_heads");
  if (p.window < 0) return fail(Status::kInvalidArgument, "window must be >= 0");
  return Status::kOk;
}

Status run_reference(const ReferenceParams& p) {
  const int group = p.num_heads / p.num_kv_heads;
  const int d = p.head_dim;
  const double scale = p.softmax_scale > 0 ? p.softmax_scale : 1.0 / std::sqrt(double(d));
  const MaskGeometry mask{int64_t(p.seq_len_k) - p.seq_len_q, p.seq_len_k, p.is_causal, p.window};
  parallel_for(hardware_threads(), int64_t(p.batch) * p.num_heads, [&](int64_t bh, int) {
    if (kernels_cancelled()) return;
    const int b = static_cast<int>(bh / p.num_heads), h = static_cast<int>(bh % p.num_heads);
    const int hk = h / group;
    std::vector<double> q(size_t(p.seq_len_q) * d), k(size_t(p.seq_len_k) * d), v(size_t(p.seq_len_k) * d);
    for (int i = 0; i < p.seq_len_q; ++i)
      for (int x = 0; x < d; ++x)
        q[size_t(i) * d + x] = load_double(p.dtype, p.q, ((int64_t(b) * p.seq_len_q + i) * p.num_heads + h) * d + x);
    for (int j = 0; j < p.seq_len_k; ++j)
      for (int x = 0; x < d; ++x) {
        const int64_t at = ((int64_t(b) * p.seq_len_k + j) * p.num_kv_heads + hk) * d + x;
        k[size_t(j) * d + x] = load_double(p.dtype, p.k, at);
        v[size_t(j) * d + x] = load_double(p.dtype, p.v, at);
      }
    naive_head(q.data(), k.data(), v.data(), p.seq_len_q, p.seq_len_k, d, scale, mask,
               p.o + (int64_t(b) * p.seq_len_q * p.num_heads + h) * d, int64_t(p.num_heads) * d,
               p.lse + (int64_t(b) * p.num_heads + h) * p.seq_len_q, 1);
  });
  return ok();
}

Status run_reference_paged(const PagedDecodeParams& p, double* o, double* lse) {
  const int group = p.num_heads / p.num_kv_heads;
  const int d = p.head_dim, ps = p.page_size;
  const double scale = p.softmax_scale > 0 ? p.softmax_scale : 1.0 / std::sqrt(double(d));
  parallel_for(hardware_threads(), int64_t(p.batch) * p.num_heads, [&](int64_t bh, int) {
    if (kernels_cancelled()) return;
    const int b = static_cast<int>(bh / p.num_heads), h = static_cast<int>(bh % p.num_heads);
    const int hk = h / group;
    const int len = p.context_lens[b];
    if (len == 0) {
      std::fill(o + bh * d, o + bh * d + d, 0.0);
      lse[bh] = -std::numeric_limits<double>::infinity();
      return;
    }
    // The query sits at position len - 1 among the keys: flash's mask with one query
    // (MaskGeometry), its window the decode's. Only the keys it sees are gathered: entries of
    // the block table before the window may be released pages (-1).
    const MaskGeometry mask{len - 1, len, false, p.window};
    int64_t lo = 0, hi = 0;
    mask.range(0, &lo, &hi);
    const int n = static_cast<int>(hi - lo + 1);
    std::vector<double> q(d), k(size_t(n) * d), v(size_t(n) * d);
    for (int x = 0; x < d; ++x) q[x] = load_double(p.dtype, p.q, bh * d + x);
    for (int i = 0; i < n; ++i) {  // gather token lo + i through the block table
      const int64_t t = lo + i;
      const int64_t page = p.block_table[int64_t(b) * p.max_pages_per_seq + t / ps];
      const int slot = static_cast<int>(t % ps);
      for (int x = 0; x < d; ++x) {
        const int64_t at_k = kv_pool_index(p.kv_cache_layout, false, ps, p.num_kv_heads, d, page, slot, hk, x);
        const int64_t at_v = kv_pool_index(p.kv_cache_layout, true, ps, p.num_kv_heads, d, page, slot, hk, x);
        k[size_t(i) * d + x] = load_double(p.kv_dtype, p.k_pages, at_k);
        v[size_t(i) * d + x] = load_double(p.kv_dtype, p.v_pages, at_v);
      }
    }
    const MaskGeometry all_keys{n - 1, n, false, 0};
    naive_head(q.data(), k.data(), v.data(), 1, n, d, scale, all_keys, o + bh * d, d, lse + bh, 1);
  });
  return ok();
}

}  // namespace
}  // namespace detail

Status reference_attention(const ReferenceParams& params) {
  return detail::guarded([&] {
    const Status s = detail::check_reference(params);
    return s != Status::kOk ? s : detail::run_reference(params);
  });
}

Status reference_paged_decode(const PagedDecodeParams& params, double* o, double* lse) {
  return detail::guarded([&] {
    if (!o || !lse) return detail::fail(Status::kInvalidArgument, "null output pointer");
    const Status s = detail::check_paged(params, false);
    return s != Status::kOk ? s : detail::run_reference_paged(params, o, lse);
  });
}

}  // namespace attnscope
