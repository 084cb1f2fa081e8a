/* SPDX-License-Identifier: MIT */
/*
 * The CRC-32 and ICRC cases that every CRC path of lib/rtel_icrc.c must
 * pass, shared by tests/check_icrc.c (Check, native) and
 * tests/icrc-arm64.sh (a plain program under qemu-aarch64). Expected
 * values never come from the library: published CRC-32 check values,
 * zlib.crc32, a bitwise CRC-32 written here, and the packets of
 * tests/icrc_vectors.h (ICRC by scapy.contrib.roce, or zlib.crc32 of the
 * masked packet).
 */
#ifndef ICRC_CASES_H
#define ICRC_CASES_H

#include <stddef.h>
#include <stdint.h>

/* Bit by bit, reflected polynomial 0xEDB88320, ~0 in and out. */
uint32_t icrc_ref_crc32(uint32_t crc, const uint8_t *p, size_t n);

/* Each runs its cases through the path |impl| (RTEL__CRC_*, which must be
 * supported). Returns 0, or 1 with the first failure described in |why|
 * (|whylen| bytes). */
int icrc_cases_known(unsigned impl, char *why, size_t whylen);
int icrc_cases_lengths(unsigned impl, char *why, size_t whylen);
int icrc_cases_random(unsigned impl, char *why, size_t whylen);
int icrc_cases_packets(unsigned impl, char *why, size_t whylen);

#endif /* ICRC_CASES_H */
