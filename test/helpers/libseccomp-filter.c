/*
 * libseccomp-filter: builds, with libseccomp, the filter tools/core/src/sandbox/seccomp.ts
 * describes, and writes its classic-BPF program to stdout (seccomp_export_bpf), so that
 * tools/core/test/seccomp.test.ts can compare the two programs' verdicts. Test-only.
 *
 * argv:  libseccomp-filter ARCH NAME=ERRNO... -- SOCKET_FAMILY... -- IOCTL... -- CLONE_FLAG...
 *        ARCH is x86_64 or aarch64; ERRNO a number; names that ARCH does not have are an error.
 * Names are resolved in the native numbering, which libseccomp translates for ARCH.
 * Rules: default allow; another architecture (and x32 on x86_64) kills the process; each NAME
 * returns its errno; socket and socketpair return EAFNOSUPPORT unless the low 32 bits of the
 * family are one of SOCKET_FAMILY; ioctl returns EPERM for each IOCTL (low 32 bits); clone
 * returns EPERM when the low 32 bits of its flags have any CLONE_FLAG.
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char *what, int rc) {
  fprintf(stderr, "libseccomp-filter: %s: %s\n", what, strerror(rc < 0 ? -rc : rc));
  exit(1);
}

int main(int argc, char **argv) {
  if (argc < 2) fail("usage", EINVAL);
  uint32_t arch = strcmp(argv[1], "x86_64") == 0 ? SCMP_ARCH_X86_64 : strcmp(argv[1], "aarch64") == 0 ? SCMP_ARCH_AARCH64 : 0;
  if (arch == 0) fail(argv[1], EINVAL);
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == NULL) fail("seccomp_init", ENOMEM);
  int rc;
  if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)) != 0) fail("badarch", rc);
  if (seccomp_arch_native() != arch) {
    if ((rc = seccomp_arch_add(ctx, arch)) != 0) fail("arch_add", rc);
    if ((rc = seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE)) != 0) fail("arch_remove", rc);
  }
  int i = 2;
  for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
    char *eq = strchr(argv[i], '=');
    if (eq == NULL) fail(argv[i], EINVAL);
    *eq = 0;
    int nr = seccomp_syscall_resolve_name(argv[i]);
    if (nr == __NR_SCMP_ERROR || nr < 0) fail(argv[i], ENOENT);
    if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(atoi(eq + 1)), nr, 0)) != 0) fail(argv[i], rc);
  }
  /* socket families: deny every low-32-bit value but the allowed ones, as ranges. */
  long allowed[16];
  int n = 0;
  for (i++; i < argc && strcmp(argv[i], "--") != 0 && n < 16; i++) allowed[n++] = atol(argv[i]);
  const char *socket_calls[] = {"socket", "socketpair"};
  for (int c = 0; c < 2; c++) {
    int nr = seccomp_syscall_resolve_name(socket_calls[c]);
    long from = 0;
    for (long f = 0; f <= 64; f++) {
      int ok = 0;
      for (int k = 0; k < n; k++) ok |= allowed[k] == f;
      if (!ok) continue;
      for (long g = from; g < f; g++) {
        if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), nr, 1, SCMP_A0_32(SCMP_CMP_EQ, g))) != 0) fail("socket", rc);
      }
      from = f + 1;
    }
    if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), nr, 1, SCMP_A0_32(SCMP_CMP_GE, from))) != 0) fail("socket", rc);
  }
  int ioctl_nr = seccomp_syscall_resolve_name("ioctl");
  for (i++; i < argc && strcmp(argv[i], "--") != 0; i++) {
    if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), ioctl_nr, 1, SCMP_A1_32(SCMP_CMP_EQ, strtoul(argv[i], NULL, 0)))) != 0) fail("ioctl", rc);
  }
  int clone_nr = seccomp_syscall_resolve_name("clone");
  for (i++; i < argc; i++) {
    unsigned long flag = strtoul(argv[i], NULL, 0);
    if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), clone_nr, 1, SCMP_A0_32(SCMP_CMP_MASKED_EQ, flag, flag))) != 0) fail("clone", rc);
  }
  if ((rc = seccomp_export_bpf(ctx, 1)) != 0) fail("export", rc);
  seccomp_release(ctx);
  return 0;
}
