#include "autotune/progress.h"

#include <cstdio>

#include "absl/strings/str_format.h"

namespace xtune {

Progress::Progress(Mode mode, absl::Duration interval)
    : mode_(mode), interval_(absl::ToDoubleSeconds(interval)) {
  start_ = std::chrono::steady_clock::now();
}

void Progress::Compiled(int64_t done, int64_t total) {
  Show(absl::StrFormat("compiling candidates: %d/%d", done, total), 0, 0);
}

void Progress::Update(int fusion, int fusions, const std::string& name,
                      int done, int candidates, int rounds, int64_t all_done,
                      int64_t all_total) {
  Show(absl::StrFormat("tuning fusion %d/%d %s: %d/%d timing runs (%d "
                       "candidates x %d rounds)",
                       fusion, fusions, name, done, candidates * rounds,
                       candidates, rounds),
       all_done, all_total);
}

void Progress::Clear() {
  MutexLock lock(&mu_);
  if (mode_ == Mode::kTerminal && dirty_) std::fprintf(stderr, "\r\033[K");
  dirty_ = false;
}

double Progress::Elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start_)
      .count();
}

void Progress::Show(const std::string& what, int64_t all_done,
                    int64_t all_total) {
  if (mode_ == Mode::kOff) return;
  MutexLock lock(&mu_);
  double elapsed = Elapsed();
  if (mode_ == Mode::kLines && elapsed - last_line_ < interval_) return;
  std::string eta;
  if (all_done > 0 && all_total > all_done) {
    eta = absl::StrFormat(", ~%.0f s left",
                          elapsed / all_done * (all_total - all_done));
  }
  if (mode_ == Mode::kTerminal) {
    std::fprintf(stderr, "\r\033[K[xtune] %s, %.1f s elapsed%s", what.c_str(),
                 elapsed, eta.c_str());
    dirty_ = true;
  } else {
    std::fprintf(stderr, "xtune: %s, %.0f s elapsed%s\n", what.c_str(),
                 elapsed, eta.c_str());
    last_line_ = elapsed;
  }
  std::fflush(stderr);
}

}  // namespace xtune
