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

/* malloc_trim(0): hand freed heap back to the system. */
int csys_malloc_trim(void);

/* SO_PEERCRED: the uid and pid of a Unix-socket peer (struct ucred needs _GNU_SOURCE).
 * Returns 0, or -1 with errno set. */
int csys_peer_credentials(int fd, unsigned int *uid, int *pid);

/* memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING): anonymous memory for wl_shm pools.
 * Returns the fd, or -1 with errno set. */
int csys_memfd(const char *name);

/* Seals a memfd's size (the compositor maps it: it must never shrink under it). */
int csys_seal_size(int fd);

#endif /* WAYLOOP_CSYSTEM_H */
