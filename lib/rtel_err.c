/* SPDX-License-Identifier: MIT */
/* Error codes: one X-macro list feeds rtel_strerror(), so the strings
 * cannot drift from the codes in rocetel.h. */
#include "rtel_int.h"

#define RTEL_ERR_MAP(X)                                                       \
  X(RTEL_ERR_INVALID_ARGUMENT, "invalid argument")                            \
  X(RTEL_ERR_UNSUPPORTED_VERSION, "unsupported struct version")               \
  X(RTEL_ERR_MALFORMED, "malformed packet")                                   \
  X(RTEL_ERR_NOT_ROCE, "not a RoCE packet")                                   \
  X(RTEL_ERR_INVALID_STATE, "invalid state")                                  \
  X(RTEL_ERR_BUFFER_FULL, "buffer full")                                      \
  X(RTEL_ERR_NOMEM, "out of memory")                                          \
  X(RTEL_ERR_CALLBACK_FAILURE, "callback failure")

const char *rtel_strerror(int error_code) {
  switch (error_code) {
  case 0:
    return "success";
#define RTEL__ERR_CASE(code, str)                                             \
  case code:                                                                  \
    return str;
    RTEL_ERR_MAP(RTEL__ERR_CASE)
#undef RTEL__ERR_CASE
  default:
    return "unknown error";
  }
}

int rtel_err_is_fatal(int error_code) { return error_code < RTEL_ERR_FATAL; }
