/* SPDX-License-Identifier: MIT */
/* Internal helpers shared by the library's modules. Not installed. */
#ifndef RTEL_INT_H
#define RTEL_INT_H

#ifdef HAVE_CONFIG_H
#  include <config.h>
#endif

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rocetel/rocetel.h>

#if defined(__GNUC__) || defined(__clang__)
#  define rtel__likely(x) __builtin_expect(!!(x), 1)
#  define rtel__unlikely(x) __builtin_expect(!!(x), 0)
#  define rtel__inline inline __attribute__((always_inline))
#  define rtel__noinline __attribute__((noinline))
#  define rtel__prefetch(p) __builtin_prefetch((p), 0, 3)
/* ... for a line about to be written */
#  define rtel__prefetch_w(p) __builtin_prefetch((p), 1, 3)
/* data shared by the library's files: addressed directly, not through the
 * GOT (-fvisibility=hidden hides definitions; a declaration may still
 * name another library's symbol, so without this each access loads the
 * address first) */
#  if defined(_WIN32) || defined(__CYGWIN__)
#    define rtel__hidden /* (PE/COFF: no ELF visibility) */
#  else
#    define rtel__hidden __attribute__((visibility("hidden")))
#  endif
#else
#  define rtel__likely(x) (x)
#  define rtel__unlikely(x) (x)
#  define rtel__inline inline
#  define rtel__noinline
#  define rtel__prefetch(p) ((void)(p))
#  define rtel__prefetch_w(p) ((void)(p))
#  define rtel__hidden
#endif

/* The default allocator (rtel_mem_default() for the library's own use).
 * NULL when built with RTEL_FREESTANDING, which has none (lib/rtel_mem.c):
 * the caller must then pass an rtel_mem. */
const rtel_mem *rtel__mem_default(void);

/* Largest table capacity a setting may ask for. */
#define RTEL__MAX_TABLE (1u << 26)

/* A layout the code relies on (C11). */
#define RTEL__STATIC_ASSERT(cond, what) _Static_assert(cond, what)

/* Big-endian loads from a byte buffer (bounds are the caller's job). A
 * memcpy of the whole word and one byte swap compile to a single load and
 * bswap/movbe, a third of the instructions of byte-by-byte assembly. The
 * builtin keeps that true in a freestanding (-fno-builtin) build. */
#if defined(__GNUC__) || defined(__clang__)
#  define rtel__wordcpy __builtin_memcpy
#  ifdef WORDS_BIGENDIAN
#    define RTEL__BE16(x) (x)
#    define RTEL__BE32(x) (x)
#    define RTEL__BE64(x) (x)
#  else
#    define RTEL__BE16(x) __builtin_bswap16(x)
#    define RTEL__BE32(x) __builtin_bswap32(x)
#    define RTEL__BE64(x) __builtin_bswap64(x)
#  endif
static inline uint16_t rtel__get16(const uint8_t *p) {
  uint16_t v;
  rtel__wordcpy(&v, p, 2);
  return RTEL__BE16(v);
}
static inline uint32_t rtel__get32(const uint8_t *p) {
  uint32_t v;
  rtel__wordcpy(&v, p, 4);
  return RTEL__BE32(v);
}
static inline uint64_t rtel__get64(const uint8_t *p) {
  uint64_t v;
  rtel__wordcpy(&v, p, 8);
  return RTEL__BE64(v);
}
#else
static inline uint16_t rtel__get16(const uint8_t *p) {
  return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}
static inline uint32_t rtel__get32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         p[3];
}
static inline uint64_t rtel__get64(const uint8_t *p) {
  return (uint64_t)rtel__get32(p) << 32 | rtel__get32(p + 4);
}
#endif
/* 24-bit fields: read with the byte before them (which every caller has
 * in bounds: QPNs and PSNs follow a flag byte) and mask. */
static inline uint32_t rtel__get24(const uint8_t *p) {
  return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}
static inline uint32_t rtel__get24b(const uint8_t *p) {
  return rtel__get32(p - 1) & 0xffffffu;
}
/* Little-endian loads (NVMe structures, the ICRC trailer). */
static inline uint16_t rtel__get16le(const uint8_t *p) {
  return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t rtel__get24le(const uint8_t *p) {
  return (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}
static inline uint32_t rtel__get32le(const uint8_t *p) {
  return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 |
         p[0];
}
static inline uint64_t rtel__get64le(const uint8_t *p) {
  return (uint64_t)rtel__get32le(p + 4) << 32 | rtel__get32le(p);
}

/* A 64-bit to 32-bit hash finaliser (MurmurHash3's fmix64). */
static inline uint32_t rtel__mix32(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return (uint32_t)x;
}

/* The smallest power of two at least |v| (bucket counts). */
static inline uint32_t rtel__pow2_at_least(uint32_t v) {
  uint32_t p = 1;
  while (p < v) {
    p <<= 1;
  }
  return p;
}

/* The first 64-byte boundary at or after |p|: the tables allocate 63
 * bytes more (rtel_mem promises no alignment) and start there, so that an
 * entry whose stride is whole lines keeps its fields in the lines it
 * chose. */
static inline void *rtel__align64(void *p) {
  return (uint8_t *)p + ((64u - ((uintptr_t)p & 63u)) & 63u);
}

/*
 * Length of the prefix of a versioned struct that a given version has:
 * offsetof(last field of that version) + its size. Each versioned struct
 * has a function returning this (0 for an unknown version).
 */
#define rtel__struct_len(TYPE, LASTFIELD)                                     \
  (offsetof(TYPE, LASTFIELD) + sizeof(((TYPE *)0)->LASTFIELD))

/* The length of |version| of TYPE: the whole struct for the library's
 * latest version, the prefix up to LAST1 for version 1 (a later version
 * adds its own case), 0 for a version this library does not know. */
#define rtel__version_len(version, LATEST, TYPE, LAST1)                       \
  ((version) == (LATEST) ? sizeof(TYPE)                                       \
   : (version) == 1      ? rtel__struct_len(TYPE, LAST1)                      \
                         : 0)

/* The start of the period of length |iv| that holds |ts|, with period
 * boundaries at |origin| + k x |iv| (rtel_settings.period_origin); |ts|
 * itself with no origin (0) or no period. Clamped at 0. */
static inline rtel_tstamp
rtel__period_start(rtel_tstamp ts, rtel_tstamp origin, rtel_tstamp iv) {
  rtel_tstamp r;
  if (origin == 0 || iv == 0) {
    return ts;
  }
  if (ts >= origin) {
    return ts - (ts - origin) % iv;
  }
  r = (origin - ts) % iv;
  if (r == 0) {
    return ts;
  }
  return ts >= iv - r ? ts - (iv - r) : 0;
}

/* What the flow table's fast case reads of a plain data packet, decoded
 * by rtel__decode_data() (rtel_parse.c) for rtel__flow_fast() (rtel_flow.c):
 * each field as the same field of rtel_pkt_hd would hold it. */
typedef struct rtel__dpkt {
  uint8_t src[16];
  uint8_t dst[16];
  uint32_t dqpn;
  uint32_t psn;
  uint32_t payload_len;
  uint32_t ip_len;
  uint32_t wire_len;
  uint16_t nvlan;
  uint8_t opcode;
  uint8_t ecn;
  uint8_t fecn;
  uint8_t truncated; /* RTEL_HD_F_TRUNCATED */
} rtel__dpkt;

#endif /* RTEL_INT_H */
