// Runs the real CUDA kernel source (native/cuda/src/flash_fwd.cuh, paged_decode.cuh,
// paged_decode_mma.cuh) on the CPU under the emulation in this folder and compares it with an
// fp64 reference on small odd shapes: it checks the index math (fragment layouts, swizzle,
// tiles, masks, pages, splits, merges) and the cp.async group accounting (a copy lands only at
// the wait_group that covers it) where no GPU is at hand. Kernels, tile shapes and grids come
// from the same planners the GPU launchers call (dispatch_flash_fwd, dispatch_paged_decode). It
// cannot check races between threads of a block (they run between barriers in any order) or speed.
// Build and run: test/gpu/emulate/run.sh [substring of the case names to run].
#define ATTNSCOPE_CUDA_EMULATION 1

#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "flash_fwd_launch.cuh"
#include "paged_decode_launch.cuh"

emu::Block emu::g_block;
thread_local uint3 emu::t_thread_idx;
thread_local emu::CpAsyncQueue emu::t_cp_async;

namespace {

using namespace attnscope::cuda;

// Runs kernel() as every thread of every block of `grid`, one block at a time.
void run_grid(unsigned gx, unsigned gy, unsigned gz, int threads, size_t smem_bytes, const std::function<void()>& kernel) {
  std::vector<unsigned char> smem(smem_bytes + 128);
  emu::g_block.dynamic_smem = smem.data() + (128 - reinterpret_cast<uintptr_t>(smem.data()) % 128) % 128;
  emu::g_block.grid_dim = uint3{gx, gy, gz};
  emu::g_block.threads = threads;
  for (unsigned z = 0; z < gz; ++z) {
    for (unsigned y = 0; y < gy; ++y) {
      for (unsigned x = 0; x < gx; ++x) {
        emu::g_block.block_idx = uint3{x, y, z};
        emu::g_block.block_barrier.reset(threads);
        for (int w = 0; w < threads / 32; ++w) emu::g_block.warp_barrier[w].reset(32);
        std::memset(smem.data(), 0xff, smem.size());  // NaN-ish garbage: unwritten reads show
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t) {
          pool.emplace_back([t, &kernel] {
            emu::t_thread_idx = uint3{static_cast<unsigned>(t), 0, 0};
            kernel();
          });
        }
        for (auto& th : pool) th.join();
      }
    }
  }
}

// The Launch callback of dispatch_flash_fwd / dispatch_paged_decode: runs the planned kernel
// instance over the planned grid, blocks one after another (which is also a valid order for a
// programmatic dependent launch: the dependent kernel runs after the whole first grid).
struct EmulatedLaunch {
  template <typename Kernel, typename... Args>
  int operator()(Kernel kernel, const LaunchShape& shape, Args... args) const {
    run_grid(shape.grid.x, shape.grid.y, shape.grid.z, shape.threads, shape.smem_bytes, [&] { kernel(args...); });
    return 0;
  }
};

