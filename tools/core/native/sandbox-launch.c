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
 * After the '1', stdin stays open. A 'k' on it means "stop": the watch SIGKILLs the chain and
 * every task in the DIRs (the supervisor drains and removes them). Its end means the
 * supervisor is gone (its descriptors close before its pidfd says so), as its pidfd firing
 * does: the watch kills the chain and every task in the DIRs, removes them and exits 125.
 * The watch is the chain's
 * child subreaper: whatever of the chain is orphaned is reaped here at once, so no zombie
 * keeps a DIR from being removed; it exits once the chain and every such orphan are reaped.
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
#include <sys/signalfd.h>
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

/* SIGKILLs every task listed in the DIRs, once. */
static void kill_tasks(int n, char **dirs) {
  for (int i = 0; i < n; i++) {
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/cgroup.procs", dirs[i]) >= (int)sizeof path) continue;
    FILE *f = fopen(path, "re");
    if (f == NULL) continue;
    long pid;
    while (fscanf(f, "%ld", &pid) == 1) {
      if (pid > 0) kill((pid_t)pid, SIGKILL);
    }
    fclose(f);
  }
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

/* Keeps only the `n` descriptors in `keep` (ascending, all above 2); 0, 1 and 2 become /dev/null. */
static void drop_descriptors(const int *keep, int n) {
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd = 0; fd <= 2; fd++) {
    if (null >= 0 && null != fd) dup2(null, fd);
  }
  unsigned lo = 3;
  for (int i = 0; i < n; i++) {
    if ((unsigned)keep[i] > lo) syscall(SYS_close_range, lo, (unsigned)keep[i] - 1, 0u);
    lo = (unsigned)keep[i] + 1;
  }
  syscall(SYS_close_range, lo, ~0u, 0u);
}

/* Reaps every child that has ended, noting the chain's status; -1 once none is left. */
static pid_t reap(pid_t chain, int *status, int *chain_done) {
  int st;
  pid_t pid;
  while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
    if (pid == chain) {
      *status = st;
      *chain_done = 1;
    }
  }
  return pid;
}

/* Ends this process as the chain ended: its exit code, or the signal that killed it. */
static int relay(int status) {
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

/* The supervisor died without its teardown: nothing of the run may outlive it. */
static int abandon(pid_t chain, int chain_done, int n, char **dirs) {
  const struct timespec pause = {0, 2000000};
  int status, done = chain_done;
  if (!done) kill(chain, SIGKILL);
  clear_groups(n, dirs);
  for (int round = 0; round < 1000 && reap(chain, &status, &done) == 0; round++) nanosleep(&pause, NULL);
  return FAILED;
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
  /* SIGCHLD through a descriptor; the chain gets the mask it would have had. */
  sigset_t chld, mask;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  if (sigprocmask(SIG_BLOCK, &chld, &mask) != 0) return FAILED;
  int chld_fd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  int control = fcntl(0, F_DUPFD_CLOEXEC, 3);
  /* Orphans of the chain (bwrap's child, when bwrap dies first) become ours and are reaped at
   * once: an unreaped zombie keeps its cgroup from being removed, and this host's init may
   * never reap it. */
  if (chld_fd < 0 || control < 0 || prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    say("cannot watch the chain: %s", strerror(errno));
    clear_groups((int)n, dirs);
    return FAILED;
  }
  pid_t watch = getpid();
  pid_t chain = fork();
  if (chain < 0) {
    say("fork: %s", strerror(errno));
    clear_groups((int)n, dirs);
    return FAILED;
  }
  if (chain == 0) {
    sigprocmask(SIG_SETMASK, &mask, NULL);
    start_chain(watch, (int)n, dirs, program);
  }
  int keep[3] = {supervisor_fd, chld_fd, control};
  for (int i = 1; i < 3; i++) {
    for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
      int t = keep[j];
      keep[j] = keep[j - 1];
      keep[j - 1] = t;
    }
  }
  drop_descriptors(keep, 3);
  /* Relaying a crash signal must not dump the watch's core. */
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  int status = 0, chain_done = 0;
  for (;;) {
    struct pollfd p[3] = {{supervisor_fd, POLLIN, 0}, {chld_fd, POLLIN, 0}, {control, POLLIN, 0}};
    if (poll(p, 3, -1) < 0) {
      if (errno == EINTR) continue;
      return abandon(chain, chain_done, (int)n, dirs);
    }
    if (p[0].revents != 0) return abandon(chain, chain_done, (int)n, dirs);
    if (p[2].revents != 0) {
      char b[16];
      ssize_t got = read(control, b, sizeof b);
      if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      /* stdin ended: the supervisor is gone, whatever its pidfd says yet. */
      if (got <= 0) return abandon(chain, chain_done, (int)n, dirs);
      if (memchr(b, 'k', (size_t)got) != NULL) {
        /* The supervisor stops the run; it drains and removes the groups itself. */
        if (!chain_done) kill(chain, SIGKILL);
        kill_tasks((int)n, dirs);
      }
    }
    if (p[1].revents != 0) {
      struct signalfd_siginfo info;
      while (read(chld_fd, &info, sizeof info) > 0) {}
      pid_t left = reap(chain, &status, &chain_done);
      if (chain_done && left < 0) return relay(status);
      /* The chain has ended: what it left of the run ends too. */
      if (chain_done) kill_tasks((int)n, dirs);
    }
  }
}
