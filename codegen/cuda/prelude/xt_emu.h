// xtune CUDA kernel prelude, emulator build, followed by
// codegen/prelude/xt_scalar.h: the device
// vocabulary of generated kernels (see xt_gpu.cuh) as C++ for the host
// compiler. Every primitive calls the emulator runtime
// (codegen/cuda/emulator/emulator.cc) through XtEmuApi, which runs each
// thread of a block as a fiber, switches at barriers and warp collectives,
// and checks what the hardware does not: bounds of every access, shared
// memory and outputs poisoned at launch, reads of async copies not yet
// waited for, divergent barriers and shared-memory races.
//
// The ABI part (up to XT_EMU_ABI_ONLY) is also compiled into the runtime.
#ifndef XT_EMU_ABI_DEFINED
#define XT_EMU_ABI_DEFINED
#include <stdint.h>

// One kernel argument.
struct XtEmuBuffer {
  void* data;
  int64_t bytes;
  int32_t elem_bytes;
  int32_t index;     // argument position
  int32_t tracked;   // output: writes and reads are checked per element
  int32_t pad;
};

// Per emulated thread; the runtime owns it.
struct XtEmuThread {
  void* rt;          // the block's runtime
  uint8_t* shared;   // the block's shared memory
  int32_t tid, bid, bdim, gdim;
};

enum XtEmuWarpKind {
  XT_EMU_SHFL_XOR = 1,
  XT_EMU_SHFL_DOWN = 2,
  XT_EMU_SHFL_IDX = 3,
  XT_EMU_BALLOT = 4,
  XT_EMU_ANY = 5,
  XT_EMU_ALL = 6,
};

enum XtEmuMmaKind {
  XT_EMU_MMA_M16N8K16_F16 = 1,
  XT_EMU_MMA_M16N8K16_BF16 = 2,
  XT_EMU_MMA_M16N8K8_TF32 = 3,
  // m16n8k32 FP8: 4 + 2 * (A is e5m2) + (B is e5m2); A and B e4m3 (OCP
  // E4M3, f8e4m3fn) or e5m2.
  XT_EMU_MMA_M16N8K32_E4M3_E4M3 = 4,
  XT_EMU_MMA_M16N8K32_E4M3_E5M2 = 5,
  XT_EMU_MMA_M16N8K32_E5M2_E4M3 = 6,
  XT_EMU_MMA_M16N8K32_E5M2_E5M2 = 7,
};

struct XtEmuApi {
  // Errors found in kernel code (bounds, misalignment); never returns.
  void (*fail)(void* rt, int line, const char* what, int64_t a, int64_t b);
  // A checked access to a tracked global buffer: element `elem`.
  void (*global_access)(void* rt, const XtEmuBuffer* buf, int64_t elem,
                        int write, int line);
  // The byte offset of a shared array declared at `line`.
  int64_t (*shared_decl)(void* rt, int64_t bytes, int line);
  // A shared access of `bytes` at byte offset `off` (bounds checked by the
  // caller); checks races, poison and pending async copies.
  void (*shared_access)(void* rt, int64_t off, int bytes, int write, int line);
  void (*barrier)(void* rt, int line);
  uint64_t (*warp_op)(void* rt, int kind, uint64_t value, int arg, int line);
  void (*mma)(void* rt, int kind, float* d, const uint32_t* a,
              const uint32_t* b, const float* c, int line);
  void (*ldmatrix)(void* rt, int count, int trans, int64_t off, uint32_t* r,
                   int line);
  void (*cp_async)(void* rt, int64_t shared_off, const void* src, int bytes,
                   int line);
  void (*cp_async_commit)(void* rt, int line);
  void (*cp_async_wait)(void* rt, int pending, int line);
  // The emulated thread now running on the calling OS thread. The runtime
  // keeps it: a thread_local in the kernel object would be dynamic TLS,
  // which every dlopen/dlclose of a kernel churns (and which
  // LeakSanitizer's DTLS scan of GCC 12 misreads, crashing at exit).
  XtEmuThread* (*self)(void);
};
#endif  // XT_EMU_ABI_DEFINED

