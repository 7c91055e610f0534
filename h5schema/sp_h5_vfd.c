/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_vfd.c - the HDF5 file driver of every file we write: POSIX I/O like
 * HDF5's own sec2 driver (pread/pwrite, the same features, SWMR included;
 * the files are ordinary HDF5 files any driver reads), plus one thing sec2
 * cannot do: a file can be abandoned after a write error.
 *
 * Why: once a write has failed (a full disk, a file size limit), libhdf5
 * 1.10 cannot close the file: every close flushes again, fails, and leaves
 * the file half-destroyed but still open, and HDF5's exit handler then
 * crashes the program on it (SIGSEGV in H5F__close_cb at exit(), issue 22:
 * a full 64 KiB disk, 3 of 3 runs). The earlier remedy pointed the file's
 * descriptor at /dev/null; writes went nowhere, but the close also
 * truncates the file to its allocated size, and ftruncate() of /dev/null
 * fails (EINVAL): the same crash, whenever the last allocated bytes had
 * never been written; and a dataset whose close failed to write its chunk
 * stayed half-open, so that HDF5 could not shut down ("infinite loop
 * closing library", a chunk buffer leaked). HDF5 1.10's paths for a
 * failing write are not safe; so here HDF5 never sees one: at the first
 * failing write (or truncate) the file is abandoned and the write reported
 * done. From then on the file writes and truncates nothing and reads zeros
 * (what sec2 reads past the end of a file); HDF5 closes its datasets and
 * the file as usual and frees everything; the bytes on disk stay as the
 * last successful write left them. The errno is kept: our writers ask for
 * it after each append, flush and close (sp_h5_v2_io.h) and fail then.
 *
 * Other errors (opening, locking) are pushed on HDF5's error stack with
 * errno's words, as sec2 does (sp__h5_error reports them).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp_h5_v2_io.h"

/* The largest address: what an off_t holds, as sec2. */
#define SP_VFD_MAXADDR ((haddr_t)(((uint64_t)1 << 63) - 1))

typedef struct sp_vfd_file {
    H5FD_t pub; /* HDF5's part: first */
    int fd;     /* what H5Fget_vfd_handle() gives (an int *, as sec2) */
    haddr_t eoa, eof;
    dev_t device;
    ino_t inode;
    bool abandoned;
    int err; /* errno of the first failed write or truncate (0: none) */
} sp_vfd_file;

/* The failed write of the last file this thread closed. */
static _Thread_local int closed_err;

/* Stop writing f after a failure with errno e (the first one is kept). */
static void give_up(sp_vfd_file *f, int e)
{
    f->abandoned = true;
    if (!f->err)
        f->err = e ? e : EIO;
}

#define PUSH(min, ...)                                                                    \
    H5Epush2(H5E_DEFAULT, __FILE__, __func__, __LINE__, H5E_ERR_CLS, H5E_VFL, min, __VA_ARGS__)

static H5FD_t *vfd_open(const char *name, unsigned flags, hid_t fapl, haddr_t maxaddr)
{
    (void)fapl;
    if (!name || !*name || maxaddr == 0 || maxaddr > SP_VFD_MAXADDR) {
        PUSH(H5E_BADVALUE, "invalid file name or address space");
        return NULL;
    }
    int o = (flags & H5F_ACC_RDWR) ? O_RDWR : O_RDONLY;
    if (flags & H5F_ACC_TRUNC)
        o |= O_TRUNC;
    if (flags & H5F_ACC_CREAT)
        o |= O_CREAT;
    if (flags & H5F_ACC_EXCL)
        o |= O_EXCL;
    int fd = open(name, o | O_CLOEXEC, 0666);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        PUSH(H5E_CANTOPENFILE, "unable to open file: name = '%s', errno = %d, error message = '%s'",
             name, e, strerror(e));
        return NULL;
    }
    sp_vfd_file *f = calloc(1, sizeof *f);
    if (!f) {
        close(fd);
        PUSH(H5E_CANTALLOC, "out of memory");
        return NULL;
    }
    f->fd = fd;
    f->eof = (haddr_t)st.st_size;
    f->device = st.st_dev;
    f->inode = st.st_ino;
    return &f->pub;
}

