// The scalar helpers every generated kernel may call, on every backend
// (f16/bf16/8-bit float conversions, XLA's integer and min/max semantics, reduction
// combiners): one text, embedded as kXtScalarHelpers (codegen/kernel_text.h)
// and appended after each backend's prelude, which defines XT_DEVICE, the
// integer types, memcpy, rintf and xt_f32_bits / xt_bits_f32
// (codegen/cpu/prelude.cc, codegen/cuda/prelude/xt_gpu.cuh and xt_emu.h).

XT_DEVICE float xt_h2f(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu, bits;
  if (e == 0x1Fu) {
    bits = sign | 0x7F800000u | (m << 13);
  } else if (e != 0) {
    bits = sign | ((e + 112u) << 23) | (m << 13);
  } else if (m == 0) {
    bits = sign;
  } else {  // subnormal: m * 2^-24
    float f = (float)m * 5.9604644775390625e-8f;
    return sign ? -f : f;
  }
  return xt_bits_f32(bits);
}

XT_DEVICE uint16_t xt_f2h(float f) {
  uint32_t x = xt_f32_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  x &= 0x7FFFFFFFu;
  if (x > 0x7F800000u) return (uint16_t)(sign | 0x7E00u);  // NaN
  if (x >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u);  // overflow
  if (x < 0x38800000u) {  // subnormal or zero in f16
    return (uint16_t)(sign | (uint32_t)rintf(xt_bits_f32(x) * 16777216.0f));
  }
  uint32_t h = ((x >> 23) - 112u) << 10 | ((x >> 13) & 0x3FFu);
  uint32_t rest = x & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return (uint16_t)(sign | h);
}

XT_DEVICE float xt_bf2f(uint16_t b) { return xt_bits_f32((uint32_t)b << 16); }

