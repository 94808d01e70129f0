/*
 * kernel-probe: one attempt on kernel state the sandbox must not reach, for
 * test/adversarial/kernel-state.test.ts, which compiles it and runs it inside the sandbox and,
 * as its positive control, outside it. Each argument is one probe, PROBE or PROBE=ARG, run in
 * order; each prints one line: "PROBE ok DETAIL" when the call worked, "PROBE err ERRNO-NAME"
 * when it failed. Exits 0 (a kill by the filter is a signal), 2 for an unknown probe.
 *
 * read ID            keyctl(KEYCTL_READ) of key ID
 * search NAME        keyctl(KEYCTL_SEARCH) for user key NAME from the session keyring
 * describe-session   keyctl(KEYCTL_DESCRIBE) of the session keyring
 * add RING           add_key a user key to RING (session or user), then invalidate it
 * add-keep RING      add_key a user key to RING and keep it; prints its id
 * proc-keys          read /proc/keys; prints its line count
 * io_uring           io_uring_setup(1)
 * ptrace-parent      a forked child PTRACE_SEIZEs this process (which allowed any tracer)
 * vsock, inet        socket(AF_VSOCK / AF_INET, SOCK_STREAM)
 * unix               socketpair(AF_UNIX)
 * fd N               fcntl(N, F_GETFD): whether descriptor N is open
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define KEYCTL_DESCRIBE 6
#define KEYCTL_SEARCH 10
#define KEYCTL_READ 11
#define KEYCTL_INVALIDATE 21
#define KEY_SPEC_SESSION_KEYRING -3
#define KEY_SPEC_USER_KEYRING -4

static int result(long r) {
  if (r < 0) printf("err %s\n", strerrorname_np(errno));
  else printf("ok %ld\n", r);
  return 0;
}

static int probe(const char *what, const char *arg);

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  for (int i = 1; i < argc; i++) {
    char what[64];
    const char *eq = strchr(argv[i], '=');
    size_t n = eq == NULL ? strlen(argv[i]) : (size_t)(eq - argv[i]);
    if (n >= sizeof what) n = sizeof what - 1;
    memcpy(what, argv[i], n);
    what[n] = 0;
    printf("%s ", what);
    if (probe(what, eq == NULL ? "" : eq + 1) != 0) return 2;
  }
  return 0;
}

static long ring(const char *name) {
  return strcmp(name, "user") == 0 ? KEY_SPEC_USER_KEYRING : KEY_SPEC_SESSION_KEYRING;
}

static int probe(const char *what, const char *arg) {
  char buf[4096];
  if (strcmp(what, "read") == 0) {
    long n = syscall(SYS_keyctl, KEYCTL_READ, atol(arg), buf, sizeof buf - 1);
    if (n < 0) return result(n);
    buf[n < (long)sizeof buf - 1 ? n : (long)sizeof buf - 1] = 0;
    printf("ok %s\n", buf);
    return 0;
  }
  if (strcmp(what, "search") == 0) return result(syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, "user", arg, 0));
  if (strcmp(what, "describe-session") == 0) {
    long n = syscall(SYS_keyctl, KEYCTL_DESCRIBE, KEY_SPEC_SESSION_KEYRING, buf, sizeof buf - 1);
    if (n < 0) return result(n);
    buf[sizeof buf - 1] = 0;
    printf("ok %s\n", buf);
    return 0;
  }
  if (strcmp(what, "add") == 0 || strcmp(what, "add-keep") == 0) {
    char name[64];
    snprintf(name, sizeof name, "rl-kernel-probe-%d", (int)getpid());
    long id = syscall(SYS_add_key, "user", name, "planted", 7, ring(arg));
    if (id >= 0 && strcmp(what, "add") == 0) syscall(SYS_keyctl, KEYCTL_INVALIDATE, id);
    return result(id);
  }
  if (strcmp(what, "proc-keys") == 0) {
    FILE *f = fopen("/proc/keys", "r");
    if (f == NULL) return result(-1);
    long lines = 0;
    while (fgets(buf, sizeof buf, f) != NULL) lines++;
    fclose(f);
    return result(lines);
  }
  if (strcmp(what, "io_uring") == 0) {
    char params[120] = {0};
    long fd = syscall(SYS_io_uring_setup, 1, params);
    if (fd >= 0) close((int)fd);
    return result(fd);
  }
  if (strcmp(what, "ptrace-parent") == 0) {
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    pid_t parent = getpid();
    pid_t child = fork();
    if (child < 0) return result(-1);
    if (child == 0) {
      result(ptrace(PTRACE_SEIZE, parent, NULL, NULL));
      _exit(0);
    }
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    return 0;
  }
  if (strcmp(what, "vsock") == 0 || strcmp(what, "inet") == 0) {
    long s = socket(strcmp(what, "vsock") == 0 ? 40 : AF_INET, SOCK_STREAM, 0);
    if (s >= 0) close((int)s);
    return result(s);
  }
  if (strcmp(what, "unix") == 0) {
    int sv[2];
    long r = socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    if (r == 0) { close(sv[0]); close(sv[1]); }
    return result(r);
  }
  if (strcmp(what, "fd") == 0) return result(fcntl(atoi(arg), F_GETFD));
  fprintf(stderr, "kernel-probe: unknown probe %s\n", what);
  return 2;
}
