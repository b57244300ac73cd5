/* A bot that answers every decision with the first action offered after `argv[1]`
 * milliseconds, give or take half (each process its own pace, from its process id, so that
 * games of one length do not all end at once), and appends "PID TIME" (its process id and the system's monotonic clock, in
 * seconds) to the file `argv[2]` as it starts and as it answers, so that a test can tell how
 * many games were playing at once. It exits at game_over.
 *
 * In C, so that its start costs no time a test would take for the referee's:
 * cc -O2 -o paced_bot paced_bot.c
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *log_path;

static void mark(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    FILE *log = fopen(log_path, "a"); /* one short write a line: appends never interleave */
    if (log == NULL) return;
    fprintf(log, "%ld %ld.%09ld\n", (long)getpid(), (long)now.tv_sec, now.tv_nsec);
    fclose(log);
}

/* Whether `line` starts with `text` (the referee writes a message's type first). */
static int starts(const char *line, const char *text) {
    return strncmp(line, text, strlen(text)) == 0;
}

int main(int argc, char **argv) {
    long ms = argc > 1 ? atol(argv[1]) : 0;
    ms = ms / 2 + ms * (getpid() % 5) / 4; /* from half to one and a half */
    log_path = argc > 2 ? argv[2] : "/dev/null";
    struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
    char *line = NULL;
    size_t size = 0;
    mark();
    while (getline(&line, &size, stdin) > 0) {
        if (starts(line, "{\"type\":\"act\"")) {
            nanosleep(&pause, NULL);
            mark();
            fputs("{\"type\":\"action\",\"index\":0}\n", stdout);
        } else if (starts(line, "{\"type\":\"hello\"")) {
            fputs("{\"type\":\"ready\",\"name\":\"paced\"}\n", stdout);
        } else if (starts(line, "{\"type\":\"game_over\"")) {
            break;
        } else {
            continue;
        }
        fflush(stdout);
    }
    free(line);
    return 0;
}
