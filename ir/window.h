// XLA's window and convolution-dimension attributes as text, and the
// window arithmetic every user of them shares (shape inference, the
// evaluator, the kernels):
//   window={size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=2x2
//           rhs_reversal=0x1}
//   dim_labels=b01f_01io->b01f
// Fields at their default are omitted when printed, as XLA prints them.
#ifndef XTUNE_IR_WINDOW_H_
#define XTUNE_IR_WINDOW_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/instruction.h"
#include "ir/text_cursor.h"

namespace xtune {

// "{size=3x3 pad=1_1x1_1}" (the cursor at '{'); "{}" is a window of rank 0.
absl::Status ParseWindowText(TextCursor& cursor, std::vector<WindowDimension>* out);
// "size=3x3 pad=1_1x1_1" (without the braces).
std::string WindowText(const std::vector<WindowDimension>& window);

// "b01f_01io->b01f": InvalidArgument naming what is wrong.
absl::StatusOr<ConvDimensions> ParseDimLabels(absl::string_view text);
std::string DimLabelsText(const ConvDimensions& d, int64_t rank);

// The extent of a window dimension's output over an input of `input`
// elements (XLA's rule): the input dilated by base_dilation and padded,
// the window dilated by window_dilation, then strided; 0 when the window
// does not fit.
int64_t WindowOutputSize(int64_t input, const WindowDimension& w);

// Where window element `k` of output position `o` falls in an input of
// `input` elements: its index, or -1 for padding or a base-dilation hole.
inline int64_t WindowInputIndex(int64_t o, int64_t k, int64_t input,
                                const WindowDimension& w) {
  const int64_t p = o * w.stride + k * w.window_dilation - w.pad_low;
  if (p < 0 || p % w.base_dilation != 0) return -1;
  const int64_t i = p / w.base_dilation;
  return i < input ? i : -1;
}

}  // namespace xtune

#endif  // XTUNE_IR_WINDOW_H_
