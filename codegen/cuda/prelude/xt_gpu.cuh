// xtune CUDA kernel prelude, GPU build (NVRTC), followed by
// codegen/prelude/xt_scalar.h: the device
// vocabulary of generated kernels as CUDA intrinsics and inline PTX. Its
// twin for the CPU emulator is xt_emu.h; a kernel uses only what both
// define. No CUDA headers: NVRTC compiles this without an include path.
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
#define INT64_MAX 0x7fffffffffffffffLL
#ifndef INT64_MIN
#define INT64_MIN (-INT64_MAX - 1)
#endif
#define INT64_C(c) c##LL
#define XT_DEVICE static __device__ __forceinline__
#define XT_CONST_ARRAY static __device__ const
// The elemental emitter's special values (NVRTC has no such builtins).
#define __builtin_nanf(s) __int_as_float(0x7fffffff)
#define __builtin_inff() __int_as_float(0x7f800000)
#define __builtin_nan(s) __longlong_as_double(0x7ff8000000000000LL)
#define __builtin_inf() __longlong_as_double(0x7ff0000000000000LL)

XT_DEVICE uint32_t xt_f32_bits(float f) { return __float_as_uint(f); }
XT_DEVICE float xt_bits_f32(uint32_t u) { return __uint_as_float(u); }

// ---- Kernels, parameters and memory.
#define XT_KERNEL(block_size) \
  extern "C" __global__ void __launch_bounds__(block_size)
#define XT_IN(T) const T* __restrict__
#define XT_OUT(T) T* __restrict__
// Global and shared accesses: XT_G(p)[i], XT_S(s)[i] (checked in the
// emulator).
#define XT_G(p) (p)
#define XT_S(s) (s)
#define XT_SHARED(T, name, count) __shared__ __align__(16) T name[count]
// The same shared array seen as elements of another type (16-bit tiles
// stored 32 bits at a time).
#define XT_SHARED_VIEW(T, name, base) T* const name = reinterpret_cast<T*>(base)

// ---- Indices (one-dimensional grids and blocks).
XT_DEVICE int xt_tid() { return (int)threadIdx.x; }
XT_DEVICE int xt_bid() { return (int)blockIdx.x; }
XT_DEVICE int xt_bdim() { return (int)blockDim.x; }
XT_DEVICE int xt_gdim() { return (int)gridDim.x; }
XT_DEVICE int xt_lane() { return (int)(threadIdx.x & 31u); }
XT_DEVICE int xt_warp() { return (int)(threadIdx.x >> 5); }

// ---- Barriers and warp collectives (full warps only).
#define XT_SYNC() __syncthreads()
#define XT_SHFL_XOR(v, m) __shfl_xor_sync(0xffffffffu, (v), (m))
#define XT_SHFL_DOWN(v, d) __shfl_down_sync(0xffffffffu, (v), (d))
#define XT_SHFL_IDX(v, l) __shfl_sync(0xffffffffu, (v), (l))
#define XT_BALLOT(p) __ballot_sync(0xffffffffu, (p))
#define XT_ANY(p) __any_sync(0xffffffffu, (p))
#define XT_ALL(p) __all_sync(0xffffffffu, (p))

// ---- Atomics: XT_ATOMIC_ADD(XT_G(p), i, v) or on XT_S(s).
#define XT_ATOMIC_ADD(base, i, v) atomicAdd(&(base)[i], (v))
#define XT_ATOMIC_MAX_I(base, i, v) atomicMax(&(base)[i], (v))

// ---- Asynchronous copies (sm_80+): 16 bytes global -> shared.
XT_DEVICE void xt_cp_async16(void* shared_dst, const void* global_src) {
  unsigned dst = (unsigned)__cvta_generic_to_shared(shared_dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst),
               "l"(global_src)
               : "memory");
}
#define XT_CP_ASYNC16(s, s_off, g, g_off) \
  xt_cp_async16(&(s)[s_off], &(g)[g_off])
#define XT_CP_ASYNC_COMMIT() asm volatile("cp.async.commit_group;\n" ::: "memory")
#define XT_CP_ASYNC_WAIT(n) asm volatile("cp.async.wait_group %0;\n" ::"n"(n) : "memory")

