#include "codegen/cpu/prelude.h"

#include <string>

namespace xtune::cpu {

const char kKernelSystemHeaders[] =
    "#include <stdint.h>\n#include <string.h>\n#include <math.h>\n"
    "#include <stdlib.h>\n#if defined(__x86_64__) && defined(__clang__)\n"
    "#include <immintrin.h>\n#endif\n";

// GCC's constant-propagation clones (-fipa-cp-clone, on at -O3) copied a
// bf16 gemm's block task, its hottest and largest function, twice more:
// a third of its compile, for no measured change in run time (the model
// of bench/tuning_cost ran 0.337 ms either way).
const char kNoConstantClones[] =
    "#if defined(__GNUC__) && !defined(__clang__)\n"
    "#pragma GCC optimize(\"no-ipa-cp-clone\")\n"
    "#endif\n";

const char kKernelPrelude[] = R"cc(
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <stdlib.h>

// The ABI between the xtune runtime and a generated kernel.
struct XtContext {
  // Runs fn(arg, 0..n-1) on up to max_threads threads and returns when all
  // are done.
  void (*parallel_for)(void* pool, int64_t n, int64_t max_threads,
                       void (*fn)(void*, int64_t), void* arg);
  void* pool;
  // cblas_sgemm with its enums passed as ints, and OpenBLAS's thread count
  // (used by library candidates only).
  void (*sgemm)(int order, int transa, int transb, int m, int n, int k,
                float alpha, const float* a, int lda, const float* b, int ldb,
                float beta, float* c, int ldc);
  void (*set_blas_threads)(int);
};

#define XT_INLINE static inline __attribute__((always_inline))

// What codegen/prelude/xt_scalar.h (appended by KernelHeader) builds on.
#define XT_DEVICE XT_INLINE
XT_INLINE uint32_t xt_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
XT_INLINE float xt_bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

// Scalar overloads of the helpers the math templates use.
XT_INLINE float xt_splat(float, float v) { return v; }
XT_INLINE int32_t xt_as_i(float x) { int32_t i; memcpy(&i, &x, 4); return i; }
XT_INLINE float xt_as_f(int32_t i) { float x; memcpy(&x, &i, 4); return x; }
XT_INLINE int32_t xt_cvt_i(float x) { return (int32_t)x; }
XT_INLINE float xt_cvt_f(int32_t i) { return (float)i; }
XT_INLINE float xt_sel(bool m, float a, float b) { return m ? a : b; }
XT_INLINE float xt_rint(float x) { return __builtin_rintf(x); }
XT_INLINE float xt_abs(float x) { return __builtin_fabsf(x); }
XT_INLINE float xt_sqrt(float x) { return __builtin_sqrtf(x); }
XT_INLINE float xt_floor(float x) { return __builtin_floorf(x); }
XT_INLINE float xt_ceil(float x) { return __builtin_ceilf(x); }
XT_INLINE float xt_round_afz(float x) { return __builtin_roundf(x); }
XT_INLINE bool xt_isnan(float x) { return x != x; }
XT_INLINE float xt_min_raw(float a, float b) { return a < b ? a : b; }
XT_INLINE float xt_max_raw(float a, float b) { return a > b ? a : b; }

)cc";

const char kKernelMath[] = R"cc(
// exp: Cody-Waite reduction to |r| <= ln2/2, degree-7 polynomial, scale by
// 2^n through the exponent bits. Results below 2^-126 flush to zero; NaN in,
// NaN out. About 22 vector instructions.
template <typename F>
XT_INLINE F xt_exp(F x) {
  // Clamps written so GCC emits vmaxps/vminps (NaN lanes are fixed below);
  // both sides must be vectors or GCC scalarizes the select.
  const F lo = xt_splat(x, -87.3365478515625f), hi = xt_splat(x, 88.8f);
  F xc = xt_min_raw(xt_max_raw(x, lo), hi);
  F n = xt_rint(xc * 1.44269504088896341f);
  F r = xc - n * 0.693145751953125f;
  r = r - n * 1.42860682030941723212e-6f;
  F p = xt_splat(x, 1.0f / 5040.0f);
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // n is in [-126, 128]: 2^128 overflows to inf as exp(88.8) should.
  auto ni = xt_cvt_i(n);
  F scale = xt_as_f((ni + 126) << 23) * 2.0f;
  F y = p * scale;
  y = xt_sel(x < lo, xt_splat(x, 0.0f), y);
  return xt_sel(xt_isnan(x), x, y);
}