template <typename T>
T to_t(float x);
template <>
__half to_t<__half>(float x) { return __float2half_rn(x); }
template <>
__nv_bfloat16 to_t<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }
double from_t(__half x) { return __half2float(x); }
double from_t(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T>
std::vector<T> random_tensor(size_t n, std::mt19937& gen) {
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<T> out(n);
  for (auto& x : out) x = to_t<T>(dist(gen));
  return out;
}

bool visible(int i, int j, int nq, int nk, bool causal, int window_left) {
  const int diag = i + nk - nq;
  if (causal && j > diag) return false;
  if (window_left >= 0 && j < diag - window_left) return false;
  return true;
}

// fp64 softmax(scale q.k) v over the keys `keys` (pointers to rows of D elements).
template <typename T>
void reference_row(const T* q, const std::vector<const T*>& keys, const std::vector<const T*>& values, int D,
                   double scale, std::vector<double>& o, double& lse) {
  o.assign(D, 0.0);
  if (keys.empty()) {
    lse = -INFINITY;
    return;
  }
  std::vector<double> s(keys.size());
  double mx = -INFINITY;
  for (size_t j = 0; j < keys.size(); ++j) {
    double dot = 0;
    for (int d = 0; d < D; ++d) dot += from_t(q[d]) * from_t(keys[j][d]);
    s[j] = dot * scale;
    mx = std::max(mx, s[j]);
  }
  double sum = 0;
  for (double& x : s) sum += (x = std::exp(x - mx));
  for (size_t j = 0; j < keys.size(); ++j)
    for (int d = 0; d < D; ++d) o[d] += s[j] / sum * from_t(values[j][d]);
  lse = mx + std::log(sum);
}

struct Errors {
  double o = 0, lse = 0;
  bool masked_ok = true;
  bool tensor_cores = false;  // decode: the dispatch chose paged_decode_mma_kernel
};

void compare(double got, double ref, double& err) {
  if (std::isnan(got)) {
    err = INFINITY;
    return;
  }
  if (got == ref) return;
  err = std::max(err, std::abs(got - ref));
}

template <typename T, int D>
// key_ramp > 0 scales key j by (1 + key_ramp * j), so the scores' running max keeps rising from
// tile to tile by far more than rounding: every tile rescales O (a wrong alpha shows at once).
Errors check_flash(int B, int Nq, int Nk, int H, int Hkv, bool causal, int window_left, unsigned seed,
                   float key_ramp = 0.f) {
  std::mt19937 gen(seed);
  auto q = random_tensor<T>(size_t(B) * Nq * H * D, gen);
  auto k = random_tensor<T>(size_t(B) * Nk * Hkv * D, gen);
  for (size_t i = 0; key_ramp > 0.f && i < k.size(); ++i) {
    const size_t j = i / (size_t(Hkv) * D) % Nk;  // k is [B, Nk, Hkv, D]
    k[i] = to_t<T>(float(from_t(k[i])) * (1.f + key_ramp * float(j)));
  }
  auto v = random_tensor<T>(size_t(B) * Nk * Hkv * D, gen);
  std::vector<T> o(q.size(), to_t<T>(NAN));
  std::vector<float> lse(size_t(B) * H * Nq, NAN);
  attnscope_cuda_flash_params p{};
  p.q = q.data();
  p.k = k.data();
  p.v = v.data();
  p.o = o.data();
  p.lse = lse.data();
  p.batch = B;
  p.seq_len_q = Nq;
  p.seq_len_k = Nk;
  p.num_heads = H;
  p.num_kv_heads = Hkv;
  p.head_dim = D;
  p.causal = causal;
  p.window_left = window_left;
  p.softmax_scale = 1.f / std::sqrt(float(D));
  p.dtype = std::is_same<T, __nv_bfloat16>::value ? ATTNSCOPE_CUDA_BF16 : ATTNSCOPE_CUDA_FP16;
  dispatch_flash_fwd<typename FlashFwdConfig<D>::Traits>(p, EmulatedLaunch{});
  Errors e;
  std::vector<double> ro;
  double rl;
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < Nq; ++i) {
        const int hk = h / (H / Hkv);
        std::vector<const T*> keys, values;
        for (int j = 0; j < Nk; ++j) {
          if (!visible(i, j, Nq, Nk, causal, window_left)) continue;
          keys.push_back(&k[((size_t(b) * Nk + j) * Hkv + hk) * D]);
          values.push_back(&v[((size_t(b) * Nk + j) * Hkv + hk) * D]);
        }
        const size_t row = (size_t(b) * Nq + i) * H + h;
        reference_row(&q[row * D], keys, values, D, p.softmax_scale, ro, rl);
        for (int d = 0; d < D; ++d) compare(from_t(o[row * D + d]), ro[d], e.o);
        const float got_lse = lse[(size_t(b) * H + h) * Nq + i];
        if (rl == -INFINITY) e.masked_ok &= got_lse == -INFINITY;
        else compare(got_lse, rl, e.lse);
      }
  return e;
}

