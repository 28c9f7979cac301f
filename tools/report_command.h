// `xtune report CACHE [LOGS...] --output=FILE.html`: the self-contained
// HTML page of report/report_page.h about a cache and its tuning logs.
#ifndef XTUNE_TOOLS_REPORT_COMMAND_H_
#define XTUNE_TOOLS_REPORT_COMMAND_H_

#include <string>
#include <vector>

namespace xtune {

extern const char kReportHelp[];

// Exit 0 when the page was written, 1 on a user error (bad flag, missing
// or unreadable cache or log), 2 on an internal error.
int ReportCommand(const std::vector<std::string>& argv);

}  // namespace xtune

#endif  // XTUNE_TOOLS_REPORT_COMMAND_H_
