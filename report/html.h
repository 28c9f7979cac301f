// Text helpers of the report page (report/report_page.h): escaping for
// HTML and SVG, and durations and ratios as people read them.
#ifndef XTUNE_REPORT_HTML_H_
#define XTUNE_REPORT_HTML_H_

#include <string>

#include "absl/strings/string_view.h"

namespace xtune::report {

// `text` with & < > " ' escaped: safe in element content and in quoted
// attribute values, HTML and SVG alike.
std::string Escape(absl::string_view text);

// A duration in the unit that reads best: "850 ns", "12.3 us", "4.56 ms",
// "1.20 s" (three significant digits); "-" when not finite or negative.
std::string DurationText(double seconds);

// "1.23x"; "-" when not finite.
std::string RatioText(double ratio);

// `text` cut to `max_chars` characters, ending in "..." when cut.
std::string Truncate(absl::string_view text, size_t max_chars);

}  // namespace xtune::report

#endif  // XTUNE_REPORT_HTML_H_
