/*
 * lockcheck clock shim: an LD_PRELOAD library that offsets a process's wall clock.
 *
 * The parent (lockcheck) owns a small file and maps it into this process: a seqlock-protected
 * record { seq, offset_ns, rate, anchor_ns }. Wall-clock reads return
 *   real + offset_ns + rate * (real - anchor_ns)
 * so the parent can step the clock (rewrite offset_ns) or make it drift (set rate and anchor).
 *
 * Why this shape: libfaketime deadlocks with Debian's jemalloc-built redis-server, because
 * resolving the real clock_gettime through dlsym can call malloc while the allocator is
 * initialising (and the allocator reads the clock). This shim never calls malloc and never
 * uses dlsym: it reads the real clock with the raw syscall, and maps the offset file once,
 * from a constructor, with open + mmap only.
 *
 * Only CLOCK_REALTIME (and its coarse variant), gettimeofday and time are shifted; monotonic
 * clocks pass through untouched, as on a machine whose NTP steps the wall clock.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

struct lockcheck_clock {
  uint64_t seq;      /* odd while the parent is writing */
  int64_t offset_ns; /* added to the real wall clock */
  double rate;       /* extra seconds per real second since anchor_ns (0.1: 10% fast) */
  int64_t anchor_ns; /* real wall-clock time the drift is measured from */
};

static const struct lockcheck_clock *shared_clock = 0;

__attribute__((constructor)) static void lockcheck_clock_init(void) {
  const char *path = getenv("LOCKCHECK_CLOCK_FILE");
  if (path == 0) return;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  void *p = mmap(0, sizeof(struct lockcheck_clock), PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (p != MAP_FAILED) shared_clock = (const struct lockcheck_clock *)p;
}

static int raw_clock_gettime(clockid_t clk, struct timespec *ts) {
  return (int)syscall(SYS_clock_gettime, clk, ts);
}

static int64_t offset_at(int64_t real_ns) {
  const struct lockcheck_clock *c = shared_clock;
  if (c == 0) return 0;
  for (int attempt = 0; attempt < 1000; attempt++) {
    uint64_t s1 = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
    if (s1 & 1) continue;
    int64_t offset = __atomic_load_n(&c->offset_ns, __ATOMIC_RELAXED);
    double rate;
    __atomic_load(&c->rate, &rate, __ATOMIC_RELAXED);
    int64_t anchor = __atomic_load_n(&c->anchor_ns, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    uint64_t s2 = __atomic_load_n(&c->seq, __ATOMIC_RELAXED);
    if (s1 != s2) continue;
    if (rate != 0.0) offset += (int64_t)(rate * (double)(real_ns - anchor));
    return offset;
  }
  return 0;
}

static int shifted_realtime(clockid_t clk, struct timespec *ts) {
  struct timespec real;
  int rc = raw_clock_gettime(clk, &real);
  if (rc != 0) return rc;
  int64_t ns = (int64_t)real.tv_sec * 1000000000LL + real.tv_nsec;
  ns += offset_at(ns);
  ts->tv_sec = ns / 1000000000LL;
  ts->tv_nsec = ns % 1000000000LL;
  if (ts->tv_nsec < 0) {
    ts->tv_nsec += 1000000000LL;
    ts->tv_sec -= 1;
  }
  return 0;
}

int clock_gettime(clockid_t clk, struct timespec *ts) {
  if (clk == CLOCK_REALTIME || clk == CLOCK_REALTIME_COARSE) return shifted_realtime(clk, ts);
  return raw_clock_gettime(clk, ts);
}

int gettimeofday(struct timeval *tv, void *tz) {
  (void)tz;
  struct timespec ts;
  int rc = shifted_realtime(CLOCK_REALTIME, &ts);
  if (rc != 0) return rc;
  tv->tv_sec = ts.tv_sec;
  tv->tv_usec = ts.tv_nsec / 1000;
  return 0;
}

time_t time(time_t *out) {
  struct timespec ts;
  shifted_realtime(CLOCK_REALTIME, &ts);
  if (out != 0) *out = ts.tv_sec;
  return ts.tv_sec;
}