static herr_t vfd_close(H5FD_t *file)
{
    sp_vfd_file *f = (sp_vfd_file *)file;
    closed_err = f->err;
    int rc = close(f->fd);
    int e = errno;
    free(f);
    if (rc != 0) {
        PUSH(H5E_CANTCLOSEFILE, "unable to close file, errno = %d, error message = '%s'", e,
             strerror(e));
        return -1;
    }
    return 0;
}

static int vfd_cmp(const H5FD_t *a, const H5FD_t *b)
{
    const sp_vfd_file *x = (const sp_vfd_file *)a, *y = (const sp_vfd_file *)b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    if (x->inode != y->inode)
        return x->inode < y->inode ? -1 : 1;
    return 0;
}

static herr_t vfd_query(const H5FD_t *file, unsigned long *flags)
{
    (void)file;
    /* sec2's features: metadata and small data aggregated and accumulated,
     * data sieving, a POSIX descriptor as the handle, SWMR. */
    *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA |
             H5FD_FEAT_DATA_SIEVE | H5FD_FEAT_AGGREGATE_SMALLDATA |
             H5FD_FEAT_POSIX_COMPAT_HANDLE | H5FD_FEAT_SUPPORTS_SWMR_IO |
             H5FD_FEAT_DEFAULT_VFD_COMPATIBLE;
    return 0;
}

static haddr_t vfd_get_eoa(const H5FD_t *file, H5FD_mem_t type)
{
    (void)type;
    return ((const sp_vfd_file *)file)->eoa;
}

static herr_t vfd_set_eoa(H5FD_t *file, H5FD_mem_t type, haddr_t addr)
{
    (void)type;
    ((sp_vfd_file *)file)->eoa = addr;
    return 0;
}

static haddr_t vfd_get_eof(const H5FD_t *file, H5FD_mem_t type)
{
    (void)type;
    return ((const sp_vfd_file *)file)->eof;
}

static herr_t vfd_get_handle(H5FD_t *file, hid_t fapl, void **handle)
{
    (void)fapl;
    *handle = &((sp_vfd_file *)file)->fd;
    return 0;
}

/* addr..addr+size outside the address space: pushes the error. */
static bool bad_range(haddr_t addr, size_t size)
{
    if (addr != HADDR_UNDEF && addr <= SP_VFD_MAXADDR && size <= SP_VFD_MAXADDR - addr)
        return false;
    PUSH(H5E_OVERFLOW, "addr overflow, addr = %llu", (unsigned long long)addr);
    return true;
}

/* Read (write false) or write size bytes at addr in pieces of at most
 * 1 GiB, past EINTR. Returns the bytes done: fewer than size at the end of
 * the file (a read) or on an error (errno set, *failed true). */
static size_t io(int fd, bool write, char *buf, size_t size, haddr_t addr, bool *failed)
{
    size_t done = 0;
    *failed = false;
    while (done < size) {
        size_t chunk = size - done < ((size_t)1 << 30) ? size - done : ((size_t)1 << 30);
        ssize_t n = write ? pwrite(fd, buf + done, chunk, (off_t)(addr + done))
                          : pread(fd, buf + done, chunk, (off_t)(addr + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n < 0 || write) {
                *failed = true;
                if (n == 0)
                    errno = ENOSPC; /* a write that writes nothing */
            }
            break; /* a read: past the end of the file */
        }
        done += (size_t)n;
    }
    return done;
}

static herr_t vfd_read(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size,
                       void *buf)
{
    (void)type;
    (void)dxpl;
    sp_vfd_file *f = (sp_vfd_file *)file;
    if (bad_range(addr, size))
        return -1;
    bool failed = false;
    size_t done = f->abandoned ? 0 : io(f->fd, false, buf, size, addr, &failed);
    if (failed) {
        int e = errno;
        PUSH(H5E_READERROR, "file read failed: errno = %d, error message = '%s'", e,
             strerror(e));
        return -1;
    }
    memset((char *)buf + done, 0, size - done); /* past the end: zeros, as sec2 */
    return 0;
}

static herr_t vfd_write(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size,
                        const void *buf)
{
    (void)type;
    (void)dxpl;
    sp_vfd_file *f = (sp_vfd_file *)file;
    if (bad_range(addr, size))
        return -1;
    if (f->abandoned)
        return 0; /* nothing more goes to disk */
    bool failed = false;
    io(f->fd, true, (char *)(uintptr_t)buf, size, addr, &failed);
    if (failed) {
        give_up(f, errno); /* the first failure is the last write */
        return 0;
    }
    if (addr + size > f->eof)
        f->eof = addr + size;
    return 0;
}

