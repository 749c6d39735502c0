// The implementations behind include/CSystem.h (see there for why they are C).
#define _GNU_SOURCE
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <libavutil/log.h>

#include "CSystem.h"

int csys_set_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

int csys_malloc_trim(void) { return malloc_trim(0); }

int csys_clear_refs(void) {
    int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = write(fd, "1", 1);
    int saved = errno;
    close(fd);
    errno = saved;
    return n == 1 ? 0 : -1;
}

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21  /* Linux 5.4; older headers lack it */
#endif
int csys_pageout(unsigned long addr, unsigned long len) { return madvise((void *)addr, len, MADV_PAGEOUT); }
int csys_unmap_pages(unsigned long addr, unsigned long len) { return madvise((void *)addr, len, MADV_DONTNEED); }

int csys_cpus_allowed(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
}

int csys_peer_credentials(int fd, unsigned int *uid, int *pid) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    *uid = cred.uid;
    *pid = cred.pid;
    return 0;
}

int csys_memfd(const char *name) { return memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING); }

int csys_seal_size(int fd) { return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL); }

static __thread char av_last_error[240];

static void av_capture(void *avcl, int level, const char *fmt, va_list vl) {
    (void)avcl;
    if (level > AV_LOG_ERROR) return;
    char line[sizeof av_last_error];
    va_list copy;
    va_copy(copy, vl);
    int n = vsnprintf(line, sizeof line, fmt, copy);
    va_end(copy);
    if (n <= 0) return;
    size_t len = strlen(line);
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == ' ' || line[len - 1] == '.')) line[--len] = 0;
    if (len > 0) memcpy(av_last_error, line, len + 1);
}

void csys_av_log_capture(void) { av_log_set_callback(av_capture); }

void csys_av_clear_error(void) { av_last_error[0] = 0; }

const char *csys_av_last_error(void) { return av_last_error; }

void csys_blend(unsigned char *restrict dst, const unsigned char *restrict a, const unsigned char *restrict b,
                unsigned long n, unsigned w) {
    if (w > 256) w = 256;
    unsigned long i = 0;
#if defined(__SSE2__)
    /* 16 bytes a step in 16-bit lanes: a * (256 - w) + b * w <= 255 * 256 fits (the compiler,
       left to itself, widens every byte to 32 bits). */
    const __m128i zero = _mm_setzero_si128(), vw = _mm_set1_epi16((short)w), viw = _mm_set1_epi16((short)(256 - w));
    for (; i + 16 <= n; i += 16) {
        __m128i va = _mm_loadu_si128((const __m128i *)(a + i)), vb = _mm_loadu_si128((const __m128i *)(b + i));
        __m128i lo = _mm_add_epi16(_mm_mullo_epi16(_mm_unpacklo_epi8(va, zero), viw),
                                   _mm_mullo_epi16(_mm_unpacklo_epi8(vb, zero), vw));
        __m128i hi = _mm_add_epi16(_mm_mullo_epi16(_mm_unpackhi_epi8(va, zero), viw),
                                   _mm_mullo_epi16(_mm_unpackhi_epi8(vb, zero), vw));
        _mm_storeu_si128((__m128i *)(dst + i), _mm_packus_epi16(_mm_srli_epi16(lo, 8), _mm_srli_epi16(hi, 8)));
    }
#endif
    const unsigned iw = 256 - w;
    for (; i < n; i++) dst[i] = (unsigned char)((a[i] * iw + b[i] * w) >> 8);
}

int csys_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int csys_epoll_add(int epoll_fd, int fd) {
    struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };
    return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev);
}

int csys_timerfd_create(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK); }

int csys_timerfd_arm(int fd, long long nanos) {
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = nanos / 1000000000LL;
    spec.it_value.tv_nsec = nanos % 1000000000LL;
    return timerfd_settime(fd, 0, &spec, NULL);
}

int csys_timerfd_drain(int fd) {
    unsigned long long expirations = 0;
    return (int)read(fd, &expirations, sizeof expirations);
}

int csys_die_with_parent(int parent) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    return getppid() != parent;
}

int csys_sched_idle(void) {
    struct sched_param p = {0};
    return sched_setscheduler(0, SCHED_IDLE, &p);
}
