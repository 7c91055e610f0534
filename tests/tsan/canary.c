/* SPDX-License-Identifier: MIT */
/* canary.c - a deliberate data race: scripts/test-tsan.sh checks that the
 * ThreadSanitizer build reports it, so a green TSan run means "no race
 * found", not "TSan was not there". Not part of any other build. */
#include <pthread.h>
#include <stdio.h>

static long counter;

static void *bump(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100000; i++)
        counter++; /* unsynchronised on purpose */
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, bump, NULL);
    pthread_create(&b, NULL, bump, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("%ld\n", counter);
    return 0;
}
