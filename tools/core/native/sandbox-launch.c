/*
 * sandbox-launch: starts the sandbox's launch chain (prlimit -> setpriv -> bwrap) already in
 * the run's cgroups, and removes those cgroups if the supervisor dies without doing so
 * (tools/core/src/sandbox/launcher.ts; docs/sandbox-lifetime.md).
 *
 * argv:   sandbox-launch SUPERVISOR_PID N DIR_1 .. DIR_N PROGRAM ARG...
 *         SUPERVISOR_PID must be this process's parent; each DIR is one of the run's cgroup
 *         directories (it has a cgroup.procs); PROGRAM is an absolute path.
 *
 * This process (the watch) is the supervisor's child, started before the supervisor makes
 * the DIRs. It ties itself to the supervisor with a pidfd (opened between two getppid()
 * checks, so it names the live parent, never a reused pid), then waits for the byte '1' on
 * stdin: the DIRs exist and hold their limits. Only then does it fork the chain. The chain's
 * first process sets PR_SET_PDEATHSIG (SIGKILL, tied to the watch, re-checked with
 * getppid()), takes /dev/null as stdin, writes its own pid into every DIR/cgroup.procs and
 * only then execs PROGRAM: every process of the chain, and all the sandbox starts, is in the
 * run's cgroups from its first instruction. The watch keeps none of the run's streams (its
 * stdin, stdout, stderr and every other descriptor are closed or /dev/null), so the
 * supervisor sees them close when the chain ends.
 *
 * exit:   the chain's status (its exit code, or the signal that killed it, raised again);
 *         125 when the chain could not be started or placed (a message on stderr), when
 *         stdin ended without the '1', or when the supervisor died: then every task in the
 *         DIRs that exist has been SIGKILLed and the DIRs removed (bounded: about 10 s).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FAILED 125
#define MAX_DIRS 16

static void say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("sandbox-launch: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static int pidfd_of(pid_t pid) {
  return (int)syscall(SYS_pidfd_open, pid, 0);
}

static long number(const char *s, long max) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v < 1 || v > max) return -1;
  return v;
}

/* SIGKILLs every task in the DIRs until each is empty and removed; 0 when all are gone. */
static int clear_groups(int n, char **dirs) {
  const struct timespec pause = {0, 2000000};
  for (int round = 0; round < 5000; round++) {
    int left = 0;
    for (int i = 0; i < n; i++) {
      char path[PATH_MAX];
      if (snprintf(path, sizeof path, "%s/cgroup.procs", dirs[i]) >= (int)sizeof path) continue;
      FILE *f = fopen(path, "re");
      if (f != NULL) {
        long pid;
        while (fscanf(f, "%ld", &pid) == 1) {
          if (pid > 0) kill((pid_t)pid, SIGKILL);
        }
        fclose(f);
      }
      if (rmdir(dirs[i]) != 0 && errno != ENOENT) left++;
    }
    if (left == 0) return 0;
    while (waitpid(-1, NULL, WNOHANG) > 0) {}
    nanosleep(&pause, NULL);
  }
  return -1;
}

/* The chain's first process: tied to the watch, placed, then PROGRAM. Never returns. */
static void start_chain(pid_t watch, int n, char **dirs, char **program) {
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != watch) _exit(FAILED);
  int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null < 0 || dup2(null, 0) != 0) {
    say("cannot open /dev/null as stdin: %s", strerror(errno));
    _exit(FAILED);
  }
  char self[32];
  int len = snprintf(self, sizeof self, "%d\n", (int)getpid());
  for (int i = 0; i < n; i++) {
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/cgroup.procs", dirs[i]) >= (int)sizeof path) {
      say("cgroup path too long: %s", dirs[i]);
      _exit(FAILED);
    }
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, self, (size_t)len) != len) {
      say("cannot place pid %d into %s: %s", (int)getpid(), dirs[i], strerror(errno));
      _exit(FAILED);
    }
    close(fd);
  }
  execv(program[0], program);
  say("cannot run %s: %s", program[0], strerror(errno));
  _exit(FAILED);
}