// ---- ldmatrix: 8x8 b16 matrices from shared memory; each lane gives the
// address of one row (lanes 8i..8i+7 for matrix i).
#define XT_LDMATRIX_X1(r, s, off) xt_ldmatrix_x1(r, &(s)[off], 0)
#define XT_LDMATRIX_X2(r, s, off) xt_ldmatrix_x2(r, &(s)[off], 0)
#define XT_LDMATRIX_X4(r, s, off) xt_ldmatrix_x4(r, &(s)[off], 0)
#define XT_LDMATRIX_X1_T(r, s, off) xt_ldmatrix_x1(r, &(s)[off], 1)
#define XT_LDMATRIX_X2_T(r, s, off) xt_ldmatrix_x2(r, &(s)[off], 1)
#define XT_LDMATRIX_X4_T(r, s, off) xt_ldmatrix_x4(r, &(s)[off], 1)
XT_DEVICE void xt_ldmatrix_x1(uint32_t* r, const void* p, int trans) {
  unsigned a = (unsigned)__cvta_generic_to_shared(p);
  if (trans) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n"
                 : "=r"(r[0]) : "r"(a));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n"
                 : "=r"(r[0]) : "r"(a));
  }
}
XT_DEVICE void xt_ldmatrix_x2(uint32_t* r, const void* p, int trans) {
  unsigned a = (unsigned)__cvta_generic_to_shared(p);
  if (trans) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1]) : "r"(a));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1]) : "r"(a));
  }
}
XT_DEVICE void xt_ldmatrix_x4(uint32_t* r, const void* p, int trans) {
  unsigned a = (unsigned)__cvta_generic_to_shared(p);
  if (trans) {
    asm volatile(
        "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
        : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
  } else {
    asm volatile(
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
        : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
  }
}

// ---- mma.sync: D = A * B + C per warp, f32 accumulators. Fragments as in
// the PTX ISA's tables (a: 4 regs, b: 2 regs, c/d: 4 floats).
XT_DEVICE void xt_mma_m16n8k16_f16(float* d, const uint32_t* a,
                                   const uint32_t* b, const float* c) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
      "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
        "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
}
XT_DEVICE void xt_mma_m16n8k16_bf16(float* d, const uint32_t* a,
                                    const uint32_t* b, const float* c) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
      "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
        "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
}
XT_DEVICE void xt_mma_m16n8k8_tf32(float* d, const uint32_t* a,
                                   const uint32_t* b, const float* c) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
      "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
        "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
}
// FP8 (sm_89 and later): m16n8k32, A and B each e4m3 or e5m2, four 8-bit
// elements a register (the lower K in the low byte).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 890
#define XT_DEFINE_MMA_F8(name, ta, tb)                                        \
  XT_DEVICE void name(float* d, const uint32_t* a, const uint32_t* b,         \
                      const float* c) {                                       \
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32." ta "." tb           \
                 ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "        \
                 "{%10, %11, %12, %13};\n"                                    \
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])             \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),     \
                   "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));    \
  }
XT_DEFINE_MMA_F8(xt_mma_m16n8k32_e4m3_e4m3, "e4m3", "e4m3")
XT_DEFINE_MMA_F8(xt_mma_m16n8k32_e4m3_e5m2, "e4m3", "e5m2")
XT_DEFINE_MMA_F8(xt_mma_m16n8k32_e5m2_e4m3, "e5m2", "e4m3")
XT_DEFINE_MMA_F8(xt_mma_m16n8k32_e5m2_e5m2, "e5m2", "e5m2")
#undef XT_DEFINE_MMA_F8
#define XT_MMA_M16N8K32_E4M3_E4M3(d, a, b, c) xt_mma_m16n8k32_e4m3_e4m3(d, a, b, c)
#define XT_MMA_M16N8K32_E4M3_E5M2(d, a, b, c) xt_mma_m16n8k32_e4m3_e5m2(d, a, b, c)
#define XT_MMA_M16N8K32_E5M2_E4M3(d, a, b, c) xt_mma_m16n8k32_e5m2_e4m3(d, a, b, c)
#define XT_MMA_M16N8K32_E5M2_E5M2(d, a, b, c) xt_mma_m16n8k32_e5m2_e5m2(d, a, b, c)
#endif
#define XT_MMA_M16N8K16_F16(d, a, b, c) xt_mma_m16n8k16_f16(d, a, b, c)
#define XT_MMA_M16N8K16_BF16(d, a, b, c) xt_mma_m16n8k16_bf16(d, a, b, c)
#define XT_MMA_M16N8K8_TF32(d, a, b, c) xt_mma_m16n8k8_tf32(d, a, b, c)
