// Benchmark: convolution layers (ResNet-style: 3x3 and 1x1, strided,
// depthwise, NHWC and NCHW, f32 and bf16, batch 1 and 32) on xtune's CPU
// backend against OpenBLAS im2col + sgemm, measured in the same run. One
// JSON line per case:
//   xtune_ms     the module (one convolution) compiled as `xtune run` does,
//                tuned with the CPU profiler, median run of its executable
//                (inputs in memory);
//   openblas_ms  im2col of the input into an f32 [rows, KH*KW*C/G] buffer
//                (the layout read as the case stores it), cblas_sgemm with
//                the kernel as [KH*KW*C/G, O/G] per group, and the result
//                written in the case's output layout (the copies on one
//                thread, the sgemm on OpenBLAS's threads); bf16 cases
//                widen the input and kernel to f32 first and round the
//                result back (OpenBLAS has no bf16 gemm here), included in
//                the time;
//   ratio        openblas_ms / xtune_ms (above 1: xtune is faster);
//   openblas_sgemm_ms  the sgemm alone on the written patches: the
//                baseline's floor, whatever its im2col cost;
//   sgemm_ratio  openblas_sgemm_ms / xtune_ms.
// The first line names OpenBLAS's core and threads. OPENBLAS_CORETYPE and
// OPENBLAS_L2_SIZE (some machines set OPENBLAS_CORETYPE=Haswell on AVX-512
// CPUs, which halves OpenBLAS) make it re-execute itself without them
// (bench/openblas_env.h).
//
// Usage: conv_vs_openblas [--quick] [--only=NAME] [--print_core]
//   --print_core: print the OpenBLAS line and stop.
#include <cblas.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/bench_util.h"
#include "bench/openblas_env.h"
#include "compiler/compile.h"
#include "ir/parser.h"
#include "runtime/random_inputs.h"
#include "util/float_formats.h"


namespace xtune::bench {
namespace {

struct Case {
  std::string name;
  bool nchw;
  bool bf16;
  int64_t n, h, w, c, o, k, stride, groups;
};

std::string Hlo(const Case& c, int64_t oh, int64_t ow) {
  const char* t = c.bf16 ? "bf16" : "f32";
  const int64_t pad = c.k / 2;
  std::string x = c.nchw ? absl::StrCat(t, "[", c.n, ",", c.c, ",", c.h, ",", c.w, "]")
                         : absl::StrCat(t, "[", c.n, ",", c.h, ",", c.w, ",", c.c, "]");
  std::string w = c.nchw ? absl::StrCat(t, "[", c.o, ",", c.c / c.groups, ",", c.k, ",", c.k, "]")
                         : absl::StrCat(t, "[", c.k, ",", c.k, ",", c.c / c.groups, ",", c.o, "]");
  std::string y = c.nchw ? absl::StrCat(t, "[", c.n, ",", c.o, ",", oh, ",", ow, "]")
                         : absl::StrCat(t, "[", c.n, ",", oh, ",", ow, ",", c.o, "]");
  return absl::StrCat(
      "HloModule ", c.name, "\nENTRY e {\n  x = ", x, " parameter(0)\n  w = ", w,
      " parameter(1)\n  ROOT y = ", y, " convolution(x, w), window={size=", c.k, "x", c.k,
      c.stride > 1 ? absl::StrCat(" stride=", c.stride, "x", c.stride) : "",
      pad > 0 ? absl::StrCat(" pad=", pad, "_", pad, "x", pad, "_", pad) : "", "}, dim_labels=",
      c.nchw ? "bf01_oi01->bf01" : "b01f_01io->b01f",
      c.groups > 1 ? absl::StrCat(", feature_group_count=", c.groups) : "", "\n}\n");
}

// OpenBLAS im2col + sgemm, on f32 copies of the literals' values.
struct Baseline {
  const Case& c;
  int64_t oh, ow;
  std::vector<float> x, w, cols, packed_w, y, out;
  float X(int64_t b, int64_t i, int64_t j, int64_t f) const {
    return c.nchw ? x[((b * c.c + f) * c.h + i) * c.w + j] : x[((b * c.h + i) * c.w + j) * c.c + f];
  }
  void Run() {
    const int64_t cg = c.c / c.groups, og = c.o / c.groups, kk = c.k * c.k * cg;
    const int64_t rows = c.n * oh * ow, pad = c.k / 2;
    for (int64_t g = 0; g < c.groups; ++g) {
      // im2col of group g: [rows, kk].
      for (int64_t b = 0; b < c.n; ++b) {
        for (int64_t i = 0; i < oh; ++i) {
          for (int64_t j = 0; j < ow; ++j) {
            float* row = &cols[((b * oh + i) * ow + j) * kk];
            for (int64_t ki = 0; ki < c.k; ++ki) {
              const int64_t ii = i * c.stride + ki - pad;
              for (int64_t kj = 0; kj < c.k; ++kj) {
                const int64_t jj = j * c.stride + kj - pad;
                float* dst = row + (ki * c.k + kj) * cg;
                const bool inside = ii >= 0 && ii < c.h && jj >= 0 && jj < c.w;
                for (int64_t f = 0; f < cg; ++f) dst[f] = inside ? X(b, ii, jj, g * cg + f) : 0.0f;
              }
            }
          }
        }
      }
      // The kernel of group g as [kk, og] (its layout read as stored).
      for (int64_t ki = 0; ki < c.k; ++ki) {
        for (int64_t kj = 0; kj < c.k; ++kj) {
          for (int64_t f = 0; f < cg; ++f) {
            for (int64_t q = 0; q < og; ++q) {
              const int64_t oo = g * og + q;
              packed_w[((ki * c.k + kj) * cg + f) * og + q] =
                  c.nchw ? w[((oo * cg + f) * c.k + ki) * c.k + kj]
                         : w[((ki * c.k + kj) * cg + f) * c.o + oo];
            }
          }
        }
      }
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, og, kk, 1.0f, cols.data(),
                  kk, packed_w.data(), og, 0.0f, y.data(), og);
      // Into the output layout.
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t b = r / (oh * ow), p = r % (oh * ow);
        for (int64_t q = 0; q < og; ++q) {
          const int64_t oo = g * og + q;
          out[c.nchw ? (b * c.o + oo) * oh * ow + p : r * c.o + oo] = y[r * og + q];
        }
      }
    }
  }
};