// log: x = m * 2^e with m in [sqrt(1/2), sqrt(2)); log(m) = 2 atanh(s).
template <typename F>
XT_INLINE F xt_log(F x) {
  auto is_sub = x < 1.17549435e-38f;
  F xs = xt_sel(is_sub, x * 8388608.0f, x);  // 2^23
  auto bits = xt_as_i(xs);
  auto e = ((bits >> 23) & 0xFF) - 127;
  F m = xt_as_f((bits & 0x007FFFFF) | 0x3F800000);  // [1, 2)
  auto big = m > 1.41421356237f;
  m = xt_sel(big, m * 0.5f, m);
  F ef = xt_cvt_f(e) + xt_sel(big, xt_splat(x, 1.0f), xt_splat(x, 0.0f)) -
         xt_sel(is_sub, xt_splat(x, 23.0f), xt_splat(x, 0.0f));
  F s = (m - 1.0f) / (m + 1.0f);
  F s2 = s * s;
  F p = xt_splat(x, 2.0f / 11.0f);
  p = p * s2 + 2.0f / 9.0f;
  p = p * s2 + 2.0f / 7.0f;
  p = p * s2 + 2.0f / 5.0f;
  p = p * s2 + 2.0f / 3.0f;
  p = p * s2 + 2.0f;
  F y = p * s + ef * 0.693147180559945309f;
  y = xt_sel(x == 0.0f, xt_splat(x, -__builtin_inff()), y);
  y = xt_sel(x < 0.0f, xt_splat(x, __builtin_nanf("")), y);
  y = xt_sel(x == __builtin_inff(), x, y);
  return xt_sel(xt_isnan(x), x, y);
}

template <typename F>
XT_INLINE F xt_expm1(F x) {
  F p = xt_splat(x, 1.0f / 362880.0f);
  p = p * x + 1.0f / 40320.0f;
  p = p * x + 1.0f / 5040.0f;
  p = p * x + 1.0f / 720.0f;
  p = p * x + 1.0f / 120.0f;
  p = p * x + 1.0f / 24.0f;
  p = p * x + 1.0f / 6.0f;
  p = p * x + 0.5f;
  p = p * x * x + x;
  return xt_sel(xt_abs(x) < 0.5f, p, xt_exp(x) - 1.0f);
}

template <typename F>
XT_INLINE F xt_log1p(F x) {
  F u = x + 1.0f;
  // log(u) * x / (u - 1) corrects the rounding of 1 + x (Goldberg).
  F d = u - 1.0f;
  F y = xt_log(u) * (x / xt_sel(d == 0.0f, xt_splat(x, 1.0f), d));
  y = xt_sel(d == 0.0f, x, y);
  return xt_sel(u == __builtin_inff(), u, y);
}

template <typename F>
XT_INLINE F xt_tanh(F x) {
  F a = xt_abs(x);
  F e = xt_expm1(xt_min(a, xt_splat(x, 20.0f)) * 2.0f);
  F t = e / (e + 2.0f);
  t = xt_sel(a >= 20.0f, xt_splat(x, 1.0f), t);
  t = xt_sel(x < 0.0f, -t, t);
  return xt_sel(xt_isnan(x), x, t);
}

template <typename F>
XT_INLINE F xt_logistic(F x) {
  return 1.0f / (1.0f + xt_exp(-x));
}

