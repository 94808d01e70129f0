/*
 * bind-stamps: the stamp of each directory in a list, as a Node process would read it, for
 * the bind check's memo (tools/core/src/sandbox/bind-stamps.ts says why it exists).
 *
 * stdin:  paths, each ended by a NUL byte (a trailing unended one is ignored).
 * stdout: per path, four float64s in this machine's byte order (its reader is on the same
 *         machine): dev, ino, mtimeMs, ctimeMs, computed as
 *         Node 20's number Stats computes them from lstat (ms = sec * 1000 + nsec / 1e6);
 *         all four NaN when lstat fails or the path is not a directory.
 * exit:   0 when every stamp was written, 1 otherwise (bad input or a failed write).
 *
 * It reads nothing else, writes nothing else and follows no symlink.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* More than any memo holds (every directory under a system directory, NUL-separated). */
#define MAX_INPUT (64u << 20)

static double ms_of(struct timespec t) {
  return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec / 1000000.0;
}

int main(void) {
  size_t cap = 1u << 20, len = 0;
  char *in = malloc(cap);
  if (in == NULL) return 1;
  for (;;) {
    if (len == cap) {
      if (cap >= MAX_INPUT) return 1;
      cap *= 2;
      char *grown = realloc(in, cap);
      if (grown == NULL) return 1;
      in = grown;
    }
    ssize_t n = read(STDIN_FILENO, in + len, cap - len);
    if (n < 0) return 1;
    if (n == 0) break;
    len += (size_t)n;
  }
  for (size_t at = 0; at < len;) {
    char *end = memchr(in + at, '\0', len - at);
    if (end == NULL) break;
    struct stat st;
    double stamp[4] = { NAN, NAN, NAN, NAN };
    if (lstat(in + at, &st) == 0 && S_ISDIR(st.st_mode)) {
      stamp[0] = (double)st.st_dev;
      stamp[1] = (double)st.st_ino;
      stamp[2] = ms_of(st.st_mtim);
      stamp[3] = ms_of(st.st_ctim);
    }
    if (fwrite(stamp, sizeof stamp, 1, stdout) != 1) return 1;
    at = (size_t)(end - in) + 1;
  }
  if (fflush(stdout) != 0) return 1;
  return 0;
}
