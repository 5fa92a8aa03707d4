/* tests/stdio_lines — a rank that prints one line with printf, then waits
 * until the test has seen that line (the file named by its first argument
 * appears) before it prints a second and exits 0. A rank whose first line
 * is still in its stdio buffer never lets the test see it: after 20 s it
 * says so on stderr and exits 1. Links libncore and calls nothing of it
 * but its version: what the library's load does is under test. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <ncore.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: first_line SEEN_FILE\n");
    return 2;
  }
  printf("first line, ncore %s\n", ncore_version_string());
  for (int waited_ms = 0; access(argv[1], F_OK) != 0; waited_ms += 20) {
    if (waited_ms >= 20000) {
      fprintf(stderr, "first_line: nobody saw the first line within 20 s\n");
      return 1;
    }
    struct timespec pause = {0, 20 * 1000000};
    nanosleep(&pause, NULL);
  }
  printf("second line\n");
  return 0;
}
