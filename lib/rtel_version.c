/* SPDX-License-Identifier: MIT */
#include "rtel_int.h"

static const rtel_info version_info = {1, RTEL_VERSION_NUM, RTEL_VERSION};

const rtel_info *rtel_version(uint32_t least_version) {
  if (least_version > RTEL_VERSION_NUM) {
    return NULL;
  }
  return &version_info;
}
