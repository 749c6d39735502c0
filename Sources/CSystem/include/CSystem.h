/*
 * CSystem: the few glibc/Linux calls Swift's Glibc module does not export (they need
 * _GNU_SOURCE or live in <malloc.h>). Compiled in shim.c, so that this header includes no
 * system header that the Glibc module also covers (clang would see two differing copies).
 * Everything here is prefixed csys_.
 */
#ifndef WAYLOOP_CSYSTEM_H
#define WAYLOOP_CSYSTEM_H

/* mallopt(M_MMAP_THRESHOLD, bytes): large blocks always through mmap, so freeing returns them. */
int csys_set_mmap_threshold(int bytes);

/* Clears the referenced bit of every page of this process (/proc/self/clear_refs, "1"), so that
 * smaps' Referenced counts only what is touched from now on. 0, or -1 with errno set. */
int csys_clear_refs(void);
/* madvise(MADV_PAGEOUT) over [addr, addr + len): the kernel reclaims those pages (clean file
 * pages are dropped, read again from the file when next touched). 0, or -1 with errno set. */
int csys_pageout(unsigned long addr, unsigned long len);
/// madvise(MADV_DONTNEED): drops the range's page-table entries (pages of a file stay in the page cache).
int csys_unmap_pages(unsigned long addr, unsigned long len);

/* The processors this process may run on (sched_getaffinity: taskset and cpusets count); 0 if unknown. */
int csys_cpus_allowed(void);
/* malloc_trim(0): hand freed heap back to the system. */
int csys_malloc_trim(void);

/* SO_PEERCRED: the uid and pid of a Unix-socket peer (struct ucred needs _GNU_SOURCE).
 * Returns 0, or -1 with errno set. */
int csys_peer_credentials(int fd, unsigned int *uid, int *pid);

/* memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING): anonymous memory for wl_shm pools.
 * Returns the fd, or -1 with errno set. */
int csys_memfd(const char *name);

/* A crossfade's blend over `n` bytes: dst = (a * (256 - w) + b * w) / 256 per byte, w in
   0...256 (b's share). In C so that the compiler vectorises it (16-32 bytes per instruction). */
void csys_blend(unsigned char *dst, const unsigned char *a, const unsigned char *b, unsigned long n, unsigned w);

/* Seals a memfd's size (the compositor maps it: it must never shrink under it). */
int csys_seal_size(int fd);

/* FFmpeg's error messages, per thread: its log callback takes a va_list, which Swift cannot
 * format. After csys_av_log_capture(), the last message at AV_LOG_ERROR or worse that the
 * calling thread logged ("Picture size 65535x65535 is invalid") is kept until cleared; nothing
 * is printed. */
void csys_av_log_capture(void);
void csys_av_clear_error(void);
/* The last captured message ("" if none): valid until this thread logs again. */
const char *csys_av_last_error(void);

/* The embedded view's one fd for its host: an epoll set (-1 on failure) over its fds, and a
 * timerfd (CLOCK_MONOTONIC, non-blocking; -1 on failure) armed `nanos` from now (0 disarms). */
int csys_epoll_create(void);
int csys_epoll_add(int epoll_fd, int fd);
/* This process at SCHED_IDLE (it runs only when nothing else wants the CPU); 0 or -1 (errno). */
int csys_sched_idle(void);
/* SIGTERM to this process when the thread that started it ends (prctl is variadic); then
 * whether that parent is already gone (1: it ended before this was set). */
int csys_die_with_parent(int parent);
int csys_timerfd_create(void);
int csys_timerfd_arm(int fd, long long nanos);
int csys_timerfd_drain(int fd);

#endif /* WAYLOOP_CSYSTEM_H */
