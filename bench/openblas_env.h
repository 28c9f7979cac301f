// Benchmarks against OpenBLAS measure OpenBLAS's own kernel for this CPU.
// Some machines set OPENBLAS_CORETYPE (e.g. Haswell on an AVX-512 CPU) or
// OPENBLAS_L2_SIZE, which force another CPU's kernel: a forced Haswell
// halves OpenBLAS there and doubles every ratio against it. OpenBLAS reads
// both once, when it loads, so a benchmark re-executes itself without them.
#ifndef XTUNE_BENCH_OPENBLAS_ENV_H_
#define XTUNE_BENCH_OPENBLAS_ENV_H_

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/strings/str_format.h"

extern "C" char* openblas_get_corename(void);
extern "C" int openblas_get_num_threads(void);

namespace xtune::bench {

// When OPENBLAS_CORETYPE or OPENBLAS_L2_SIZE is set, says so on stderr and
// re-executes this program (argv as given) without them; does not return
// then (exit 2 when the re-execution fails). XTUNE_BENCH_KEEP_OPENBLAS_ENV=1
// keeps them, with a warning that the ratios are not OpenBLAS's best.
inline void RunWithOpenblasOwnKernel(char** argv) {
  std::string forced;
  for (const char* v : {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"}) {
    if (const char* value = std::getenv(v)) forced += absl::StrFormat(" %s=%s", v, value);
  }
  if (forced.empty()) return;
  if (const char* keep = std::getenv("XTUNE_BENCH_KEEP_OPENBLAS_ENV");
      keep != nullptr && std::string(keep) == "1") {
    std::cerr << "warning: keeping" << forced
              << " (XTUNE_BENCH_KEEP_OPENBLAS_ENV=1): OpenBLAS may run another CPU's kernel, "
                 "and every ratio against it is inflated\n";
    return;
  }
  std::cerr << "re-running without" << forced
            << ": it makes OpenBLAS run another CPU's kernel (a forced Haswell halves it on "
               "AVX-512 machines)\n";
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv("OPENBLAS_L2_SIZE");
  execv("/proc/self/exe", argv);
  std::perror("re-executing the benchmark");
  std::exit(2);
}

// The kernel and threads OpenBLAS runs, as a JSON line every OpenBLAS
// benchmark prints first: {"openblas_core": "...", "openblas_threads": N}.
inline std::string OpenblasCoreJson() {
  return absl::StrFormat("{\"openblas_core\": \"%s\", \"openblas_threads\": %d}",
                         openblas_get_corename(), openblas_get_num_threads());
}

}  // namespace xtune::bench

#endif  // XTUNE_BENCH_OPENBLAS_ENV_H_
