// Test-only export `cudaHostChecks`: the CUDA kernels' scalar logic (native/cuda/include/
// attnscope_cuda_math.h, compiled here by g++) run on the host, so the CPU test suite can check
// it against an fp64 reference without a GPU (test/native/cuda_host_math.test.ts).
// The two emulate* functions compose the helpers in the order the kernels do, in fp32.
#include <napi.h>

#include <cmath>
#include <vector>

#include "attnscope_cuda_math.h"

namespace {

namespace cm = attnscope::cuda;

int IntArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (!info[i].IsNumber()) throw Napi::TypeError::New(info.Env(), std::string(name) + " must be a number");
  return info[i].As<Napi::Number>().Int32Value();
}

bool BoolArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (!info[i].IsBoolean()) throw Napi::TypeError::New(info.Env(), std::string(name) + " must be a boolean");
  return info[i].As<Napi::Boolean>().Value();
}

template <typename T>
Napi::TypedArrayOf<T> ArrayArg(const Napi::CallbackInfo& info, size_t i, const char* name, size_t length) {
  if (!info[i].IsTypedArray()) throw Napi::TypeError::New(info.Env(), std::string(name) + " must be a typed array");
  auto a = info[i].As<Napi::TypedArrayOf<T>>();
  if (a.ElementLength() != length) {
    throw Napi::RangeError::New(info.Env(), std::string(name) + " has " + std::to_string(a.ElementLength()) +
                                                " elements, expected " + std::to_string(length));
  }
  return a;
}

// pagedKvOffset(blockTable, maxPagesPerSeq, seq, token, pageSize, numKvHeads, headDim, kvHead)
Napi::Value PagedKvOffset(const Napi::CallbackInfo& info) {
  if (!info[0].IsTypedArray()) throw Napi::TypeError::New(info.Env(), "blockTable must be an Int32Array");
  auto table = info[0].As<Napi::Int32Array>();
  const int max_pages = IntArg(info, 1, "maxPagesPerSeq"), seq = IntArg(info, 2, "seq");
  const int token = IntArg(info, 3, "token"), page_size = IntArg(info, 4, "pageSize");
  if (page_size <= 0 || max_pages <= 0 || seq < 0 || token < 0 ||
      static_cast<size_t>(seq) * max_pages + token / page_size >= table.ElementLength()) {
    throw Napi::RangeError::New(info.Env(), "token lies outside the block table");
  }
  return Napi::Number::New(info.Env(), static_cast<double>(cm::paged_kv_offset(
                                           table.Data(), max_pages, seq, token, page_size, IntArg(info, 5, "numKvHeads"),
                                           IntArg(info, 6, "headDim"), IntArg(info, 7, "kvHead"))));
}

// visibleKeys(row, nQ, nK, causal, windowLeft) -> [begin, end)
Napi::Value VisibleKeys(const Napi::CallbackInfo& info) {
  const cm::KeyRange r = cm::visible_keys(IntArg(info, 0, "row"), IntArg(info, 1, "nQ"), IntArg(info, 2, "nK"),
                                          BoolArg(info, 3, "causal"), IntArg(info, 4, "windowLeft"));
  auto out = Napi::Array::New(info.Env(), 2);
  out.Set(0u, r.begin);
  out.Set(1u, r.end);
  return out;
}