// erf: Abramowitz & Stegun 7.1.26 refined (|error| < 1.5e-7), odd.
template <typename F>
XT_INLINE F xt_erf(F x) {
  F a = xt_abs(x);
  F t = 1.0f / (1.0f + 0.3275911f * a);
  F p = xt_splat(x, 1.061405429f);
  p = p * t - 1.453152027f;
  p = p * t + 1.421413741f;
  p = p * t - 0.284496736f;
  p = p * t + 0.254829592f;
  F y = 1.0f - p * t * xt_exp(-a * a);
  // Near zero the formula loses relative accuracy: use the series.
  F x2 = x * x;
  F small = x * (1.1283791670955126f + x2 * (-0.37612638903183754f +
                                              x2 * 0.11283791670955126f));
  y = xt_sel(x < 0.0f, -y, y);
  return xt_sel(a < 0.01f, small, y);
}

// sin/cos: reduction by pi/2 (three-part Cody-Waite), polynomials on
// [-pi/4, pi/4], quadrant selection.
template <typename F>
XT_INLINE F xt_sincos(F x, int cosine) {
  F q = xt_rint(x * 0.636619772367581343f);
  F r = x - q * 1.5703125f;
  r = r - q * 4.83751296997070312e-4f;
  r = r - q * 7.54978995489188216e-8f;
  auto qi = xt_cvt_i(q) + cosine;
  F r2 = r * r;
  F s = r + r * r2 * (-1.6666654611e-1f +
                      r2 * (8.3321608736e-3f + r2 * -1.9515295891e-4f));
  F c = 1.0f - 0.5f * r2 +
        r2 * r2 * (4.166664568298827e-2f +
                   r2 * (-1.388731625493765e-3f + r2 * 2.443315711809948e-5f));
  F y = xt_sel((qi & 1) != 0, c, s);
  y = xt_sel((qi & 2) != 0, -y, y);
  return y;
}
template <typename F> XT_INLINE F xt_sin(F x) { return xt_sincos(x, 0); }
template <typename F> XT_INLINE F xt_cos(F x) { return xt_sincos(x, 1); }
)cc";

