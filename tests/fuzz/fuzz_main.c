/* SPDX-License-Identifier: MIT */
/*
 * Replays fuzz inputs through LLVMFuzzerTestOneInput() without libFuzzer,
 * so `make check` runs the seed corpus with any compiler.
 *
 *   fuzz_main [-n] [FILE|DIR]...
 *
 * Without arguments it replays $top_srcdir/tests/fuzz/corpus (or
 * $srcdir/tests/fuzz/corpus, or ./tests/fuzz/corpus). For every input it
 * also runs, unless -n is given or FUZZ_NO_SWEEP is set:
 *  - every prefix of the frame (truncated captures), each in an exact-size
 *    buffer, with the file's option byte;
 *  - the whole frame under each of the 256 option bytes.
 *
 * Built with -DFUZZ_SEQ (tests/fuzz/fuzz_seq_main, the sequence harness
 * fuzz_seq.c), the default corpus is tests/fuzz/corpus-seq and the sweeps
 * are those of a sequence: every prefix that ends on an event boundary
 * (the 32-byte header, then 16-byte events), the whole input with
 * each bit of the flag byte (byte 0) flipped, and with the timed pair
 * (byte 26 bit 0) flipped, packets alone and in bursts.
 * Built with -DFUZZ_CAPFILE (tests/fuzz/fuzz_capfile_main, the capture
 * file reader harness fuzz_capfile.c), the default corpus is
 * tests/fuzz/corpus-capfile and the sweeps are every prefix of the file
 * and the file with each byte set to 0xff and to 0 (lying lengths).
 * Built with -DFUZZ_IPFIX (tests/fuzz/fuzz_ipfix_main, the IPFIX encoder
 * harness fuzz_ipfix.c), the default corpus is tests/fuzz/corpus-ipfix and
 * the sweeps are every prefix longer than the 16-byte header (in steps of
 * 13 bytes) and the whole input with the type-record flag (byte 10, bit 0)
 * flipped and with the smallest and largest message size (bytes 8, 9).
 * Exits 0 when all inputs ran, 99 when the corpus cannot be read; a library
 * bug aborts (or is reported by a sanitizer when built with one).
 */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long n_inputs, n_runs;
static int sweep = 1;

static uint8_t *dup_exact(const uint8_t *p, size_t n) {
  uint8_t *d = malloc(n ? n : 1);
  if (d == NULL) {
    perror("malloc");
    exit(99);
  }
  if (n) {
    memcpy(d, p, n);
  }
  return d;
}

static void run_one(const uint8_t *p, size_t n) {
  uint8_t *d = dup_exact(p, n);
  LLVMFuzzerTestOneInput(d, n);
  free(d);
  ++n_runs;
}

#if defined(FUZZ_CAPFILE)
#  define FUZZ_CORPUS "corpus-capfile"
#elif defined(FUZZ_IPFIX)
#  define FUZZ_CORPUS "corpus-ipfix"
#  define IPFIX_HDR 16
#elif defined(FUZZ_SEQ)
#  define FUZZ_CORPUS "corpus-seq"
#  define SEQ_HDR 32
#  define SEQ_EV 16
#else
#  define FUZZ_CORPUS "corpus"
#endif

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  uint8_t *buf = NULL;
  size_t len = 0, cap = 0, k;
  unsigned opt;

  if (f == NULL) {
    perror(path);
    return -1;
  }
  for (;;) {
    if (len == cap) {
      uint8_t *nb;
      cap = cap ? 2 * cap : 4096;
      nb = realloc(buf, cap);
      if (nb == NULL) {
        perror("realloc");
        exit(99);
      }
      buf = nb;
    }
    k = fread(buf + len, 1, cap - len, f);
    if (k == 0) {
      break;
    }
    len += k;
  }
  if (ferror(f)) {
    perror(path);
    fclose(f);
    free(buf);
    return -1;
  }
  fclose(f);

  if (getenv("FUZZ_VERBOSE") != NULL) {
    fprintf(stderr, "replay %s (%zu bytes)\n", path, len);
  }
  run_one(buf, len);
#if defined(FUZZ_CAPFILE)
  if (sweep && len > 1) {
    uint8_t *v;
    for (k = 0; k < len; k++) { /* every prefix: a file cut anywhere */
      run_one(buf, k);
    }
    v = dup_exact(buf, len);
    for (k = 0; k < len; k++) { /* every byte at its extremes: lengths */
      v[k] = 0xff;
      run_one(v, len);
      v[k] = 0;
      run_one(v, len);
      v[k] = buf[k];
    }
    free(v);
  }
  (void)opt;
