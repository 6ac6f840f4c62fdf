#include "cpu/sgemm_avx512.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>

#include "cpu/vec.h"  // TG_TARGET_AVX512

namespace tg::cpu {

// Note [A matrix product of our own]
// Float products ran on OpenBLAS 0.3.21's SkylakeX sgemm (one thread, on tensorgen's pool:
// Note [One thread pool], blas_gemm.cpp), which LibTorch's MKL / oneDNN beat on every product
// of bench_compare, most on small ones (32 products 128x64 @ 64x128 in an attention einsum),
// where OpenBLAS's call and packing overhead is a large part of the time. This is the GotoBLAS /
// BLIS scheme, written for AVX-512F:
// - The micro-kernel keeps a kMR x kNR tile of c in zmm registers (kMR rows of kNV vectors of
//   16 floats) and, for each p of a block of k, loads kNV vectors of b's row p and multiplies
//   them by each of kMR elements of a's column p, broadcast from memory. 14 x 32 (28
//   accumulators, 2 vectors of b, 30 of the 32 registers) measured fastest here of 14 x 32,
//   12 x 32, 8 x 32, 8 x 48, 6 x 64 and 16 x 16 (docs/cpu-kernels.md has the figures); other
//   heights serve shapes that 14 rows fit badly (Note [Choosing the tile]).
// - Packing copies a kMC x kKC block of op(a) into panels of kMR rows (the kMR elements of one
//   column p side by side), and a kKC x kNC block of op(b) into panels of kNR columns, so that
//   the micro-kernel reads both as consecutive memory whatever the transposes and leading
//   dimensions. Transposed layouts are packed through 16 x 16 in-register transposes.
// - Blocking: a b panel (kKC x 32 floats, 32 KiB) stays in L1 (48 KiB here) while the
//   micro-kernel runs down the a block (up to kMaxMC x kKC, 336 KiB) in L2 (2 MiB per core);
//   the b block (kKC x kMaxNC, 2 MiB) is read from L2 / L3 once per a block. The tile
//   prefetches its rows of c while it runs (5% on 1024^3).
// - Edges: a's packed panels are zero past the last row (the tile computes them and does not
//   store them); columns past the last are masked in b's loads and in c's loads and stores, so
//   nothing outside the operands is read or written.
// - c = alpha * acc + beta * c on the first block of k (beta == 0 never reads c, which may hold
//   NaN: BLAS's rule), c += alpha * acc on the later ones. alpha == 0 or k == 0 only scales c.
//
// Note [Same bits however the product is cut]
// blas_gemm cuts a product into blocks of rows or columns over threads (gemm_split). Every
// element of c here is one chain of FMAs over p in order, cut into the same kKC-blocks of k
// whatever m and n are, by code that does not depend on where the element lies in its tile
// (edges mask loads and stores, they do not change the arithmetic). So a block computed alone
// equals that block of the whole product: the result does not depend on the thread count, and
// eager and a static graph, which call this same function, agree bit for bit.
namespace {

// The deepest untransposed b read in place (Note [Reading b in place]).
constexpr int64_t kMaxInPlaceK = 64;
// The same block of k for every tile shape: Note [Same bits however the product is cut].
constexpr int64_t kKC = 256;      // a b panel of kKC x 32 floats fills 2/3 of L1
constexpr int64_t kMaxMC = 336;   // rows of the packed a block (L2)
constexpr int64_t kMaxNC = 2048;  // columns of the packed b block

#define TG_SGEMM_INLINE __attribute__((always_inline)) TG_TARGET_AVX512 inline

// The first `count` lanes of 16 (none for count <= 0).
TG_SGEMM_INLINE __mmask16 lanes(int64_t count) {
  return count <= 0 ? __mmask16{0} : count >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << count) - 1);
}

// The shuffles through their merge-masked forms with every lane taken: the plain forms pass
// _mm512_undefined_*(), which GCC 12's -Wmaybe-uninitialized reports (an error with -Werror).
TG_SGEMM_INLINE __m512 unpacklo_ps(__m512 x, __m512 y) { return _mm512_mask_unpacklo_ps(x, 0xFFFF, x, y); }
TG_SGEMM_INLINE __m512 unpackhi_ps(__m512 x, __m512 y) { return _mm512_mask_unpackhi_ps(x, 0xFFFF, x, y); }
TG_SGEMM_INLINE __m512 unpacklo_pd(__m512 x, __m512 y) {
  const __m512d xd = _mm512_castps_pd(x);
  return _mm512_castpd_ps(_mm512_mask_unpacklo_pd(xd, 0xFF, xd, _mm512_castps_pd(y)));
}
TG_SGEMM_INLINE __m512 unpackhi_pd(__m512 x, __m512 y) {
  const __m512d xd = _mm512_castps_pd(x);
  return _mm512_castpd_ps(_mm512_mask_unpackhi_pd(xd, 0xFF, xd, _mm512_castps_pd(y)));
}
#define TG_SGEMM_SHUFFLE_LANES(x, y, imm) _mm512_mask_shuffle_f32x4((x), 0xFFFF, (x), (y), (imm))

