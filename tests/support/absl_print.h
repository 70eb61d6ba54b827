// Force-included into every test: GoogleTest prints Debian Abseil's own absl::string_view (the
// type of Status::message()) as a character array; this prints it as text.
#pragma once

#include <ostream>

#include "absl/strings/string_view.h"

namespace absl {
ABSL_NAMESPACE_BEGIN
inline void PrintTo(absl::string_view s, std::ostream* os) { *os << '"' << std::string(s) << '"'; }
ABSL_NAMESPACE_END
}  // namespace absl