// keyTiles(rowBegin, rowEnd, nQ, nK, causal, windowLeft, blockN)
//   -> { tiles: number[] visited in order, fullyVisible: boolean[] per visited tile }
Napi::Value KeyTiles(const Napi::CallbackInfo& info) {
  const int row_begin = IntArg(info, 0, "rowBegin"), row_end = IntArg(info, 1, "rowEnd");
  const int n_q = IntArg(info, 2, "nQ"), n_k = IntArg(info, 3, "nK");
  const bool causal = BoolArg(info, 4, "causal");
  const int window_left = IntArg(info, 5, "windowLeft"), block_n = IntArg(info, 6, "blockN");
  if (block_n <= 0 || row_end <= row_begin) throw Napi::RangeError::New(info.Env(), "empty tile");
  const cm::TileSpan span = cm::key_tiles(row_begin, row_end, n_q, n_k, causal, window_left, block_n);
  auto tiles = Napi::Array::New(info.Env());
  auto full = Napi::Array::New(info.Env());
  for (int t = span.first; t < span.last; ++t) {
    tiles.Set(tiles.Length(), t);
    full.Set(full.Length(), cm::key_tile_fully_visible(row_begin, row_end, t * block_n, block_n, n_q, n_k, causal,
                                                       window_left));
  }
  auto out = Napi::Object::New(info.Env());
  out.Set("tiles", tiles);
  out.Set("fullyVisible", full);
  return out;
}

// planDecodeSplits(blocksPerSplit, maxContextLen, blocksPerWave, requestedPartitionTokens)
Napi::Value PlanDecodeSplits(const Napi::CallbackInfo& info) {
  const cm::DecodeSplitPlan p =
      cm::plan_decode_splits(IntArg(info, 0, "blocksPerSplit"), IntArg(info, 1, "maxContextLen"),
                             IntArg(info, 2, "blocksPerWave"), IntArg(info, 3, "requestedPartitionTokens"));
  auto out = Napi::Object::New(info.Env());
  out.Set("numSplits", p.num_splits);
  out.Set("partitionTokens", p.partition_tokens);
  return out;
}

// decodePartition(split, partitionTokens, contextLen) -> [begin, end)
Napi::Value DecodePartition(const Napi::CallbackInfo& info) {
  const cm::KeyRange r =
      cm::decode_partition(IntArg(info, 0, "split"), IntArg(info, 1, "partitionTokens"), IntArg(info, 2, "contextLen"));
  auto out = Napi::Array::New(info.Env(), 2);
  out.Set(0u, r.begin);
  out.Set(1u, r.end);
  return out;
}

// mergePartitions(lse: Float32Array[n], o: Float32Array[n * dv], dv) -> { lse, o: Float32Array[dv] }
Napi::Value MergePartitions(const Napi::CallbackInfo& info) {
  if (!info[0].IsTypedArray()) throw Napi::TypeError::New(info.Env(), "lse must be a Float32Array");
  auto lse = info[0].As<Napi::Float32Array>();
  const int n = static_cast<int>(lse.ElementLength());
  const int dv = IntArg(info, 2, "dv");
  auto o = ArrayArg<float>(info, 1, "o", static_cast<size_t>(n) * dv);
  const float total = cm::lse_merge(lse.Data(), n, 1);
  auto merged = Napi::Float32Array::New(info.Env(), dv);
  for (int d = 0; d < dv; ++d) merged[d] = 0.f;
  for (int i = 0; i < n; ++i) {
    const float w = cm::lse_weight(lse[i], total);
    for (int d = 0; d < dv; ++d) merged[d] += w * o[static_cast<size_t>(i) * dv + d];
  }
  auto out = Napi::Object::New(info.Env());
  out.Set("lse", total);
  out.Set("o", merged);
  return out;
}

// lseAdd(a, b)
Napi::Value LseAdd(const Napi::CallbackInfo& info) {
  if (!info[0].IsNumber() || !info[1].IsNumber()) throw Napi::TypeError::New(info.Env(), "a and b must be numbers");
  return Napi::Number::New(info.Env(), cm::lse_add(info[0].As<Napi::Number>().FloatValue(),
                                                   info[1].As<Napi::Number>().FloatValue()));
}