// Transposes the 16 x 16 matrix whose row i is r[i]: afterwards r[j] holds former column j.
TG_SGEMM_INLINE void transpose16(__m512 r[16]) {
  __m512 t[16];
  for (int i = 0; i < 8; ++i) {  // lane L of t[2i]: rows 2i, 2i+1 of columns 4L, 4L+1 (t[2i+1]: 4L+2, 4L+3)
    t[2 * i] = unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  __m512 u[16];
  for (int g = 0; g < 4; ++g) {  // lane L of u[4g + q]: rows 4g..4g+3 of column 4L + q
    u[4 * g] = unpacklo_pd(t[4 * g], t[4 * g + 2]);
    u[4 * g + 1] = unpackhi_pd(t[4 * g], t[4 * g + 2]);
    u[4 * g + 2] = unpacklo_pd(t[4 * g + 1], t[4 * g + 3]);
    u[4 * g + 3] = unpackhi_pd(t[4 * g + 1], t[4 * g + 3]);
  }
  for (int q = 0; q < 4; ++q) {  // column 4L + q is lane L of u[q], u[4 + q], u[8 + q], u[12 + q]
    const __m512 v01 = TG_SGEMM_SHUFFLE_LANES(u[q], u[4 + q], 0x44);
    const __m512 v23 = TG_SGEMM_SHUFFLE_LANES(u[q], u[4 + q], 0xEE);
    const __m512 w01 = TG_SGEMM_SHUFFLE_LANES(u[8 + q], u[12 + q], 0x44);
    const __m512 w23 = TG_SGEMM_SHUFFLE_LANES(u[8 + q], u[12 + q], 0xEE);
    r[q] = TG_SGEMM_SHUFFLE_LANES(v01, w01, 0x88);
    r[4 + q] = TG_SGEMM_SHUFFLE_LANES(v01, w01, 0xDD);
    r[8 + q] = TG_SGEMM_SHUFFLE_LANES(v23, w23, 0x88);
    r[12 + q] = TG_SGEMM_SHUFFLE_LANES(v23, w23, 0xDD);
  }
}

// Packs rows [0, mc) x columns [0, kc) of op(a) (a points at the block's first element) into
// panels of kMR rows: element (r * kMR + i, p) at dst[r * kMR * kc + p * kMR + i], rows past mc
// zero.
template <int kMR>
TG_TARGET_AVX512 void pack_a(bool trans, const float* a, int64_t lda, int64_t mc, int64_t kc, float* dst) {
  static_assert(kMR <= 16, "a panel's column is one vector");
  const __mmask16 tile_rows = lanes(kMR);
  for (int64_t r0 = 0; r0 < mc; r0 += kMR, dst += kMR * kc) {
    const int64_t rows = std::min<int64_t>(kMR, mc - r0);
    if (trans) {  // op(a)(i, p) = a[p * lda + i]: kMR consecutive floats per p
      const __mmask16 valid = lanes(rows);
      for (int64_t p = 0; p < kc; ++p) {
        _mm512_mask_storeu_ps(dst + p * kMR, tile_rows, _mm512_maskz_loadu_ps(valid, a + p * lda + r0));
      }
      continue;
    }
    // op(a)(i, p) = a[i * lda + p]: 16 x 16 blocks, transposed.
    const float* rows_start = a + r0 * lda;
    for (int64_t p0 = 0; p0 < kc; p0 += 16) {
      const int64_t count = std::min<int64_t>(16, kc - p0);
      const __mmask16 valid = lanes(count);
      __m512 t[16];
      for (int i = 0; i < 16; ++i) {
        t[i] = i < rows ? _mm512_maskz_loadu_ps(valid, rows_start + i * lda + p0) : _mm512_setzero_ps();
      }
      transpose16(t);
      for (int64_t q = 0; q < count; ++q) _mm512_mask_storeu_ps(dst + (p0 + q) * kMR, tile_rows, t[q]);
    }
  }
}

// Packs rows [0, kc) x columns [0, nc) of op(b) (b points at the block's first element) into
// panels of kNR columns: element (p, s * kNR + j) at dst[s * kNR * kc + p * kNR + j], columns
// past nc zero.
template <int kNV>
TG_TARGET_AVX512 void pack_b(bool trans, const float* b, int64_t ldb, int64_t kc, int64_t nc, float* dst) {
  constexpr int kNR = 16 * kNV;
  for (int64_t s0 = 0; s0 < nc; s0 += kNR, dst += kNR * kc) {
    const int64_t cols = std::min<int64_t>(kNR, nc - s0);
    if (!trans) {  // op(b)(p, j) = b[p * ldb + j]: rows of consecutive floats
      for (int64_t p = 0; p < kc; ++p) {
        for (int v = 0; v < kNV; ++v) {
          const __m512 row = _mm512_maskz_loadu_ps(lanes(cols - 16 * v), b + p * ldb + s0 + 16 * v);
          _mm512_storeu_ps(dst + p * kNR + 16 * v, row);
        }
      }
      continue;
    }
    // op(b)(p, j) = b[j * ldb + p]: 16 x 16 blocks, transposed.
    for (int v = 0; v < kNV; ++v) {
      const int64_t first = s0 + 16 * v, valid_cols = cols - 16 * v;
      for (int64_t p0 = 0; p0 < kc; p0 += 16) {
        const int64_t count = std::min<int64_t>(16, kc - p0);
        const __mmask16 valid = lanes(count);
        __m512 t[16];
        for (int j = 0; j < 16; ++j) {
          t[j] = j < valid_cols ? _mm512_maskz_loadu_ps(valid, b + (first + j) * ldb + p0) : _mm512_setzero_ps();
        }
        transpose16(t);
        for (int64_t q = 0; q < count; ++q) _mm512_storeu_ps(dst + (p0 + q) * kNR + 16 * v, t[q]);
      }
    }
  }
}

// The register tile: acc(i, j) = sum over p < kc of a[p * kMR + i] * b[p * b_step + j] (a
// packed panel), then c = alpha * acc + beta * c (first block of k) or c += alpha * acc, for the
// first `rows` rows and `cols` columns of the tile.
// kInPlace: b is op(b) itself, row p at b + p * b_step, its columns past `cols` masked off,
// and with kAInPlace a is op(a) itself, untransposed, row i at a + i * lda (Note [Reading b
// in place]); else packed panels, b_step = kNR.
// With kRowTable (and kInPlace), row p of b is at b + b_rows[p] instead.
template <int kMR, int kNV, bool kInPlace, bool kAInPlace = false, bool kRowTable = false>
TG_TARGET_AVX512 void micro_tile(int64_t kc, const float* a, int64_t lda, const float* b, int64_t b_step,
                                 const int64_t* b_rows, int64_t rows, int64_t cols, float alpha, float beta,
                                 bool first, float* c, int64_t ldc) {
  __mmask16 mask[kNV];
  for (int v = 0; v < kNV; ++v) mask[v] = lanes(cols - 16 * v);
  // a's rows read in place; rows past the last repeat it (computed, never stored).
  const float* a_rows[kMR];
  for (int i = 0; i < kMR; ++i) a_rows[i] = a + std::min<int64_t>(i, rows - 1) * lda;
  __m512 acc[kMR][kNV];
#pragma GCC unroll 16
  for (int i = 0; i < kMR; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) acc[i][v] = _mm512_setzero_ps();
  }
  // c's tile is read (or written) after the loop: its lines are fetched meanwhile.
  for (int64_t i = 0; i < rows; ++i) {
    for (int v = 0; v < kNV; ++v) _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + 16 * v), _MM_HINT_T0);
  }
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p, b += b_step) {
    const float* b_row = kRowTable ? b + b_rows[p] : b;
    __m512 bv[kNV];
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) {
      bv[v] = kInPlace ? _mm512_maskz_loadu_ps(mask[v], b_row + 16 * v) : _mm512_loadu_ps(b_row + 16 * v);
    }
