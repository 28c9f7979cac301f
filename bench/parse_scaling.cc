// parse_scaling: how parse (+ verify), fuse and print scale with the size of
// a module (chains of 10^4, 10^5 and 10^6 instructions, and one value with
// as many users). Baseline, measured in the same run: a tokenizer pass over
// the same text (split into names, numbers and punctuation; the least work
// any HLO parser must do). One JSON line per size and phase with xtune's
// seconds, the baseline's, their ratio, and ns per instruction, whose growth
// from the smallest to the largest size shows any super-linear pass.
// --quick: 10^4 and 10^5 only.
#include <cctype>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/bench_util.h"
#include "fusion/fusion_pass.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "tests/generated_modules.h"

namespace xtune {
namespace {

// Tokens of `text`: runs of name characters, and single punctuation marks.
int64_t Tokenize(const std::string& text) {
  int64_t tokens = 0;
  size_t i = 0, n = text.size();
  while (i < n) {
    unsigned char c = text[i];
    if (std::isspace(c)) {
      ++i;
    } else if (std::isalnum(c) || c == '_' || c == '.' || c == '%') {
      while (i < n && (std::isalnum(static_cast<unsigned char>(text[i])) ||
                       text[i] == '_' || text[i] == '.' || text[i] == '%')) {
        ++i;
      }
      ++tokens;
    } else {
      ++i;
      ++tokens;
    }
  }
  return tokens;
}

void Line(const std::string& kind, int64_t n, const std::string& phase,
          double seconds, double baseline) {
  std::cout << absl::StrFormat(
      "{\"bench\":\"parse_scaling\",\"module\":\"%s\",\"instructions\":%d,"
      "\"phase\":\"%s\",\"xtune_s\":%.4f,\"baseline\":\"tokenize\","
      "\"baseline_s\":%.4f,\"ratio\":%.2f,\"ns_per_instruction\":%.0f}\n",
      kind, n, phase, seconds, baseline, seconds / baseline, seconds / n * 1e9);
}

int Main(bool quick) {
  for (const char* kind : {"chain", "wide"}) {
    for (int64_t n : {int64_t{10000}, int64_t{100000}, int64_t{1000000}}) {
      if (quick && n > 100000) continue;
      std::string text = std::string(kind) == "chain" ? ChainModule(n, true)
                                                     : WideModule(n);
      int reps = n >= 1000000 ? 1 : 3;
      volatile int64_t sink = 0;
      double tok = bench::MedianSeconds([&] { sink = Tokenize(text); }, reps, 0);
      std::unique_ptr<Module> module, fused;
      double parse = bench::MedianSeconds(
          [&] { module = *ParseModule(text, kind); }, reps, 0);
      double fuse = bench::MedianSeconds(
          [&] { fused = *FuseModule(*module); }, reps, 0);
      std::string printed;
      double print = bench::MedianSeconds(
          [&] { printed = ToString(*fused); }, reps, 0);
      Line(kind, n, "parse+verify", parse, tok);
      Line(kind, n, "fuse", fuse, tok);
      Line(kind, n, "print", print, tok);
    }
  }
  return 0;
}

}  // namespace
}  // namespace xtune

int main(int argc, char** argv) {
  bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  return xtune::Main(quick);
}