std::string VectorHelpers(int width) {
  // The broadcast is a constructor of W copies: GCC turns it into one
  // vbroadcastss. "(xt_vf){} + v" would add 0 first (signed zeros), and a
  // lane loop defeats the vectorizer.
  std::string copies = "v";
  for (int l = 1; l < width; ++l) copies += ", v";
  return R"cc(
typedef float xt_vf __attribute__((vector_size(XT_W * 4)));
typedef int32_t xt_vi __attribute__((vector_size(XT_W * 4)));
typedef uint32_t xt_vu __attribute__((vector_size(XT_W * 4)));
typedef uint16_t xt_vu16 __attribute__((vector_size(XT_W * 2)));
)cc" + std::string("XT_INLINE xt_vf xt_vsplat(float v) { return (xt_vf){") +
         copies + "}; }\n" + R"cc(
XT_INLINE xt_vf xt_splat(xt_vf, float v) { return xt_vsplat(v); }
XT_INLINE xt_vi xt_as_i(xt_vf x) { return (xt_vi)x; }
XT_INLINE xt_vf xt_as_f(xt_vi i) { return (xt_vf)i; }
XT_INLINE xt_vi xt_cvt_i(xt_vf x) { return __builtin_convertvector(x, xt_vi); }
XT_INLINE xt_vf xt_cvt_f(xt_vi i) { return __builtin_convertvector(i, xt_vf); }
XT_INLINE xt_vf xt_sel(xt_vi m, xt_vf a, xt_vf b) { return m ? a : b; }
XT_INLINE xt_vi xt_isnan(xt_vf x) { return x != x; }
// x86 min/max return the second operand when either is NaN, exactly like
// "a < b ? a : b"; GCC only emits them from the select with fast-math, so
// use the instructions where the ISA has them. With GCC through the
// builtins that immintrin.h's _mm256_min_ps / _mm512_min_ps expand to:
// parsing immintrin.h took 0.18 s of every compile (0.87 s against 0.69 s
// for a bundle of 5 gemm kernels without the precompiled header).
// XT_INTRINSICS_HEADER (CpuBackendOptions::builtin_min_max = false)
// includes it as earlier versions did.
#if XT_W == 8 && defined(__AVX__) && !defined(XT_INTRINSICS_HEADER) && defined(__GNUC__) && !defined(__clang__)
XT_INLINE xt_vf xt_min_raw(xt_vf a, xt_vf b) { return __builtin_ia32_minps256(a, b); }
XT_INLINE xt_vf xt_max_raw(xt_vf a, xt_vf b) { return __builtin_ia32_maxps256(a, b); }
#elif XT_W == 16 && defined(__AVX512F__) && !defined(XT_INTRINSICS_HEADER) && defined(__GNUC__) && !defined(__clang__)
// All 16 lanes (mask 0xffff), the current rounding mode (4).
XT_INLINE xt_vf xt_min_raw(xt_vf a, xt_vf b) {
  return __builtin_ia32_minps512_mask(a, b, a, (unsigned short)0xffff, 4);
}
XT_INLINE xt_vf xt_max_raw(xt_vf a, xt_vf b) {
  return __builtin_ia32_maxps512_mask(a, b, a, (unsigned short)0xffff, 4);
}
#elif XT_W == 8 && defined(__AVX__)
#include <immintrin.h>
XT_INLINE xt_vf xt_min_raw(xt_vf a, xt_vf b) { return (xt_vf)_mm256_min_ps((__m256)a, (__m256)b); }
XT_INLINE xt_vf xt_max_raw(xt_vf a, xt_vf b) { return (xt_vf)_mm256_max_ps((__m256)a, (__m256)b); }
#elif XT_W == 16 && defined(__AVX512F__)
#include <immintrin.h>
XT_INLINE xt_vf xt_min_raw(xt_vf a, xt_vf b) { return (xt_vf)_mm512_min_ps((__m512)a, (__m512)b); }
XT_INLINE xt_vf xt_max_raw(xt_vf a, xt_vf b) { return (xt_vf)_mm512_max_ps((__m512)a, (__m512)b); }
#else
XT_INLINE xt_vf xt_min_raw(xt_vf a, xt_vf b) { return a < b ? a : b; }
XT_INLINE xt_vf xt_max_raw(xt_vf a, xt_vf b) { return a > b ? a : b; }
#endif
// NaN-propagating: the raw op gives b when either is NaN, so only a NaN in
// a needs putting back.
XT_INLINE xt_vf xt_min(xt_vf a, xt_vf b) {
  return a != a ? a : xt_min_raw(a, b);
}
XT_INLINE xt_vf xt_max(xt_vf a, xt_vf b) {
  return a != a ? a : xt_max_raw(a, b);
}
#define XT_LANEWISE(name, fn)                       \
  XT_INLINE xt_vf name(xt_vf x) {                   \
    xt_vf r;                                        \
    for (int l = 0; l < XT_W; ++l) r[l] = fn(x[l]); \
    return r;                                       \
  }
XT_LANEWISE(xt_rint, __builtin_rintf)
XT_LANEWISE(xt_abs, __builtin_fabsf)
XT_LANEWISE(xt_sqrt, __builtin_sqrtf)
XT_LANEWISE(xt_floor, __builtin_floorf)
XT_LANEWISE(xt_ceil, __builtin_ceilf)
XT_LANEWISE(xt_round_afz, __builtin_roundf)
XT_INLINE xt_vf xt_load(const float* p) { xt_vf v; memcpy(&v, p, sizeof v); return v; }
XT_INLINE void xt_store(float* p, xt_vf v) { memcpy(p, &v, sizeof v); }
XT_INLINE xt_vf xt_load_h(const uint16_t* p) {
  xt_vf v;
  for (int l = 0; l < XT_W; ++l) v[l] = xt_h2f(p[l]);
  return v;
}
XT_INLINE void xt_store_h(uint16_t* p, xt_vf v) {
  for (int l = 0; l < XT_W; ++l) p[l] = xt_f2h(v[l]);
}
XT_INLINE xt_vf xt_load_bf(const uint16_t* p) {
  xt_vu16 h;
  memcpy(&h, p, sizeof h);
  return (xt_vf)(__builtin_convertvector(h, xt_vu) << 16);
}
XT_INLINE void xt_store_bf(uint16_t* p, xt_vf v) {
  for (int l = 0; l < XT_W; ++l) p[l] = xt_f2bf(v[l]);
}
)cc";
}

}  // namespace xtune::cpu