XT_DEVICE uint16_t xt_f2bf(float f) {
  uint32_t x = xt_f32_bits(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((x >> 16) | 0x40u);
  x += 0x7FFFu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

// 8-bit floats (util/float_formats.h): eb exponent and mb mantissa bits,
// the bias, and kind 0 (IEEE: infinities), 1 (fn: NaN is all ones, no
// infinities) or 2 (fnuz: NaN is 0x80, no infinities, no -0). Every
// generated call passes its type's constants (codegen/kernel_text.h,
// Fp8Call), so the compiler folds them.
XT_DEVICE float xt_pow2(int k) { return xt_bits_f32((uint32_t)(k + 127) << 23); }
XT_DEVICE float xt_f8_max(int eb, int mb, int bias, int kind) {
  int top = (1 << eb) - 1, mmask = (1 << mb) - 1;
  int e = kind == 0 ? top - 1 : top, m = kind == 1 ? mmask - 1 : mmask;
  return (float)((1 << mb) + m) * xt_pow2(e - bias - mb);
}
XT_DEVICE float xt_f82f(uint8_t b, int eb, int mb, int bias, int kind) {
  int top = (1 << eb) - 1, mmask = (1 << mb) - 1;
  int e = (b >> mb) & top, m = b & mmask;
  float sign = (b & 0x80u) ? -1.0f : 1.0f;
  // NaN with the code's sign (a product with -1 would not keep it).
  float nan = xt_bits_f32(((uint32_t)(b & 0x80u) << 24) | 0x7FC00000u);
  if (kind == 2 && b == 0x80u) return xt_bits_f32(0x7FC00000u);
  if (kind == 1 && e == top && m == mmask) return nan;
  if (kind == 0 && e == top) return m != 0 ? nan : sign * xt_bits_f32(0x7F800000u);
  if (e == 0) return sign * (float)m * xt_pow2(1 - bias - mb);
  return sign * (float)((1 << mb) + m) * xt_pow2(e - bias - mb);
}
// Round to nearest even; overflow to infinity (kind 0) or NaN.
XT_DEVICE uint8_t xt_f2f8(float x, int eb, int mb, int bias, int kind) {
  int top = (1 << eb) - 1, mmask = (1 << mb) - 1;
  uint32_t u = xt_f32_bits(x);
  uint8_t sign = (uint8_t)((u >> 24) & 0x80u);
  // ml_dtypes' NaN codes, signed (util/float_formats.cc Fp8ToBits).
  uint8_t nan = kind == 2 ? (uint8_t)0x80u
                : kind == 1 ? (uint8_t)(sign | 0x7Fu)
                            : (uint8_t)(sign | (top << mb) | (1 << (mb - 1)));
  uint8_t overflow = kind == 0 ? (uint8_t)(sign | (top << mb)) : nan;
  u &= 0x7FFFFFFFu;
  if (u > 0x7F800000u) return nan;
  if (u == 0x7F800000u) return overflow;
  if (u == 0) return kind == 2 ? (uint8_t)0 : sign;
  int lead = (int)(u >> 23) - 127, min_exp = 1 - bias;
  if (lead < min_exp) lead = min_exp;
  float q = xt_pow2(lead - mb);
  float r = rintf(xt_bits_f32(u) / q) * q;  // exact scaling; ties to even
  if (r > xt_f8_max(eb, mb, bias, kind)) return overflow;
  if (r == 0.0f) return kind == 2 ? (uint8_t)0 : sign;
  uint32_t ru = xt_f32_bits(r);
  int re = (int)(ru >> 23) - 127;
  if (re < min_exp) return (uint8_t)(sign | (uint32_t)(r / xt_pow2(min_exp - mb)));
  return (uint8_t)(sign | ((re + bias) << mb) | ((ru >> (23 - mb)) & (uint32_t)mmask));
}
XT_DEVICE float xt_round_f8(float x, int eb, int mb, int bias, int kind) {
  return xt_f82f(xt_f2f8(x, eb, mb, bias, kind), eb, mb, bias, kind);
}

XT_DEVICE float xt_round_h(float x) { return xt_h2f(xt_f2h(x)); }
XT_DEVICE float xt_round_bf(float x) { return xt_bf2f(xt_f2bf(x)); }
// f32 -> TF32 (10 mantissa bits), to nearest, ties away, as
// cvt.rna.tf32.f32; infinities and NaN kept (ir/dot_precision.h).
XT_DEVICE float xt_round_tf32(float x) {
  uint32_t u = xt_f32_bits(x);
  if ((u & 0x7F800000u) != 0x7F800000u) u = (u + 0x1000u) & 0xFFFFE000u;
  return xt_bits_f32(u);
}

// XLA's min/max propagate NaN.
XT_DEVICE float xt_min(float a, float b) { return a != a || b != b ? a + b : (a < b ? a : b); }
XT_DEVICE float xt_max(float a, float b) { return a != a || b != b ? a + b : (a > b ? a : b); }
XT_DEVICE double xt_min(double a, double b) { return a != a || b != b ? a + b : (a < b ? a : b); }
XT_DEVICE double xt_max(double a, double b) { return a != a || b != b ? a + b : (a > b ? a : b); }

// Integer semantics as XLA: division by zero gives -1 (unsigned: the
// maximum), x % 0 gives x, INT_MIN / -1 gives INT_MIN.
XT_DEVICE int64_t xt_idiv(int64_t a, int64_t b, int64_t min, int is_unsigned,
                          int64_t umax) {
  if (b == 0) return is_unsigned ? umax : -1;
  if (!is_unsigned && a == min && b == -1) return a;
  return a / b;
}
XT_DEVICE int64_t xt_irem(int64_t a, int64_t b, int64_t min, int is_unsigned) {
  if (b == 0) return a;
  if (!is_unsigned && a == min && b == -1) return 0;
  return a % b;
}
XT_DEVICE int64_t xt_ipow(int64_t a, int64_t b) {
  if (b < 0) return a == 1 ? 1 : 0;
  uint64_t r = 1, base = (uint64_t)a;
  for (uint64_t e = (uint64_t)b; e; e >>= 1) {
    if (e & 1) r *= base;
    base *= base;
  }
  return (int64_t)r;
}
// u64, carried as int64_t bit patterns: unsigned division (by zero: all
// ones; x % 0 = x), power, clamp and the saturating conversion from float.
XT_DEVICE int64_t xt_u64_div(int64_t a, int64_t b) {
  return b == 0 ? -1 : (int64_t)((uint64_t)a / (uint64_t)b);
}
XT_DEVICE int64_t xt_u64_rem(int64_t a, int64_t b) {
  return b == 0 ? a : (int64_t)((uint64_t)a % (uint64_t)b);
}
XT_DEVICE int64_t xt_u64_pow(int64_t a, int64_t b) {
  uint64_t r = 1, base = (uint64_t)a;
  for (uint64_t e = (uint64_t)b; e; e >>= 1) {
    if (e & 1) r *= base;
    base *= base;
  }
  return (int64_t)r;
}
XT_DEVICE int64_t xt_u64_clamp(int64_t lo, int64_t x, int64_t hi) {
  uint64_t v = (uint64_t)x;
  if (v < (uint64_t)lo) v = (uint64_t)lo;
  if (v > (uint64_t)hi) v = (uint64_t)hi;
  return (int64_t)v;
}
XT_DEVICE int64_t xt_f2u64(double v) {
  if (!(v > 0)) return 0;
  if (v >= 18446744073709551616.0) return -1;
  return (int64_t)(uint64_t)v;
}
// Saturating float -> integer conversion; NaN gives 0.
XT_DEVICE int64_t xt_f2i(double v, int64_t lo, int64_t hi) {
  if (v != v) return 0;
  if (v <= (double)lo) return lo;
  if (v >= (double)hi) return hi;
  return (int64_t)v;
}
XT_DEVICE int64_t xt_total_key(double v) {
  int64_t bits;
  memcpy(&bits, &v, 8);
  return bits < 0 ? bits ^ INT64_MAX : bits;
}

// Reduction combiners, so that kernels name the op, not the expression.
XT_DEVICE float xt_comb_add(float a, float b) { return a + b; }
XT_DEVICE float xt_comb_mul(float a, float b) { return a * b; }
XT_DEVICE float xt_comb_max(float a, float b) { return xt_max(a, b); }
XT_DEVICE float xt_comb_min(float a, float b) { return xt_min(a, b); }

// XLA's indexing rules (ir/indexing.h, written once there): a slice start
// is clamped so the slice fits; a scatter window that does not fit is
// dropped.
XT_DEVICE int64_t xt_clamp_start(int64_t s, int64_t dim, int64_t size) {
  s = s < 0 ? 0 : s;
  return s > dim - size ? dim - size : s;
}
XT_DEVICE bool xt_window_fits(int64_t s, int64_t dim, int64_t size) {
  return s >= 0 && s <= dim - size;
}

// count-leading-zeros and popcnt of the low `bits` bits.
XT_DEVICE int64_t xt_popcnt(int64_t v, int bits) {
  uint64_t u = bits == 64 ? (uint64_t)v : (uint64_t)v & ((1ull << bits) - 1);
  int64_t n = 0;
  for (; u; u &= u - 1) ++n;
  return n;
}
XT_DEVICE int64_t xt_clz(int64_t v, int bits) {
  uint64_t u = bits == 64 ? (uint64_t)v : (uint64_t)v & ((1ull << bits) - 1);
  int64_t n = bits;
  for (; u; u >>= 1) --n;
  return n;
}

// XLA's reduce-precision on the bits of a float of `nbits` bits with `se`
// exponent and `sm` mantissa bits (eval/elementwise.cc has the evaluator's
// copy): mantissa rounded to nearest even, exponents out of range to signed
// zero or infinity, NaN kept (+inf when no mantissa bit is left).
XT_DEVICE uint64_t xt_rp_bits(uint64_t x, int nbits, int se, int sm, int de,
                              int dm) {
  uint64_t all = nbits == 64 ? ~0ull : (1ull << nbits) - 1;
  uint64_t sign = 1ull << (nbits - 1);
  uint64_t exp_mask = ((1ull << se) - 1) << sm;
  bool nan = (x & (sign - 1)) > exp_mask;
  uint64_t r = x;
  if (dm < sm) {
    uint64_t last = 1ull << (sm - dm);
    uint64_t bias = (last >> 1) - 1 + ((r & last) >> (sm - dm));
    r = ((r + bias) & ~(last - 1)) & all;
  }
  if (de < se) {
    uint64_t bias = (1ull << (se - 1)) - 1;
    uint64_t reduced = (1ull << (de - 1)) - 1;
    uint64_t e = r & exp_mask;
    uint64_t zero = r & sign;
    if (e > ((bias + reduced) << sm)) r = zero | exp_mask;
    if (e <= ((bias - reduced) << sm)) r = zero;
  }
  if (nan) r = dm > 0 ? x : exp_mask;
  return r;
}
XT_DEVICE float xt_rp_f32(float x, int de, int dm) {
  return xt_bits_f32((uint32_t)xt_rp_bits(xt_f32_bits(x), 32, 8, 23, de, dm));
}
XT_DEVICE float xt_rp_h(float x, int de, int dm) {
  return xt_h2f((uint16_t)xt_rp_bits(xt_f2h(x), 16, 5, 10, de, dm));
}
XT_DEVICE float xt_rp_bf(float x, int de, int dm) {
  return xt_bf2f((uint16_t)xt_rp_bits(xt_f2bf(x), 16, 8, 7, de, dm));
}
XT_DEVICE double xt_rp_f64(double x, int de, int dm) {
  uint64_t bits;
  memcpy(&bits, &x, 8);
  bits = xt_rp_bits(bits, 64, 11, 52, de, dm);
  memcpy(&x, &bits, 8);
  return x;
}