// A literal's values as f32: f32 copied, bf16 widened (a shift of its bits).
void ToF32(const Literal& l, std::vector<float>* out) {
  out->resize(l.element_count());
  const uint8_t* bytes = l.bytes().data();
  if (l.shape().dtype() == DType::kF32) {
    std::memcpy(out->data(), bytes, out->size() * sizeof(float));
    return;
  }
  for (size_t i = 0; i < out->size(); ++i) {
    uint16_t h;
    std::memcpy(&h, bytes + 2 * i, 2);
    const uint32_t bits = static_cast<uint32_t>(h) << 16;
    std::memcpy(&(*out)[i], &bits, 4);
  }
}

// f32 to bf16, rounding to nearest even (finite values; NaN stays NaN).
uint16_t ToBf16(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

int Main(int argc, char** argv) {
  RunWithOpenblasOwnKernel(argv);
  bool quick = false, print_core = false;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
    } else if (a == "--print_core") {
      print_core = true;
    } else if (a.rfind("--only=", 0) == 0) {
      only = a.substr(7);
    } else {
      std::cerr << "usage: conv_vs_openblas [--quick] [--only=NAME] [--print_core]\n";
      return 1;
    }
  }
  std::cout << OpenblasCoreJson() << std::endl;
  if (print_core) return 0;
  const int64_t s = quick ? 4 : 1;  // spatial divisor for --quick
  const std::vector<Case> cases = {
      {"resnet3x3_nhwc_f32_b1", false, false, 1, 56 / s, 56 / s, 64, 64, 3, 1, 1},
      {"resnet3x3_nhwc_f32_b32", false, false, 32, 7, 7, 128, 128, 3, 1, 1},
      {"pointwise1x1_nhwc_f32_b1", false, false, 1, 28 / s, 28 / s, 128, 512, 1, 1, 1},
      {"strided3x3_nchw_f32_b1", true, false, 1, 56 / s, 56 / s, 64, 128, 3, 2, 1},
      {"depthwise3x3_nhwc_f32_b1", false, false, 1, 56 / s, 56 / s, 128, 128, 3, 1, 128},
      {"resnet3x3_nhwc_bf16_b1", false, true, 1, 28 / s, 28 / s, 128, 128, 3, 1, 1},
      {"resnet3x3_nchw_bf16_b32", true, true, 32, 14 / s, 14 / s, 64, 64, 3, 1, 1},
  };
  XlaFlags flags;
  flags.autotune.print_summary = false;
  absl::StatusOr<std::unique_ptr<Backend>> backend = CreateBackendFor("cpu", flags);
  if (!backend.ok()) {
    std::cerr << backend.status() << "\n";
    return 1;
  }
  for (const Case& c : cases) {
    if (!only.empty() && only != c.name) continue;
    const int64_t pad = c.k / 2;
    const int64_t oh = (c.h + 2 * pad - c.k) / c.stride + 1, ow = (c.w + 2 * pad - c.k) / c.stride + 1;
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(Hlo(c, oh, ow), c.name);
    if (!m.ok()) {
      std::cerr << c.name << ": " << m.status() << "\n";
      return 1;
    }
    std::vector<Literal> args = RandomArguments(**m, 11);
    absl::StatusOr<CompiledModule> compiled = CompileModule(**m, backend->get(), flags, {});
    if (!compiled.ok()) {
      std::cerr << c.name << ": " << compiled.status() << "\n";
      return 1;
    }
    Executable& exe = *compiled->executable;
    const double xtune = MedianSeconds([&] {
      absl::StatusOr<Literal> r = exe.Run(args);
      if (!r.ok()) std::exit(2);
    });
    Baseline base{c, oh, ow, {}, {}, {}, {}, {}, {}};
    const int64_t cg = c.c / c.groups;
    base.cols.resize(c.n * oh * ow * c.k * c.k * cg);
    base.packed_w.resize(c.k * c.k * cg * (c.o / c.groups));
    base.y.resize(c.n * oh * ow * (c.o / c.groups));
    base.out.resize(c.n * oh * ow * c.o);
    std::vector<uint16_t> out_bf16(c.bf16 ? base.out.size() : 0);
    // f32 inputs are the baseline's own buffers; bf16 ones are widened to
    // f32 and the result narrowed back inside the timed region (OpenBLAS has
    // no bf16 gemm here).
    if (!c.bf16) {
      ToF32(args[0], &base.x);
      ToF32(args[1], &base.w);
    }
    const double openblas = MedianSeconds([&] {
      if (c.bf16) {
        ToF32(args[0], &base.x);
        ToF32(args[1], &base.w);
      }
      base.Run();
      for (size_t i = 0; i < out_bf16.size(); ++i) out_bf16[i] = ToBf16(base.out[i]);
    });
    // The sgemm alone, on the patches the last run wrote: the part of the
    // baseline no im2col could remove.
    const int64_t og = c.o / c.groups, kk = c.k * c.k * cg, rows = c.n * oh * ow;
    const double sgemm = MedianSeconds([&] {
      for (int64_t g = 0; g < c.groups; ++g) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, og, kk, 1.0f,
                    base.cols.data(), kk, base.packed_w.data(), og, 0.0f, base.y.data(), og);
      }
    });
    const double macs = static_cast<double>(c.n) * oh * ow * c.o * c.k * c.k * cg;
    std::cout << absl::StrFormat(
        "{\"case\": \"%s\", \"xtune_ms\": %.3f, \"openblas_ms\": %.3f, \"ratio\": %.2f, "
        "\"openblas_sgemm_ms\": %.3f, \"sgemm_ratio\": %.2f, \"xtune_gflops\": %.1f, "
        "\"openblas_gflops\": %.1f}\n",
        c.name, xtune * 1e3, openblas * 1e3, openblas / xtune, sgemm * 1e3, sgemm / xtune,
        2 * macs / xtune / 1e9, 2 * macs / openblas / 1e9);
  }
  return 0;
}

}  // namespace
}  // namespace xtune::bench

int main(int argc, char** argv) { return xtune::bench::Main(argc, argv); }