#pragma GCC unroll 16
    for (int i = 0; i < kMR; ++i) {
      const __m512 ai = _mm512_set1_ps(kAInPlace ? a_rows[i][p] : a[p * kMR + i]);
#pragma GCC unroll 4
      for (int v = 0; v < kNV; ++v) acc[i][v] = _mm512_fmadd_ps(ai, bv[v], acc[i][v]);
    }
  }
  const __m512 alphas = _mm512_set1_ps(alpha), betas = _mm512_set1_ps(beta);
  const bool read_c = !first || beta != 0.0f;
#pragma GCC unroll 16
  for (int i = 0; i < kMR; ++i) {
    if (i >= rows) break;
    float* row = c + i * ldc;
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) {
      __m512 result = _mm512_mul_ps(alphas, acc[i][v]);
      if (read_c) {
        const __m512 old = _mm512_maskz_loadu_ps(mask[v], row + 16 * v);
        result = first ? _mm512_fmadd_ps(betas, old, result) : _mm512_add_ps(old, result);
      }
      _mm512_mask_storeu_ps(row + 16 * v, mask[v], result);
    }
  }
}

// c = beta * c (beta == 0: zeros, c not read).
void scale_c(int64_t m, int64_t n, float beta, float* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    float* row = c + i * ldc;
    for (int64_t j = 0; j < n; ++j) row[j] = beta == 0.0f ? 0.0f : beta * row[j];
  }
}

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};

