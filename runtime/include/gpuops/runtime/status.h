// absl::Status helpers used throughout. Nothing in gpuops aborts or throws across its API.
#pragma once

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define GPUOPS_STATUS_CONCAT_INNER(a, b) a##b
#define GPUOPS_STATUS_CONCAT(a, b) GPUOPS_STATUS_CONCAT_INNER(a, b)

// Returns the status of `expr` from the enclosing function when it is not OK.
#define GPUOPS_RETURN_IF_ERROR(expr)                                    \
  do {                                                                  \
    if (::absl::Status gpuops_status_ = (expr); !gpuops_status_.ok()) { \
      return gpuops_status_;                                            \
    }                                                                   \
  } while (false)

// `GPUOPS_ASSIGN_OR_RETURN(auto x, MaybeX());` declares or assigns `x` from an OK StatusOr, and
// returns its status from the enclosing function otherwise.
#define GPUOPS_ASSIGN_OR_RETURN(lhs, expr) \
  GPUOPS_ASSIGN_OR_RETURN_IMPL(GPUOPS_STATUS_CONCAT(gpuops_statusor_, __LINE__), lhs, expr)

#define GPUOPS_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) {                                   \
    return std::move(tmp).status();                  \
  }                                                  \
  lhs = std::move(tmp).value()