#ifndef XT_EMU_ABI_ONLY
#include <math.h>
#include <string.h>
#include <type_traits>

#define XT_EMULATOR 1
#define XT_DEVICE static inline
#define XT_CONST_ARRAY static const

static const XtEmuApi* xt_api;
extern "C" void xt_emu_bind(const XtEmuApi* api) { xt_api = api; }
#define xt_self (xt_api->self())

XT_DEVICE uint32_t xt_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
XT_DEVICE float xt_bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

// ---- Kernels, parameters and memory.
#define XT_KERNEL(block_size) static void
#define XT_IN(T) XtG<const T>
#define XT_OUT(T) XtG<T>

template <class T> struct XtGAt;
// A global buffer argument: a pointer with its extent.
template <class T>
struct XtG {
  T* data;
  const XtEmuBuffer* buf;
  int64_t count;
  explicit XtG(const XtEmuBuffer* b)
      : data((T*)b->data), buf(b), count(b->bytes / (int64_t)sizeof(T)) {}
  XtGAt<T> at(int line) const { return {this, line}; }
};
template <class T>
struct XtGElem {
  typedef typename std::remove_const<T>::type V;
  const XtG<T>* g;
  int64_t i;
  int line;
  void check(int write) const {
    if (i < 0 || i >= g->count) {
      xt_api->fail(xt_self->rt, line, write ? "out-of-bounds global store"
                                            : "out-of-bounds global load",
                   i, g->count);
    }
    if (g->buf->tracked) xt_api->global_access(xt_self->rt, g->buf, i, write, line);
  }
  operator V() const {
    check(0);
    return g->data[i];
  }
  const XtGElem& operator=(V v) const {
    check(1);
    g->data[i] = v;
    return *this;
  }
};
template <class T>
struct XtGAt {
  const XtG<T>* g;
  int line;
  // Inputs read at once (so `auto v = XT_G(p)[i]` is a value); outputs
  // give an element that checks the store or load it is used for.
  auto operator[](int64_t i) const {
    if constexpr (std::is_const<T>::value) {
      return (typename std::remove_const<T>::type)XtGElem<T>{g, i, line};
    } else {
      return XtGElem<T>{g, i, line};
    }
  }
};
#define XT_G(p) (p).at(__LINE__)

template <class T> struct XtSAt;
// A shared array: an offset into the block's shared memory.
template <class T>
struct XtS {
  int64_t off;
  int64_t count;
  XtSAt<T> at(int line) const { return {this, line}; }
};
template <class T>
static XtS<T> xt_shared_decl(int64_t count, int line) {
  return {xt_api->shared_decl(xt_self->rt, count * (int64_t)sizeof(T), line),
          count};
}
template <class T>
struct XtSElem {
  const XtS<T>* s;
  int64_t i;
  int line;
  int64_t check(int write) const {
    if (i < 0 || i >= s->count) {
      xt_api->fail(xt_self->rt, line, write ? "out-of-bounds shared store"
                                            : "out-of-bounds shared load",
                   i, s->count);
    }
    int64_t off = s->off + i * (int64_t)sizeof(T);
    xt_api->shared_access(xt_self->rt, off, (int)sizeof(T), write, line);
    return off;
  }
  operator T() const {
    int64_t off = check(0);
    T v;
    memcpy(&v, xt_self->shared + off, sizeof v);
    return v;
  }
  const XtSElem& operator=(T v) const {
    int64_t off = check(1);
    memcpy(xt_self->shared + off, &v, sizeof v);
    return *this;
  }
};
template <class T>
struct XtSAt {
  const XtS<T>* s;
  int line;
  XtSElem<T> operator[](int64_t i) const { return {s, i, line}; }
};
#define XT_S(s) (s).at(__LINE__)
#define XT_SHARED(T, name, count) \
  const XtS<T> name = xt_shared_decl<T>((count), __LINE__)