#elif defined(FUZZ_IPFIX)
  if (sweep && len > IPFIX_HDR) {
    uint8_t *v;
    for (k = IPFIX_HDR + 1; k < len; k += 13) { /* shorter sequences */
      run_one(buf, k);
    }
    v = dup_exact(buf, len);
    v[10] ^= 1u; /* type records on / off */
    run_one(v, len);
    v[10] = buf[10];
    v[8] = v[9] = 0; /* 512-byte messages */
    run_one(v, len);
    v[8] = v[9] = 0xff; /* nearly the largest */
    run_one(v, len);
    free(v);
  }
  (void)opt;
#elif defined(FUZZ_SEQ)
  if (sweep && len > 1) {
    uint8_t *v;
    for (k = SEQ_HDR; k < len; k += SEQ_EV) { /* every shorter sequence */
      run_one(buf, k);
    }
    v = dup_exact(buf, len);
    for (opt = 0; opt < 8; opt++) { /* each flag of the header */
      v[0] = (uint8_t)(buf[0] ^ (1u << opt));
      run_one(v, len);
    }
    if (len > 26) { /* the timed pair, packets alone and in bursts */
      v[0] = buf[0];
      v[26] = (uint8_t)(buf[26] ^ 1u);
      run_one(v, len);
      v[0] = (uint8_t)(buf[0] ^ 0x20u);
      run_one(v, len);
    }
    free(v);
  }
#else
  if (sweep && len > 1) {
    uint8_t *v;
    for (k = 1; k < len; ++k) { /* every truncation, same option byte */
      run_one(buf, k);
    }
    v = dup_exact(buf, len);
    for (opt = 0; opt < 256; ++opt) { /* every option byte, whole frame */
      v[0] = (uint8_t)opt;
      run_one(v, len);
    }
    free(v);
  }
#endif
  free(buf);
  ++n_inputs;
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int replay_path(const char *path) {
  struct stat sb;
  DIR *d;
  struct dirent *de;
  char **names = NULL;
  size_t n = 0, cap = 0, i;
  int rv = 0;

  if (stat(path, &sb) != 0) {
    perror(path);
    return -1;
  }
  if (!S_ISDIR(sb.st_mode)) {
    return replay_file(path);
  }
  d = opendir(path);
  if (d == NULL) {
    perror(path);
    return -1;
  }
  while ((de = readdir(d)) != NULL) {
    size_t l;
    if (de->d_name[0] == '.') {
      continue;
    }
    if (n == cap) {
      char **nn;
      cap = cap ? 2 * cap : 64;
      nn = realloc(names, cap * sizeof(*names));
      if (nn == NULL) {
        perror("realloc");
        exit(99);
      }
      names = nn;
    }
    l = strlen(path) + 1 + strlen(de->d_name) + 1;
    names[n] = malloc(l);
    if (names[n] == NULL) {
      perror("malloc");
      exit(99);
    }
    snprintf(names[n], l, "%s/%s", path, de->d_name);
    ++n;
  }
  closedir(d);
  if (n > 0) {
    qsort(names, n, sizeof(*names), cmp_str); /* deterministic order */
  }
  for (i = 0; i < n; ++i) {
    if (stat(names[i], &sb) == 0 && S_ISREG(sb.st_mode) &&
        replay_file(names[i]) != 0) {
      rv = -1;
    }
    free(names[i]);
  }
  free(names);
  return rv;
}

int main(int argc, char **argv) {
  int i, first = 1, rv = 0;
  char def[4096];

  if (getenv("FUZZ_NO_SWEEP") != NULL) {
    sweep = 0;
  }
  if (argc > 1 && strcmp(argv[1], "-n") == 0) {
    sweep = 0;
    first = 2;
  }
  if (first >= argc) {
    const char *top = getenv("top_srcdir");
    if (top == NULL || *top == '\0') {
      top = getenv("srcdir");
    }
    if (top == NULL || *top == '\0') {
      top = ".";
    }
    snprintf(def, sizeof(def), "%s/tests/fuzz/" FUZZ_CORPUS, top);
    rv = replay_path(def);
  } else {
    for (i = first; i < argc; ++i) {
      if (replay_path(argv[i]) != 0) {
        rv = -1;
      }
    }
  }
  printf("fuzz_main: %lu inputs, %lu runs%s\n", n_inputs, n_runs,
         sweep ? " (with truncation and option sweeps)" : "");
  if (rv != 0 || n_inputs == 0) {
    fprintf(stderr, "fuzz_main: %s\n",
            rv != 0 ? "some inputs could not be read" : "no inputs found");
    return 99;
  }
  return 0;
}
