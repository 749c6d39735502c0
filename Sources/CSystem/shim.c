// The implementations behind include/CSystem.h (see there for why they are C).
#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include "CSystem.h"

int csys_set_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

int csys_malloc_trim(void) { return malloc_trim(0); }

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