template <class T, class S>
static XtS<T> xt_shared_view(const XtS<S>& s) {
  return {s.off, s.count * (int64_t)sizeof(S) / (int64_t)sizeof(T)};
}
#define XT_SHARED_VIEW(T, name, base) const XtS<T> name = xt_shared_view<T>(base)

// ---- Indices.
XT_DEVICE int xt_tid() { return xt_self->tid; }
XT_DEVICE int xt_bid() { return xt_self->bid; }
XT_DEVICE int xt_bdim() { return xt_self->bdim; }
XT_DEVICE int xt_gdim() { return xt_self->gdim; }
XT_DEVICE int xt_lane() { return xt_self->tid & 31; }
XT_DEVICE int xt_warp() { return xt_self->tid >> 5; }

// ---- Barriers and warp collectives.
#define XT_SYNC() xt_api->barrier(xt_self->rt, __LINE__)
template <class T>
static T xt_warp(int kind, T v, int arg, int line) {
  static_assert(sizeof(T) <= 8, "warp collectives move at most 8 bytes");
  uint64_t bits = 0;
  memcpy(&bits, &v, sizeof v);
  uint64_t r = xt_api->warp_op(xt_self->rt, kind, bits, arg, line);
  T out;
  memcpy(&out, &r, sizeof out);
  return out;
}
#define XT_SHFL_XOR(v, m) xt_warp(XT_EMU_SHFL_XOR, (v), (m), __LINE__)
#define XT_SHFL_DOWN(v, d) xt_warp(XT_EMU_SHFL_DOWN, (v), (d), __LINE__)
#define XT_SHFL_IDX(v, l) xt_warp(XT_EMU_SHFL_IDX, (v), (l), __LINE__)
#define XT_BALLOT(p) \
  ((uint32_t)xt_api->warp_op(xt_self->rt, XT_EMU_BALLOT, (p) ? 1 : 0, 0, __LINE__))
#define XT_ANY(p) \
  ((int)xt_api->warp_op(xt_self->rt, XT_EMU_ANY, (p) ? 1 : 0, 0, __LINE__))
#define XT_ALL(p) \
  ((int)xt_api->warp_op(xt_self->rt, XT_EMU_ALL, (p) ? 1 : 0, 0, __LINE__))

// ---- Atomics: fibers of a block never run at once and blocks run one at a
// time, so a read-modify-write through the checked element is atomic.
template <class E, class V>
static V xt_atomic_add_elem(const E& e, V v) {
  V old = e;
  e = (V)(old + v);
  return old;
}
template <class T, class V>
static T xt_atomic_add(const XtGAt<T>& at, int64_t i, V v) {
  return xt_atomic_add_elem(at[i], (T)v);
}
template <class T, class V>
static T xt_atomic_add(const XtSAt<T>& at, int64_t i, V v) {
  return xt_atomic_add_elem(at[i], (T)v);
}
#define XT_ATOMIC_ADD(base, i, v) xt_atomic_add(base, i, v)