template <typename T, int D>
Errors check_decode(const std::vector<int>& lens, int page_size, int H, int Hkv, int partition_tokens, unsigned seed) {
  std::mt19937 gen(seed);
  const int B = static_cast<int>(lens.size());
  int max_ctx = 0;
  for (int l : lens) max_ctx = std::max(max_ctx, l);
  const int max_pages = std::max(1, ceil_div(max_ctx, page_size));
  const int num_pages = B * max_pages + 2;
  std::vector<int32_t> perm(num_pages);
  for (int i = 0; i < num_pages; ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), gen);
  std::vector<int32_t> table(perm.begin(), perm.begin() + B * max_pages);
  const size_t pool = size_t(num_pages) * page_size * Hkv * D;
  auto kp = random_tensor<T>(pool, gen);
  auto vp = random_tensor<T>(pool, gen);
  auto q = random_tensor<T>(size_t(B) * H * D, gen);
  std::vector<T> o(q.size(), to_t<T>(NAN));
  std::vector<float> lse(size_t(B) * H, NAN);
  attnscope_cuda_decode_params p{};
  p.batch = B;
  p.num_heads = H;
  p.num_kv_heads = Hkv;
  // The GPU's planner, for a device that runs 6 split blocks at a time (partition_tokens 0 lets it choose).
  const DecodeSplitPlan plan = plan_decode_splits(decode_blocks_per_split(p), max_ctx, 6, partition_tokens);
  std::vector<float> workspace(size_t(B) * H * plan.num_splits * (D + 1), NAN);
  p.q = q.data();
  p.k_pool = kp.data();
  p.v_pool = vp.data();
  p.block_table = table.data();
  p.context_lens = lens.data();
  p.o = o.data();
  p.lse = lse.data();
  p.workspace = workspace.data();
  p.head_dim = D;
  p.page_size = page_size;
  p.num_pages = num_pages;
  p.max_pages_per_seq = max_pages;
  p.max_context_len = max_ctx;
  p.partition_tokens = partition_tokens;
  p.softmax_scale = 1.f / std::sqrt(float(D));
  p.dtype = std::is_same<T, __nv_bfloat16>::value ? ATTNSCOPE_CUDA_BF16 : ATTNSCOPE_CUDA_FP16;
  dispatch_paged_decode(p, plan, EmulatedLaunch{});
  Errors e;
  e.tensor_cores = with_decode_kernel(p, [](auto kernel, int) {
    return reinterpret_cast<const void*>(kernel) == reinterpret_cast<const void*>(&paged_decode_mma_kernel<D, T>);
  });
  std::vector<double> ro;
  double rl;
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      const int hk = h / (H / Hkv);
      std::vector<const T*> keys, values;
      for (int t = 0; t < lens[b]; ++t) {
        const size_t off = ((size_t(table[b * max_pages + t / page_size]) * page_size + t % page_size) * Hkv + hk) * D;
        keys.push_back(&kp[off]);
        values.push_back(&vp[off]);
      }
      const size_t row = size_t(b) * H + h;
      reference_row(&q[row * D], keys, values, D, p.softmax_scale, ro, rl);
      for (int d = 0; d < D; ++d) compare(from_t(o[row * D + d]), ro[d], e.o);
      if (rl == -INFINITY) e.masked_ok &= lse[row] == -INFINITY;
      else compare(lse[row], rl, e.lse);
    }
  return e;
}

int failures = 0;

// A decode case named "decode mma ..." must have run on tensor cores, any other on CUDA cores.
void report(const std::string& what, const Errors& e, double tol) {
  const bool is_decode = what.rfind("decode", 0) == 0;
  const bool path_ok = !is_decode || e.tensor_cores == (what.rfind("decode mma", 0) == 0);
  const bool ok = e.o < tol && e.lse < 1e-3 && e.masked_ok && path_ok;
  std::printf("%-66s O err %.2e  lse err %.2e  %s%s\n", what.c_str(), e.o, e.lse, ok ? "ok" : "FAIL",
              path_ok ? "" : " (ran on the other decode path)");
  if (!ok) ++failures;
}

}  // namespace

