/* SPDX-License-Identifier: MIT */
/* CRC-32 and the RoCE invariant CRC. */
#ifndef RTEL_ICRC_H
#define RTEL_ICRC_H

#include "rtel_int.h"

/*
 * Ways of computing the CRC-32 (all give the same result):
 *   TABLE  slicing-by-16 tables, any CPU;
 *   CLMUL  x86-64 PCLMULQDQ (carry-less multiply) folding;
 *   PMULL  arm64 PMULL (crypto extension) folding;
 *   VCLMUL512 x86-64 VPCLMULQDQ on 512-bit registers (AVX-512F) folding;
 *   VCLMUL256 x86-64 VPCLMULQDQ on 256-bit registers (AVX2) folding.
 * A carry-less path runs only where rtel__crc32_supported() says so: the
 * library never executes an instruction the CPU may lack.
 */
#define RTEL__CRC_TABLE 0u
#define RTEL__CRC_CLMUL 1u
#define RTEL__CRC_PMULL 2u
#define RTEL__CRC_VCLMUL512 3u
#define RTEL__CRC_VCLMUL256 4u
#define RTEL__CRC_N 5u

/* The path the build can take without asking the CPU: a carry-less one
 * when the compiler was told the target has it (-mpclmul, with
 * -mvpclmulqdq and -mavx512f or -mavx2 a wide one, or
 * -march=armv8-a+crypto), else TABLE. The stateless functions use it:
 * they keep nothing between calls, and asking the CPU costs a CPUID, a
 * trap to the hypervisor in a VM (several microseconds). */
#if defined(__x86_64__) && defined(__PCLMUL__) && defined(__VPCLMULQDQ__) &&  \
    defined(__AVX512F__)
#  define RTEL__CRC_BUILD RTEL__CRC_VCLMUL512
#elif defined(__x86_64__) && defined(__PCLMUL__) &&                           \
    defined(__VPCLMULQDQ__) && defined(__AVX2__)
#  define RTEL__CRC_BUILD RTEL__CRC_VCLMUL256
#elif defined(__x86_64__) && defined(__PCLMUL__)
#  define RTEL__CRC_BUILD RTEL__CRC_CLMUL
#elif defined(__aarch64__) && defined(__AARCH64EL__) &&                       \
    (defined(__ARM_FEATURE_CRYPTO) || defined(__ARM_FEATURE_AES))
#  define RTEL__CRC_BUILD RTEL__CRC_PMULL
#else
#  define RTEL__CRC_BUILD RTEL__CRC_TABLE
#endif

/* 1 if |impl| is compiled in and this CPU runs it. Asks the CPU (CPUID on
 * x86-64, the kernel's hardware capabilities on arm64 Linux): slow, once
 * per context, never per packet. */
int rtel__crc32_supported(unsigned impl);

/* The fastest path this CPU runs (rtel__crc32_supported() for each). */
unsigned rtel__crc32_best(void);

/* Standard reflected CRC-32 (as zlib's crc32()): pass 0 to start, and the
 * previous result to continue. rtel__crc32() takes RTEL__CRC_BUILD;
 * rtel__crc32_with() the path |impl|, which must be supported (an
 * unknown value or one not compiled in takes TABLE). */
uint32_t rtel__crc32_with(unsigned impl, uint32_t crc, const uint8_t *p,
                          size_t n);
uint32_t rtel__crc32(uint32_t crc, const uint8_t *p, size_t n);

/* ICRC of a decoded RoCE packet whose bytes are all captured (the caller
 * checks RTEL_HD_F_ICRC), computed by the path |impl| (as above). */
uint32_t rtel__icrc(const rtel_pkt_hd *hd, const uint8_t *pkt, unsigned impl);

#endif /* RTEL_ICRC_H */
