/* A bot that leaves short-lived orphans: at hello it starts `argv[1]` children (default 1)
 * that each start a grandchild the way a daemon does (the child calls setsid(), starts the
 * grandchild and exits; the bot reaps the child) and the grandchild, its parent gone, exits
 * a millisecond later: an orphan handed to the referee, ended by itself. It answers every
 * decision with the first action offered, and exits at game_over.
 *
 * In C, so that a test can play a thousand games quickly: cc -O2 -o orphan_bot orphan_bot.c
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void leave_orphan(void) {
    pid_t child = fork();
    if (child == 0) {
        setsid();
        if (fork() == 0) {
            usleep(1000);
            _exit(0);
        }
        _exit(0);
    }
    if (child > 0) waitpid(child, NULL, 0);
}

/* Whether `line` starts with `text` (the referee writes a message's type first). */
static int starts(const char *line, const char *text) {
    return strncmp(line, text, strlen(text)) == 0;
}

static void send(const char *line) {
    fputs(line, stdout);
    fputc('\n', stdout);
    if (fflush(stdout) != 0) exit(0);
}

int main(int argc, char **argv) {
    int orphans = argc > 1 ? atoi(argv[1]) : 1;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, stdin) != -1) {
        if (starts(line, "{\"type\":\"hello\"")) {
            for (int i = 0; i < orphans; i++) leave_orphan();
            send("{\"type\":\"ready\",\"name\":\"orphans\"}");
        } else if (starts(line, "{\"type\":\"act\"")) {
            send("{\"type\":\"action\",\"index\":0}");
        } else if (starts(line, "{\"type\":\"game_over\"")) {
            break;
        }
    }
    free(line);
    return 0;
}