// argv[1], when given, runs only the cases whose name contains it (test/gpu/emulate/mutate_waits.sh).
int main(int argc, char** argv) {
  const std::string filter = argc > 1 ? argv[1] : "";
  const double bf16_tol = 1.5e-2, fp16_tol = 3e-3;
  const struct {
    const char* name;
    std::function<Errors()> run;
    double tol;
  } cases[] = {
      {"flash bf16 D64  B1 Nq1   Nk1   H1/1  non-causal", [] { return check_flash<__nv_bfloat16, 64>(1, 1, 1, 1, 1, false, -1, 1); }, bf16_tol},
      {"flash fp16 D64  B2 Nq77  Nk131 H2/1  causal", [] { return check_flash<__half, 64>(2, 77, 131, 2, 1, true, -1, 2); }, fp16_tol},
      {"flash bf16 D128 B1 Nq200 Nk130 H2/1  causal (70 rows see nothing)", [] { return check_flash<__nv_bfloat16, 128>(1, 200, 130, 2, 1, true, -1, 3); }, bf16_tol},
      {"flash fp16 D128 B1 Nq129 Nk257 H1/1  non-causal", [] { return check_flash<__half, 128>(1, 129, 257, 1, 1, false, -1, 4); }, fp16_tol},
      {"flash bf16 D128 B1 Nq150 Nk190 H2/2  causal, window_left 32", [] { return check_flash<__nv_bfloat16, 128>(1, 150, 190, 2, 2, true, 32, 5); }, bf16_tol},
      {"flash bf16 D128 B1 Nq70  Nk300 H1/1  non-causal, keys ramped (the max rises every tile)", [] { return check_flash<__nv_bfloat16, 128>(1, 70, 300, 1, 1, false, -1, 19, 0.25f); }, bf16_tol},
      {"flash fp16 D64  B1 Nq40  Nk300 H1/1  non-causal, window_left 20", [] { return check_flash<__half, 64>(1, 40, 300, 1, 1, false, 20, 6); }, fp16_tol},
      // CUDA cores (GQA group <= 2).
      {"decode bf16 D128 page 16  lens 1,0,37,300  H4/2  one partition", [] { return check_decode<__nv_bfloat16, 128>({1, 0, 37, 300}, 16, 4, 2, 320, 7); }, bf16_tol},
      {"decode bf16 D128 page 16  lens 1,0,37,300  H4/2  partitions of 64", [] { return check_decode<__nv_bfloat16, 128>({1, 0, 37, 300}, 16, 4, 2, 64, 8); }, bf16_tol},
      {"decode fp16 D64  page 8   lens 513,9       H4/4  partitions of 96", [] { return check_decode<__half, 64>({513, 9}, 8, 4, 4, 96, 9); }, fp16_tol},
      {"decode fp16 D64  page 3   lens 1500        H4/2  partitions of 1024 (page windows)", [] { return check_decode<__half, 64>({1500}, 3, 4, 2, 1024, 13); }, fp16_tol},
      // Tensor cores (group > 2): heads as the MMA's 16 rows, zero rows past the group, chunks of 16.
      {"decode mma bf16 D128 page 16  lens 1,0,37,300  H8/2  partitions of 64 (group 4)", [] { return check_decode<__nv_bfloat16, 128>({1, 0, 37, 300}, 16, 8, 2, 64, 18); }, bf16_tol},
      {"decode mma bf16 D128 page 256 lens 700,257   H16/2 partitions of 256", [] { return check_decode<__nv_bfloat16, 128>({700, 257}, 256, 16, 2, 256, 10); }, bf16_tol},
      {"decode mma fp16 D64  page 5   lens 203       H12/1 partitions of 30", [] { return check_decode<__half, 64>({203}, 5, 12, 1, 30, 11); }, fp16_tol},
      {"decode mma fp16 D64  page 16  lens 1000,3    H8/1  planned partitions", [] { return check_decode<__half, 64>({1000, 3}, 16, 8, 1, 0, 12); }, fp16_tol},
      {"decode mma bf16 D128 page 16  lens 0,1,77,600 H16/1 partitions of 200", [] { return check_decode<__nv_bfloat16, 128>({0, 1, 77, 600}, 16, 16, 1, 200, 14); }, bf16_tol},
      {"decode mma fp16 D64  page 7   lens 1100      H32/1 one partition (page windows, 2 chunks)", [] { return check_decode<__half, 64>({1100}, 7, 32, 1, 1100, 15); }, fp16_tol},
      {"decode mma fp16 D128 page 8   lens 333,45    H10/2 partitions of 96 (group 5)", [] { return check_decode<__half, 128>({333, 45}, 8, 10, 2, 96, 16); }, fp16_tol},
      {"decode mma bf16 D64  page 32  lens 2000,1    H56/8 planned partitions (group 7)", [] { return check_decode<__nv_bfloat16, 64>({2000, 1}, 32, 56, 8, 0, 17); }, bf16_tol},
  };
  int ran = 0;
  for (const auto& c : cases) {
    if (std::string(c.name).find(filter) == std::string::npos) continue;
    report(c.name, c.run(), c.tol);
    ++ran;
  }
  if (ran == 0) {
    std::printf("FAIL: no case matches \"%s\"\n", filter.c_str());
    return 2;
  }
  std::printf("%s: %d of %d case(s) failed\n", failures == 0 ? "PASS" : "FAIL", failures, ran);
  return failures == 0 ? 0 : 1;
}
