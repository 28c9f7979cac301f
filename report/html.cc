#include "report/html.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace xtune::report {

std::string Escape(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string DurationText(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "-";
  struct Unit {
    double scale;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{1e-9, "ns"}, {1e-6, "us"}, {1e-3, "ms"}, {1, "s"}};
  const Unit* unit = &kUnits[0];
  for (const Unit& u : kUnits) {
    if (seconds >= u.scale * 0.9995) unit = &u;
  }
  double v = seconds / unit->scale;
  if (v >= 99.95) return absl::StrFormat("%.0f %s", v, unit->name);
  if (v >= 9.995) return absl::StrFormat("%.1f %s", v, unit->name);
  return absl::StrFormat("%.2f %s", v, unit->name);
}

std::string RatioText(double ratio) {
  if (!std::isfinite(ratio)) return "-";
  return absl::StrFormat("%.2fx", ratio);
}

std::string Truncate(absl::string_view text, size_t max_chars) {
  if (text.size() <= max_chars) return std::string(text);
  if (max_chars <= 3) return std::string(text.substr(0, max_chars));
  return absl::StrCat(text.substr(0, max_chars - 3), "...");
}

}  // namespace xtune::report