// ---- Asynchronous copies: 16 bytes land at the latest point the ISA
// allows (the wait that covers their group); until then the destination
// reads as an error.
template <class S, class G>
static void xt_cp_async16(const XtS<S>& s, int64_t s_off, const XtG<G>& g,
                          int64_t g_off, int line) {
  int64_t n = 16 / (int64_t)sizeof(S), m = 16 / (int64_t)sizeof(G);
  if (s_off < 0 || s_off + n > s.count) {
    xt_api->fail(xt_self->rt, line, "out-of-bounds cp.async destination", s_off, s.count);
  }
  if (g_off < 0 || g_off + m > g.count) {
    xt_api->fail(xt_self->rt, line, "out-of-bounds cp.async source", g_off, g.count);
  }
  int64_t off = s.off + s_off * (int64_t)sizeof(S);
  const char* src = (const char*)(g.data + g_off);
  if (off % 16 != 0 || ((uintptr_t)src % 16) != 0) {
    xt_api->fail(xt_self->rt, line, "cp.async address not 16-byte aligned", off,
                 (int64_t)((uintptr_t)src % 16));
  }
  xt_api->cp_async(xt_self->rt, off, src, 16, line);
}
#define XT_CP_ASYNC16(s, s_off, g, g_off) xt_cp_async16(s, s_off, g, g_off, __LINE__)
#define XT_CP_ASYNC_COMMIT() xt_api->cp_async_commit(xt_self->rt, __LINE__)
#define XT_CP_ASYNC_WAIT(n) xt_api->cp_async_wait(xt_self->rt, (n), __LINE__)

// ---- ldmatrix and mma.sync (fragments as in the PTX ISA).
template <class S>
static void xt_ldmatrix(int count, int trans, uint32_t* r, const XtS<S>& s,
                        int64_t off, int line) {
  static_assert(sizeof(S) == 2, "ldmatrix loads b16 matrices");
  if (off < 0 || off + 8 > s.count) {
    xt_api->fail(xt_self->rt, line, "out-of-bounds ldmatrix row", off, s.count);
  }
  xt_api->ldmatrix(xt_self->rt, count, trans, s.off + off * 2, r, line);
}
#define XT_LDMATRIX_X1(r, s, off) xt_ldmatrix(1, 0, r, s, off, __LINE__)
#define XT_LDMATRIX_X2(r, s, off) xt_ldmatrix(2, 0, r, s, off, __LINE__)
#define XT_LDMATRIX_X4(r, s, off) xt_ldmatrix(4, 0, r, s, off, __LINE__)
#define XT_LDMATRIX_X1_T(r, s, off) xt_ldmatrix(1, 1, r, s, off, __LINE__)
#define XT_LDMATRIX_X2_T(r, s, off) xt_ldmatrix(2, 1, r, s, off, __LINE__)
#define XT_LDMATRIX_X4_T(r, s, off) xt_ldmatrix(4, 1, r, s, off, __LINE__)
#define XT_MMA_M16N8K16_F16(d, a, b, c) \
  xt_api->mma(xt_self->rt, XT_EMU_MMA_M16N8K16_F16, d, a, b, c, __LINE__)
#define XT_MMA_M16N8K16_BF16(d, a, b, c) \
  xt_api->mma(xt_self->rt, XT_EMU_MMA_M16N8K16_BF16, d, a, b, c, __LINE__)
#define XT_MMA_M16N8K8_TF32(d, a, b, c) \
  xt_api->mma(xt_self->rt, XT_EMU_MMA_M16N8K8_TF32, d, a, b, c, __LINE__)
#define XT_MMA_M16N8K32_E4M3_E4M3(d, a, b, c) \
  xt_api->mma(xt_self->rt, XT_EMU_MMA_M16N8K32_E4M3_E4M3, d, a, b, c, __LINE__)
#define XT_MMA_M16N8K32_E4M3_E5M2(d, a, b, c) \
  xt_api->mma(xt_self->rt, XT_EMU_MMA_M16N8K32_E4M3_E5M2, d, a, b, c, __LINE__)
#define XT_MMA_M16N8K32_E5M2_E4M3(d, a, b, c) \
  xt_api->mma(xt_self->rt, XT_EMU_MMA_M16N8K32_E5M2_E4M3, d, a, b, c, __LINE__)
#define XT_MMA_M16N8K32_E5M2_E5M2(d, a, b, c) \
  xt_api->mma(xt_self->rt, XT_EMU_MMA_M16N8K32_E5M2_E5M2, d, a, b, c, __LINE__)
#endif  // XT_EMU_ABI_ONLY
