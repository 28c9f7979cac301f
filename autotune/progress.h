// Progress of a long tune on stderr: on a terminal one line rewritten in
// place; otherwise (CI logs) a plain line at most every interval; or
// nothing. Thread-safe: candidate compiles report from a pool's threads.
#ifndef XTUNE_AUTOTUNE_PROGRESS_H_
#define XTUNE_AUTOTUNE_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <string>

#include "util/mutex.h"
#include "absl/time/time.h"
#include "autotune/options.h"

namespace xtune {

class Progress {
 public:
  using Mode = AutotuneOptions::ProgressMode;
  Progress(Mode mode, absl::Duration interval);

  // `done` of `total` candidates compiled.
  void Compiled(int64_t done, int64_t total);
  // `done` timing runs of fusion `fusion` (of `fusions`), whose
  // `candidates` are each timed once per round; `all_done` of `all_total`
  // timing runs of the whole tune (for the time left).
  void Update(int fusion, int fusions, const std::string& name, int done,
              int candidates, int rounds, int64_t all_done,
              int64_t all_total);
  // Erases the terminal line before other output.
  void Clear();
  double Elapsed() const;

 private:
  void Show(const std::string& what, int64_t all_done, int64_t all_total);

  const Mode mode_;
  const double interval_;
  Mutex mu_;
  bool dirty_ = false;
  double last_line_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_PROGRESS_H_