// The packed blocks of this thread, allocated on its first product and kept.
struct PackBuffers {
  std::unique_ptr<float, FreeDeleter> a, b;
  PackBuffers()
      : a(static_cast<float*>(std::aligned_alloc(64, sizeof(float) * kMaxMC * kKC))),
        b(static_cast<float*>(std::aligned_alloc(64, sizeof(float) * kMaxNC * kKC))) {
    if (a == nullptr || b == nullptr) throw std::bad_alloc();  // as a failed new would
  }
};

PackBuffers& pack_buffers() {
  thread_local PackBuffers buffers;
  return buffers;
}


// Note [Reading b in place]
// Packing b pays when its panels are read by many a panels, from L1, in a long product. A
// small product with b untransposed, k <= kMaxInPlaceK and one a block (m <= kMC), reads b's
// rows where they are instead: each row of b is read by each a panel from L1 after its first
// touch, and the copy is saved. Deeper b is packed: its rows at a leading dimension of a
// multiple of 1024 floats all fall in the same L1 sets, and a 128 x 1024 x 256 product read in
// place ran 5-15% slower than packed. With 8-row tiles an untransposed a is read in place too:
// the 8 row pointers fit in registers (14 do not), and its packing had been 6-8% of the
// kernel-shift convolution's 64 x 128 x 32 products. A product whose b rows come from a table
// (sgemm_avx512_row_table) is always read in place. The FMAs are the same either way, so the
// choice changes no bit.

// The whole product with kMR x (16 * kNV) register tiles (Note [A matrix product of our own]).
// b_rows: nullptr, or the row table of sgemm_avx512_row_table (trans_b false, ldb unused).
template <int kMR, int kNV>
TG_TARGET_AVX512 void blocked_product(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                                      const float* a, int64_t lda, const float* b, int64_t ldb,
                                      const int64_t* b_rows, float beta, float* c, int64_t ldc) {
  constexpr int64_t kNR = 16 * kNV;
  constexpr int64_t kMC = kMaxMC / kMR * kMR;  // whole panels
  constexpr int64_t kNC = kMaxNC / kNR * kNR;
  PackBuffers& buffers = pack_buffers();
  float* packed_a = buffers.a.get();
  float* packed_b = buffers.b.get();
  // Note [Reading b in place]
  const bool in_place = b_rows != nullptr || (!trans_b && m <= kMC && k <= kMaxInPlaceK);
  const bool a_in_place = in_place && !trans_a && kMR <= 8;
  for (int64_t jc = 0; jc < n; jc += kNC) {
    const int64_t nc = std::min(kNC, n - jc);
    for (int64_t pc = 0; pc < k; pc += kKC) {
      const int64_t kc = std::min(kKC, k - pc);
      const float* b_block = b_rows != nullptr ? b + jc : trans_b ? b + jc * ldb + pc : b + pc * ldb + jc;
      const int64_t* rows_block = b_rows != nullptr ? b_rows + pc : nullptr;
      if (!in_place) pack_b<kNV>(trans_b, b_block, ldb, kc, nc, packed_b);
      for (int64_t ic = 0; ic < m; ic += kMC) {
        const int64_t mc = std::min(kMC, m - ic);
        const float* a_block = trans_a ? a + pc * lda + ic : a + ic * lda + pc;
        if (!a_in_place) pack_a<kMR>(trans_a, a_block, lda, mc, kc, packed_a);
        for (int64_t jr = 0; jr < nc; jr += kNR) {
          const int64_t cols = std::min<int64_t>(kNR, nc - jr);
          for (int64_t ir = 0; ir < mc; ir += kMR) {
            const int64_t rows = std::min<int64_t>(kMR, mc - ir);
            float* c_tile = c + (ic + ir) * ldc + jc + jr;
            const bool first = pc == 0;
            if (rows_block != nullptr && a_in_place) {
              micro_tile<kMR, kNV, true, true, true>(kc, a_block + ir * lda, lda, b_block + jr, 0, rows_block, rows,
                                                     cols, alpha, beta, first, c_tile, ldc);
            } else if (rows_block != nullptr) {
              micro_tile<kMR, kNV, true, false, true>(kc, packed_a + ir * kc, kMR, b_block + jr, 0, rows_block, rows,
                                                      cols, alpha, beta, first, c_tile, ldc);
            } else if (a_in_place) {
              micro_tile<kMR, kNV, true, true>(kc, a_block + ir * lda, lda, b_block + jr, ldb, nullptr, rows, cols,
                                               alpha, beta, first, c_tile, ldc);
            } else if (in_place) {
              micro_tile<kMR, kNV, true>(kc, packed_a + ir * kc, kMR, b_block + jr, ldb, nullptr, rows, cols, alpha,
                                         beta, first, c_tile, ldc);
            } else {
              micro_tile<kMR, kNV, false>(kc, packed_a + ir * kc, kMR, packed_b + jr * kc, kNR, nullptr, rows, cols,
                                          alpha, beta, first, c_tile, ldc);
            }
          }
        }
      }
    }
  }
}

