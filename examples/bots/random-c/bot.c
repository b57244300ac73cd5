/* A bot for every ruleset, in C with nothing but libc: a uniformly random index into the
 * offered actions, seeded by its seat.
 *
 * One JSON message per line on stdin, one answer per line on stdout (flushed). A small JSON
 * scanner (no library) finds the fields it needs: "type" of every message, "protocol" and
 * "seat" of hello, and how many entries "actions" of act holds. It answers hello with ready
 * and act with {"type":"action","index":i}, ignores a message of any other type (a newer
 * referee may add some that need no answer), and exits on game_over or at the end of its
 * input. Built by the `build` step of its bot.toml: cc -O2 -Wall -o bot bot.c
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROTOCOL 1 /* the protocol version this bot speaks */

/* p past any JSON whitespace. */
static const char *ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    return p;
}

/* Past the end of the JSON string whose opening quote is at p; NULL if it never ends. */
static const char *skip_string(const char *p) {
    for (p++; *p && *p != '"'; p++) {
        if (*p == '\\' && !*++p) return NULL; /* an escape: skip the escaped character */
    }
    return *p == '"' ? p + 1 : NULL;
}

/* Past the end of the JSON value at p (string, object, array, number, true, false, null);
 * NULL if it is cut short. Nested objects and arrays are skipped by counting brackets
 * outside strings. */
static const char *skip_value(const char *p) {
    p = ws(p);
    if (*p == '"') return skip_string(p);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        while (*p) {
            if (*p == '"') {
                if (!(p = skip_string(p))) return NULL;
                continue;
            }
            if (*p == '{' || *p == '[') depth++;
            if ((*p == '}' || *p == ']') && --depth == 0) return p + 1;
            p++;
        }
        return NULL;
    }
    const char *start = p;
    while (*p && !strchr(",}] \t\r\n", *p)) p++;
    return p == start ? NULL : p;
}

/* The value of the member `key` of the JSON object at p, or NULL if it has none. */
static const char *member(const char *p, const char *key) {
    size_t n = strlen(key);
    p = ws(p);
    if (*p != '{') return NULL;
    p = ws(p + 1);
    while (*p == '"') {
        const char *end = skip_string(p);
        if (!end) return NULL;
        int match = (size_t)(end - p - 2) == n && strncmp(p + 1, key, n) == 0;
        p = ws(end);
        if (*p != ':') return NULL;
        p = ws(p + 1);
        if (match) return p;
        if (!(p = skip_value(p))) return NULL;
        p = ws(p);
        if (*p != ',') return NULL;
        p = ws(p + 1);
    }
    return NULL;
}

/* Whether the JSON value at p is the string `text` (with no escapes in it). */
static int is_string(const char *p, const char *text) {
    size_t n = strlen(text);
    return p && *p == '"' && strncmp(p + 1, text, n) == 0 && p[n + 1] == '"';
}

/* How many values the JSON array at p holds; -1 if p is no array. */
static long count_items(const char *p) {
    long n = 0;
    if (!p || *(p = ws(p)) != '[') return -1;
    p = ws(p + 1);
    if (*p == ']') return 0;
    for (;;) {
        if (!(p = skip_value(p))) return -1;
        n++;
        p = ws(p);
        if (*p == ']') return n;
        if (*p != ',') return -1;
        p++;
    }
}

/* A small seeded generator (splitmix64): the same seat plays the same way. */
static uint64_t rng_state;
static uint64_t next_random(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void send(const char *line) {
    fputs(line, stdout);
    fputc('\n', stdout);
    if (fflush(stdout) != 0) exit(0); /* the referee is gone */
}

int main(void) {
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, stdin) != -1) { /* lines of any length */
        const char *type = member(line, "type");
        if (is_string(type, "hello")) {
            const char *version = member(line, "protocol");
            long got = version ? strtol(version, NULL, 10) : -1;
            if (got != PROTOCOL) {
                fprintf(stderr, "random-c speaks protocol %d, not %ld\n", PROTOCOL, got);
                return 1;
            }
            const char *seat = member(line, "seat");
            rng_state = 0x5EEDULL + (seat ? (uint64_t)strtol(seat, NULL, 10) : 0);
            send("{\"type\":\"ready\",\"name\":\"random-c\"}");
        } else if (is_string(type, "act")) {
            long n = count_items(member(line, "actions"));
            if (n <= 0) {
                fprintf(stderr, "random-c: an act without actions: %.200s", line);
                return 1;
            }
            char answer[64];
            snprintf(answer, sizeof answer, "{\"type\":\"action\",\"index\":%ld}",
                     (long)(next_random() % (uint64_t)n));
            send(answer);
        } else if (is_string(type, "game_over")) {
            break;
        } /* any other type: ignored */
    }
    free(line);
    return 0;
}