// Folds keys [begin, end) of one query row into (state, acc) in chunks of `chunk` keys, the
// way a kernel's tile loop does: the chunk's max first, then the rescale, then the weights.
// scores2 are base-2 scores (masked ones -inf); values is [n_k, dv].
void FoldKeys(const float* scores2, const float* values, int dv, int begin, int end, int chunk, cm::SoftmaxState& st,
              float* acc) {
  for (int c = begin; c < end; c += chunk) {
    const int c_end = cm::min_int(c + chunk, end);
    float tile_max = -INFINITY;
    for (int j = c; j < c_end; ++j) tile_max = fmaxf(tile_max, scores2[j]);
    const float alpha = cm::softmax_update_max(st, tile_max);
    for (int d = 0; d < dv; ++d) acc[d] *= alpha;
    for (int j = c; j < c_end; ++j) {
      const float p = cm::softmax_weight(scores2[j], st.m);
      st.l += p;
      for (int d = 0; d < dv; ++d) acc[d] += p * values[static_cast<size_t>(j) * dv + d];
    }
  }
}

float Dot(const float* a, const float* b, int n) {
  float s = 0.f;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

// emulateFlashForward(q, k, v, B, Nq, Nk, H, Hkv, D, causal, windowLeft, scale, blockM, blockN)
//   -> { o: Float32Array [B, Nq, H, D], lse: Float32Array [B, H, Nq], tilesVisited }
// The flash kernel's schedule: per (batch, head, query tile of blockM rows) the key tiles of
// key_tiles(); per-element masks only in tiles that key_tile_fully_visible() rejects.
Napi::Value EmulateFlashForward(const Napi::CallbackInfo& info) {
  const int B = IntArg(info, 3, "B"), Nq = IntArg(info, 4, "Nq"), Nk = IntArg(info, 5, "Nk");
  const int H = IntArg(info, 6, "H"), Hkv = IntArg(info, 7, "Hkv"), D = IntArg(info, 8, "D");
  const bool causal = BoolArg(info, 9, "causal");
  const int window_left = IntArg(info, 10, "windowLeft");
  if (!info[11].IsNumber()) throw Napi::TypeError::New(info.Env(), "scale must be a number");
  const float scale2 = info[11].As<Napi::Number>().FloatValue() * cm::kLog2e;
  const int block_m = IntArg(info, 12, "blockM"), block_n = IntArg(info, 13, "blockN");
  if (B < 1 || Nq < 1 || Nk < 1 || H < 1 || Hkv < 1 || H % Hkv != 0 || D < 1 || block_m < 1 || block_n < 1) {
    throw Napi::RangeError::New(info.Env(), "bad shape");
  }
  auto q = ArrayArg<float>(info, 0, "q", static_cast<size_t>(B) * Nq * H * D);
  auto k = ArrayArg<float>(info, 1, "k", static_cast<size_t>(B) * Nk * Hkv * D);
  auto v = ArrayArg<float>(info, 2, "v", static_cast<size_t>(B) * Nk * Hkv * D);
  auto o = Napi::Float32Array::New(info.Env(), static_cast<size_t>(B) * Nq * H * D);
  auto lse = Napi::Float32Array::New(info.Env(), static_cast<size_t>(B) * H * Nq);
  int tiles_visited = 0;
  std::vector<float> scores(Nk), vrows(static_cast<size_t>(Nk) * D), acc(D);
  for (int b = 0; b < B; ++b) {
    for (int h = 0; h < H; ++h) {
      const int hk = h / (H / Hkv);
      for (int j = 0; j < Nk; ++j)
        for (int d = 0; d < D; ++d) vrows[static_cast<size_t>(j) * D + d] = v[((static_cast<size_t>(b) * Nk + j) * Hkv + hk) * D + d];
      for (int m0 = 0; m0 < Nq; m0 += block_m) {
        const int m1 = cm::min_int(m0 + block_m, Nq);
        const cm::TileSpan span = cm::key_tiles(m0, m1, Nq, Nk, causal, window_left, block_n);
        tiles_visited += span.last - span.first;
        for (int i = m0; i < m1; ++i) {
          const float* qi = &q[((static_cast<size_t>(b) * Nq + i) * H + h) * D];
          cm::SoftmaxState st = cm::softmax_init();
          std::fill(acc.begin(), acc.end(), 0.f);
          for (int t = span.first; t < span.last; ++t) {
            const int k0 = t * block_n, k1 = cm::min_int(k0 + block_n, Nk);
            const bool full = cm::key_tile_fully_visible(m0, m1, k0, block_n, Nq, Nk, causal, window_left);
            for (int j = k0; j < k1; ++j) {
              const bool vis = full || cm::key_visible(i, j, Nq, Nk, causal, window_left);
              scores[j] = vis ? scale2 * Dot(qi, &k[((static_cast<size_t>(b) * Nk + j) * Hkv + hk) * D], D) : -INFINITY;
            }
            FoldKeys(scores.data(), vrows.data(), D, k0, k1, block_n, st, acc.data());
          }
          const float inv = cm::softmax_inv_sum(st);
          for (int d = 0; d < D; ++d) o[((static_cast<size_t>(b) * Nq + i) * H + h) * D + d] = acc[d] * inv;
          lse[(static_cast<size_t>(b) * H + h) * Nq + i] = cm::softmax_lse(st);
        }
      }
    }
  }
  auto out = Napi::Object::New(info.Env());
  out.Set("o", o);
  out.Set("lse", lse);
  out.Set("tilesVisited", tiles_visited);
  return out;
}

// emulatePagedDecode(q, kPool, vPool, blockTable, contextLens, B, H, Hkv, D, pageSize, numPages,
//                    maxPagesPerSeq, scale, partitionTokens, lanes, chunk)
//   -> { o: Float32Array [B, H, D], lse: Float32Array [B, H], partitionTokens }
// The decode kernel's order: the partitions of plan_decode_splits(); inside one, `lanes` token
// groups take every lanes-th run of `chunk` tokens, each with its own online-softmax state;
// the groups merge with softmax_merge(), the partitions through lse_merge()/lse_weight().
Napi::Value EmulatePagedDecode(const Napi::CallbackInfo& info) {
  const int B = IntArg(info, 5, "B"), H = IntArg(info, 6, "H"), Hkv = IntArg(info, 7, "Hkv");
  const int D = IntArg(info, 8, "D"), page_size = IntArg(info, 9, "pageSize"), num_pages = IntArg(info, 10, "numPages");
  const int max_pages = IntArg(info, 11, "maxPagesPerSeq");
  if (!info[12].IsNumber()) throw Napi::TypeError::New(info.Env(), "scale must be a number");
  const float scale2 = info[12].As<Napi::Number>().FloatValue() * cm::kLog2e;
  const int requested = IntArg(info, 13, "partitionTokens"), lanes = IntArg(info, 14, "lanes"), chunk = IntArg(info, 15, "chunk");
  if (B < 1 || H < 1 || Hkv < 1 || H % Hkv != 0 || D < 1 || page_size < 1 || num_pages < 1 || max_pages < 1 ||
      requested < 1 || lanes < 1 || chunk < 1) {
    throw Napi::RangeError::New(info.Env(), "bad shape");
  }
  auto q = ArrayArg<float>(info, 0, "q", static_cast<size_t>(B) * H * D);
  const size_t pool = static_cast<size_t>(num_pages) * page_size * Hkv * D;
  auto kp = ArrayArg<float>(info, 1, "kPool", pool);
  auto vp = ArrayArg<float>(info, 2, "vPool", pool);
  auto table = ArrayArg<int32_t>(info, 3, "blockTable", static_cast<size_t>(B) * max_pages);
  auto lens = ArrayArg<int32_t>(info, 4, "contextLens", B);
  int max_ctx = 1;
  for (int b = 0; b < B; ++b) {
    if (lens[b] < 0 || lens[b] > max_pages * page_size) throw Napi::RangeError::New(info.Env(), "contextLens out of range");
    max_ctx = cm::max_int(max_ctx, lens[b]);
  }
  const cm::DecodeSplitPlan plan = cm::plan_decode_splits(1, max_ctx, 1, requested);
  auto o = Napi::Float32Array::New(info.Env(), static_cast<size_t>(B) * H * D);
  auto lse = Napi::Float32Array::New(info.Env(), static_cast<size_t>(B) * H);
  std::vector<float> part_lse(plan.num_splits), part_o(static_cast<size_t>(plan.num_splits) * D);
  std::vector<cm::SoftmaxState> st(lanes);
  std::vector<float> acc(static_cast<size_t>(lanes) * D), s(chunk), vals(static_cast<size_t>(chunk) * D);
  for (int b = 0; b < B; ++b) {
    for (int h = 0; h < H; ++h) {
      const int hk = h / (H / Hkv);
      const float* qh = &q[(static_cast<size_t>(b) * H + h) * D];
      for (int split = 0; split < plan.num_splits; ++split) {
        const cm::KeyRange r = cm::decode_partition(split, plan.partition_tokens, lens[b]);
        for (int g = 0; g < lanes; ++g) {
          st[g] = cm::softmax_init();
          std::fill(acc.begin() + static_cast<size_t>(g) * D, acc.begin() + static_cast<size_t>(g + 1) * D, 0.f);
        }
        for (int t0 = r.begin, run = 0; t0 < r.end; t0 += chunk, ++run) {
          const int g = run % lanes, n = cm::min_int(chunk, r.end - t0);
          for (int j = 0; j < n; ++j) {
            const int64_t off = cm::paged_kv_offset(table.Data(), max_pages, b, t0 + j, page_size, Hkv, D, hk);
            s[j] = scale2 * Dot(qh, kp.Data() + off, D);
            for (int d = 0; d < D; ++d) vals[static_cast<size_t>(j) * D + d] = vp.Data()[off + d];
          }
          FoldKeys(s.data(), vals.data(), D, 0, n, n, st[g], &acc[static_cast<size_t>(g) * D]);
        }
        for (int g = 1; g < lanes; ++g) {
          float a0, a1;
          cm::softmax_merge(st[0], st[g], a0, a1);
          for (int d = 0; d < D; ++d) acc[d] = acc[d] * a0 + acc[static_cast<size_t>(g) * D + d] * a1;
        }
        const float inv = cm::softmax_inv_sum(st[0]);
        for (int d = 0; d < D; ++d) part_o[static_cast<size_t>(split) * D + d] = acc[d] * inv;
        part_lse[split] = cm::softmax_lse(st[0]);
      }
      const float total = cm::lse_merge(part_lse.data(), plan.num_splits, 1);
      for (int d = 0; d < D; ++d) {
        float sum = 0.f;
        for (int split = 0; split < plan.num_splits; ++split)
          sum += cm::lse_weight(part_lse[split], total) * part_o[static_cast<size_t>(split) * D + d];
        o[(static_cast<size_t>(b) * H + h) * D + d] = sum;
      }
      lse[static_cast<size_t>(b) * H + h] = total;
    }
  }
  auto out = Napi::Object::New(info.Env());
  out.Set("o", o);
  out.Set("lse", lse);
  out.Set("partitionTokens", plan.partition_tokens);
  out.Set("numSplits", plan.num_splits);
  return out;
}

}  // namespace

Napi::Object InitCudaHostChecks(Napi::Env env, Napi::Object exports) {
  auto checks = Napi::Object::New(env);
  checks.Set("pagedKvOffset", Napi::Function::New(env, PagedKvOffset));
  checks.Set("visibleKeys", Napi::Function::New(env, VisibleKeys));
  checks.Set("keyTiles", Napi::Function::New(env, KeyTiles));
  checks.Set("planDecodeSplits", Napi::Function::New(env, PlanDecodeSplits));
  checks.Set("decodePartition", Napi::Function::New(env, DecodePartition));
  checks.Set("mergePartitions", Napi::Function::New(env, MergePartitions));
  checks.Set("lseAdd", Napi::Function::New(env, LseAdd));
  checks.Set("emulateFlashForward", Napi::Function::New(env, EmulateFlashForward));
  checks.Set("emulatePagedDecode", Napi::Function::New(env, EmulatePagedDecode));
  exports.Set("cudaHostChecks", checks);
  return exports;
}
