/* SPDX-License-Identifier: MIT */
/* test_display.c - sp_display: what is escaped, what is kept, and how a
 * character cut by the end of a write waits for the rest. */
#include <stdlib.h>
#include <string.h>

#include "sp_display.h"
#include "sp_test.h"

static const char *esc(const char *s, unsigned flags)
{
    static char out[1024];
    size_t n = sp_display_escape_bytes(out, s, strlen(s), flags, NULL);
    out[n] = '\0';
    return out;
}

static void test_controls_are_escaped(void)
{
    ASSERT_STREQ(esc("a\x1b[31mb", 0), "a\\x1b[31mb");
    ASSERT_STREQ(esc("bell\x07 del\x7f", 0), "bell\\x07 del\\x7f");
    ASSERT_STREQ(esc("l1\nl2\tx\ry", 0), "l1\\nl2\\tx\\ry");
    ASSERT_STREQ(esc("l1\nl2\tx\ry", SP_DISPLAY_KEEP_NEWLINE), "l1\nl2\tx\\ry");
    ASSERT_STREQ(esc("c1 \xc2\x9b" "2J", 0), "c1 \\u009b2J");            /* C1 CSI */
    ASSERT_STREQ(esc("bidi \xe2\x80\xae" "evil", 0), "bidi \\u202eevil");  /* RLO */
    ASSERT_STREQ(esc("raw \xff\xfe", 0), "raw \\xff\\xfe");              /* not UTF-8 */
    ASSERT_STREQ(esc("over \xc0\x80", 0), "over \\xc0\\x80");            /* overlong NUL */
}

static void test_text_is_kept(void)
{
    const char *s = "donn\xc3\xa9" "es \xe2\x86\x92 \xce\xbb \\ \"q\" \xf0\x9f\x98\x80";
    ASSERT_STREQ(esc(s, 0), s);
    ASSERT(sp_display_is_safe(s));
    ASSERT(!sp_display_is_safe("x\x1b"));
    ASSERT(!sp_display_is_safe("x\xc2\x85")); /* NEL */
    ASSERT(sp_display_is_safe(NULL));
}

static void test_partial_character_waits(void)
{
    char out[64];
    size_t used = 0;
    /* "a" then the first byte of U+009B: only "a" is consumed. */
    size_t n = sp_display_escape_bytes(out, "a\xc2", 2, SP_DISPLAY_PARTIAL, &used);
    ASSERT_EQ_U(used, 1);
    ASSERT_EQ_U(n, 1);
    /* Without PARTIAL the lone byte is escaped. */
    n = sp_display_escape_bytes(out, "a\xc2", 2, 0, &used);
    out[n] = '\0';
    ASSERT_EQ_U(used, 2);
    ASSERT_STREQ(out, "a\\xc2");
}

static void test_copy_cuts_between_characters(void)
{
    char buf[8];
    sp_display_copy(buf, sizeof buf, "ab\x1b" "cdef");
    ASSERT_STREQ(buf, "ab\\x1bc"); /* 7 bytes + NUL; the escape is never cut */
    sp_display_copy(buf, 5, "ab\x1b");
    ASSERT_STREQ(buf, "ab");
    char *d = sp_display_dup("\x1b]0;t\x07");
    ASSERT_STREQ(d, "\\x1b]0;t\\x07");
    free(d);
}

/* The two helpers JSON and HTML use for their own escapes. */
static void test_code_points(void)
{
    uint32_t cp = 0;
    ASSERT_EQ_U(sp_display_utf8_next("\xe2\x80\xae" "x", &cp), 3);
    ASSERT_EQ_U(cp, 0x202E);
    ASSERT(sp_display_cp_escaped(cp));
    ASSERT_EQ_U(sp_display_utf8_next("\xd8\x9c", &cp), 2); /* ARABIC LETTER MARK */
    ASSERT(sp_display_cp_escaped(cp));
    ASSERT_EQ_U(sp_display_utf8_next("\xc2\x9b", &cp), 2); /* CSI */
    ASSERT(sp_display_cp_escaped(cp));
    ASSERT_EQ_U(sp_display_utf8_next("\xc3\xa9", &cp), 2);
    ASSERT(!sp_display_cp_escaped(cp));
    ASSERT_EQ_U(sp_display_utf8_next("\xe2\x80", &cp), 0); /* cut short by the NUL */
    ASSERT_EQ_U(sp_display_utf8_next("\xff", &cp), 0);
    ASSERT_EQ_U(sp_display_utf8_next("", &cp), 0);
}

int main(void)
{
    RUN(test_controls_are_escaped);
    RUN(test_text_is_kept);
    RUN(test_partial_character_waits);
    RUN(test_copy_cuts_between_characters);
    RUN(test_code_points);
    return sp_test_summary();
}
