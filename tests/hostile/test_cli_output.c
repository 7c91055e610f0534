/* SPDX-License-Identifier: MIT */
/*
 * test_cli_output.c - the CLI's escaping stdout and stderr (cli/cli_output.c)
 * with bytes no run file could smuggle past the reader, written the ways
 * stdio cuts them: a C1 control split by the end of the stdio buffer, a UTF-8
 * character split between two writes of the unbuffered stderr, 20,000 stray
 * continuation bytes in one write, escape sequences, newlines and tabs.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "sp_test.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    static char buf[1 << 20];
    *len = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[*len] = '\0';
    return buf;
}

static bool has_raw_control(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
            return true;
        if (c == 0xC2 && i + 1 < n && (unsigned char)s[i + 1] < 0xA0)
            return true;
    }
    return false;
}

static char out_path[] = "/tmp/sp-cli-out-XXXXXX", err_path[] = "/tmp/sp-cli-err-XXXXXX";

static void check(void)
{
    size_t n;
    char *o = slurp(out_path, &n);
    ASSERT(!has_raw_control(o, n));
    ASSERT_CONTAINS(o, "xxx\\u009b\n");
    ASSERT_CONTAINS(o, "\\x1b]0;title\\x07 tab\there\n");
    ASSERT_CONTAINS(o, "\\x80\\x80\\x80");
    char *e = slurp(err_path, &n);
    ASSERT(!has_raw_control(e, n));
    ASSERT_STREQ(e, "\ndonn\xc3\xa9" "es\n");
}

int main(void)
{
    int fo = mkstemp(out_path), fe = mkstemp(err_path);
    if (fo < 0 || fe < 0)
        return 1;
    int saved_out = dup(1), saved_err = dup(2);
    dup2(fo, 1);
    dup2(fe, 2);
    sp__cli_protect_output(true);

    static char big[BUFSIZ - 1 + 2 + 1];
    memset(big, 'x', BUFSIZ - 1);
    memcpy(big + BUFSIZ - 1, "\xc2\x9b", 2); /* CSI straddling the stdio buffer */
    fputs(big, stdout);
    fputs("\n\x1b]0;title\x07 tab\there\n", stdout);
    static char cont[20001];
    memset(cont, 0x80, 20000);
    fputs(cont, stdout);
    fputs("\ndonn\xc3", stderr); /* one character in two unbuffered writes */
    fputs("\xa9" "es\n", stderr);
    fflush(stdout);
    fclose(stdout);
    fclose(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    stdout = fdopen(1, "w");
    stderr = fdopen(2, "w");

    RUN(check);
    unlink(out_path);
    unlink(err_path);
    return sp_test_summary();
}