/* Keeps only `a` and `b` open; 0, 1 and 2 become /dev/null. */
static void drop_descriptors(int a, int b) {
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd = 0; fd <= 2; fd++) {
    if (null >= 0 && null != fd) dup2(null, fd);
  }
  int lo = a < b ? a : b, hi = a < b ? b : a;
  syscall(SYS_close_range, 3u, (unsigned)lo - 1, 0u);
  if (hi - lo > 1) syscall(SYS_close_range, (unsigned)lo + 1, (unsigned)hi - 1, 0u);
  syscall(SYS_close_range, (unsigned)hi + 1, ~0u, 0u);
}

int main(int argc, char **argv) {
  if (argc < 5) {
    say("usage: sandbox-launch SUPERVISOR_PID N DIR... PROGRAM ARG...");
    return FAILED;
  }
  long supervisor = number(argv[1], INT_MAX);
  long n = number(argv[2], MAX_DIRS);
  if (supervisor < 0 || n < 0 || argc < 4 + n || argv[3 + n][0] != '/') {
    say("usage: sandbox-launch SUPERVISOR_PID N DIR... PROGRAM ARG...");
    return FAILED;
  }
  char **dirs = argv + 3;
  char **program = argv + 3 + n;
  /* A supervisor already gone leaves its groups empty: remove them. */
  if (getppid() != (pid_t)supervisor) {
    clear_groups((int)n, dirs);
    return FAILED;
  }
  int supervisor_fd = pidfd_of((pid_t)supervisor);
  if (supervisor_fd < 0) {
    say("pidfd_open: %s", strerror(errno));
    return FAILED;
  }
  if (getppid() != (pid_t)supervisor) {
    clear_groups((int)n, dirs);
    return FAILED;
  }
  /* The supervisor's go: the DIRs are made. Its death or stdin's end first: nothing starts. */
  for (;;) {
    struct pollfd p[2] = {{supervisor_fd, POLLIN, 0}, {0, POLLIN, 0}};
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      say("poll: %s", strerror(errno));
      return FAILED;
    }
    if (p[0].revents != 0) {
      clear_groups((int)n, dirs);
      return FAILED;
    }
    if (p[1].revents != 0) {
      char go = 0;
      ssize_t got = read(0, &go, 1);
      if (got < 0 && errno == EINTR) continue;
      if (got == 1 && go == '1') break;
      clear_groups((int)n, dirs);
      return FAILED;
    }
  }
  pid_t watch = getpid();
  pid_t chain = fork();
  if (chain < 0) {
    say("fork: %s", strerror(errno));
    return FAILED;
  }
  if (chain == 0) {
    close(supervisor_fd);
    start_chain(watch, (int)n, dirs, program);
  }
  /* Our unreaped child: its pid cannot be reused while we hold it. */
  int chain_fd = pidfd_of(chain);
  if (chain_fd < 0) {
    say("pidfd_open: %s", strerror(errno));
    kill(chain, SIGKILL);
    clear_groups((int)n, dirs);
    return FAILED;
  }
  drop_descriptors(supervisor_fd, chain_fd);
  /* Relaying a crash signal must not dump the watch's core. */
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  for (;;) {
    struct pollfd p[2] = {{supervisor_fd, POLLIN, 0}, {chain_fd, POLLIN, 0}};
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return FAILED;
    }
    if (p[0].revents != 0) {
      /* The supervisor died without its teardown: nothing of the run may outlive it. */
      kill(chain, SIGKILL);
      clear_groups((int)n, dirs);
      return FAILED;
    }
    if (p[1].revents != 0) {
      int status;
      while (waitpid(chain, &status, 0) < 0) {
        if (errno != EINTR) return FAILED;
      }
      if (WIFEXITED(status)) return WEXITSTATUS(status);
      int sig = WTERMSIG(status);
      signal(sig, SIG_DFL);
      sigset_t one;
      sigemptyset(&one);
      sigaddset(&one, sig);
      sigprocmask(SIG_UNBLOCK, &one, NULL);
      raise(sig);
      return 128 + sig;
    }
  }
}