// Note [Choosing the tile]
// 14 x 32 tiles run fastest on large products, but a tile computes all its rows and columns
// whatever the edge keeps: m = 32 in 14-row tiles computes 42 rows, n = 10 in 32-column tiles
// 32 columns. So n <= 16 takes 16 x 16 tiles, and m takes the tile height, of 14, 12 and 8,
// that wastes least, weighed by what each height runs at on a large product (14 x 32: 100%,
// 12 x 32: 99%, 8 x 32: 92%, measured with bench: docs/cpu-kernels.md). Every tile computes
// an element by the same chain of FMAs (Note [Same bits however the product is cut]), so the
// choice, which a block of the cut may make differently from the whole, changes no bit.
enum class Tile { k14x32, k12x32, k8x32, k16x16 };

Tile tile_for(int64_t m, int64_t n) {
  if (n <= 16) return Tile::k16x16;
  struct Height {
    Tile tile;
    int64_t rows;
    double speed;
  };
  constexpr Height kHeights[] = {{Tile::k14x32, 14, 1.0}, {Tile::k12x32, 12, 0.99}, {Tile::k8x32, 8, 0.92}};
  Tile best = Tile::k14x32;
  double best_rate = 0;
  for (const Height& h : kHeights) {
    const int64_t computed = (m + h.rows - 1) / h.rows * h.rows;
    const double rate = h.speed * static_cast<double>(m) / static_cast<double>(computed);
    if (rate > best_rate) {
      best = h.tile;
      best_rate = rate;
    }
  }
  return best;
}

// Runs the product in the tile chosen for its shape (Note [Choosing the tile]).
void dispatch(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
              const float* b, int64_t ldb, const int64_t* b_rows, float beta, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0 || alpha == 0.0f) {
    scale_c(m, n, beta, c, ldc);
    return;
  }
  switch (tile_for(m, n)) {
    case Tile::k16x16:
      return blocked_product<16, 1>(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, b_rows, beta, c, ldc);
    case Tile::k8x32:
      return blocked_product<8, 2>(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, b_rows, beta, c, ldc);
    case Tile::k12x32:
      return blocked_product<12, 2>(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, b_rows, beta, c, ldc);
    case Tile::k14x32:
      break;
  }
  blocked_product<14, 2>(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, b_rows, beta, c, ldc);
}

}  // namespace

void sgemm_avx512(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                  int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  dispatch(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, nullptr, beta, c, ldc);
}

void sgemm_avx512_row_table(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                            const float* b, const int64_t* b_rows, float beta, float* c, int64_t ldc) {
  dispatch(false, false, m, n, k, alpha, a, lda, b, 0, b_rows, beta, c, ldc);
}

}  // namespace tg::cpu
