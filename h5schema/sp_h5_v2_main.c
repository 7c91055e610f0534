/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_v2_main.c - the file at PATH while a run records: the run's facts
 * and one external link per rank into that rank's part. It is written once,
 * closed, and renamed into place, so it is never "open for writing": every
 * HDF5 reader opens it at any time, and h5py follows the links (with
 * swmr=True for parts that are still open or were left by a kill).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_h5_v2_io.h"

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int write_main(hid_t file, const char *path, size_t nranks, const sp_kvlist *meta)
{
    int rc;
    if ((rc = sp_v2_int_attr(file, SP_NAME(ROOT_SCHEMA), SP_ST_I32, 2, path)) ||
        (rc = sp_v2_int_attr(file, SP_NAME(ROOT_NUM_RANKS), SP_ST_I64, (int64_t)nranks, path)) ||
        (rc = sp_v2_int_attr(file, SP_NAME2(V2_ROOT_COMPLETE), SP_ST_I32, 0, path)) ||
        (rc = sp_v2_meta_group(file, SP_NAME(METADATA), meta, path)))
        return rc;
    for (size_t r = 0; r < nranks; r++) {
        char group[64], target[80];
        snprintf(group, sizeof group, "%s%zu", SP_NAME(RANK_GROUP), r);
        snprintf(target, sizeof target, "/%s", group);
        /* Relative to the directory of PATH: HDF5 looks for a relative
         * target there, so the pair of files may move together. */
        char *part = sp_v2_part_path(base_name(path), (int32_t)r);
        if (!part)
            return sp__error(SP_ENOMEM, "cannot write '%s': out of memory", path);
        herr_t e = H5Lcreate_external(part, target, file, group, H5P_DEFAULT, H5P_DEFAULT);
        free(part);
        if (e < 0)
            return sp__h5_error(SP_EIO, "cannot write '%s': cannot link /%s to its part",
                                path, group);
    }
    return 0;
}

int sp_v2_main_create(const char *path, size_t nranks, const sp_kvlist *meta)
{
    int rc = 0;
    hid_t fapl = H5I_INVALID_HID, file = H5I_INVALID_HID;
    char *tmp = sp_v2_tmp_name(path);
    if (!tmp)
        return sp__error(SP_ENOMEM, "cannot write '%s': out of memory", path);
    sp__h5_quiet quiet;
    sp__h5_quiet_begin(&quiet);
    bool created = false;
    if ((rc = sp_v2_fapl(false, path, &fapl)) ||
        (rc = sp_v2_file_create(tmp, fapl, path, &file)))
        goto done;
    created = true;
    if ((rc = write_main(file, path, nranks, meta)))
        goto done;
    rc = sp_v2_file_close(file, path, tmp); /* also after a write error */
    file = H5I_INVALID_HID;
    if (rc)
        goto done;
    if (rename(tmp, path) != 0) {
        rc = sp__error(SP_EIO, "cannot write '%s': cannot rename '%s' into place: %s", path,
                       tmp, strerror(errno));
        goto done;
    }
    created = false;
done:
    sp_v2_file_discard(file); /* an error: nothing more goes to disk */
    if (fapl >= 0)
        H5Pclose(fapl);
    sp__h5_quiet_end(&quiet);
    if (created)
        unlink(tmp);
    free(tmp);
    return rc;
}