static herr_t vfd_truncate(H5FD_t *file, hid_t dxpl, hbool_t closing)
{
    (void)dxpl;
    (void)closing;
    sp_vfd_file *f = (sp_vfd_file *)file;
    if (f->eoa == f->eof)
        return 0;
    if (!f->abandoned && ftruncate(f->fd, (off_t)f->eoa) != 0)
        give_up(f, errno);
    f->eof = f->eoa;
    return 0;
}

static herr_t vfd_lock(H5FD_t *file, hbool_t rw)
{
    sp_vfd_file *f = (sp_vfd_file *)file;
    if (flock(f->fd, (rw ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 || errno == ENOSYS)
        return 0; /* a file system without flock: nothing to respect */
    int e = errno;
    PUSH(H5E_CANTLOCKFILE, "unable to lock file, errno = %d, error message = '%s'", e,
         strerror(e));
    return -1;
}

static herr_t vfd_unlock(H5FD_t *file)
{
    sp_vfd_file *f = (sp_vfd_file *)file;
    if (flock(f->fd, LOCK_UN) == 0 || errno == ENOSYS)
        return 0;
    int e = errno;
    PUSH(H5E_CANTUNLOCKFILE, "unable to unlock file, errno = %d, error message = '%s'", e,
         strerror(e));
    return -1;
}

static const H5FD_class_t vfd_class = {
    .name = "scope_profiler_posix",
    .maxaddr = SP_VFD_MAXADDR,
    .fc_degree = H5F_CLOSE_WEAK,
    .open = vfd_open,
    .close = vfd_close,
    .cmp = vfd_cmp,
    .query = vfd_query,
    .get_eoa = vfd_get_eoa,
    .set_eoa = vfd_set_eoa,
    .get_eof = vfd_get_eof,
    .get_handle = vfd_get_handle,
    .read = vfd_read,
    .write = vfd_write,
    .truncate = vfd_truncate,
    .lock = vfd_lock,
    .unlock = vfd_unlock,
    .fl_map = H5FD_FLMAP_DICHOTOMY,
};

static pthread_mutex_t vfd_lock_mu = PTHREAD_MUTEX_INITIALIZER;
static hid_t vfd_id = H5I_INVALID_HID;

hid_t sp_v2_vfd(void)
{
    pthread_mutex_lock(&vfd_lock_mu);
    /* Registered again if HDF5 was closed and started over (H5close()). */
    if (vfd_id < 0 || H5Iis_valid(vfd_id) <= 0)
        vfd_id = H5FDregister(&vfd_class);
    hid_t id = vfd_id;
    pthread_mutex_unlock(&vfd_lock_mu);
    return id;
}

/* Our file behind file, or NULL (another driver). */
static sp_vfd_file *ours(hid_t file)
{
    if (file < 0)
        return NULL;
    hid_t fapl = H5Fget_access_plist(file);
    bool mine = fapl >= 0 && H5Pget_driver(fapl) == sp_v2_vfd();
    if (fapl >= 0)
        H5Pclose(fapl);
    int *fdp = NULL;
    if (!mine || H5Fget_vfd_handle(file, H5P_DEFAULT, (void **)&fdp) < 0 || !fdp)
        return NULL;
    /* The handle is the fd field of our file. */
    return (sp_vfd_file *)((char *)fdp - offsetof(sp_vfd_file, fd));
}

void sp_v2_file_abandon(hid_t file)
{
    sp_vfd_file *f = ours(file);
    if (f)
        f->abandoned = true;
}

int sp_v2_file_write_error(hid_t file)
{
    sp_vfd_file *f = ours(file);
    return f ? f->err : 0;
}

int sp_v2_object_write_error(hid_t obj)
{
    hid_t file = H5Iget_file_id(obj);
    if (file < 0)
        return 0;
    int e = sp_v2_file_write_error(file);
    H5Fclose(file);
    return e;
}

int sp_v2_vfd_closed_error(void)
{
    int e = closed_err;
    closed_err = 0;
    return e;
}
