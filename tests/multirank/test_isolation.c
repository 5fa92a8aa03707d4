/* Multi-rank tests, host backend: nobody else gets in.
 * A communicator's shared memory has no name that another user could
 * open or create first, it is private to this user, nothing is left behind
 * when a rank is killed during init, and the rendezvous that hands it over
 * gives it to nobody else. Run as root where useradd works, a second user
 * really attacks (the audit's attack on e6e904a, and more); otherwise the
 * owner, mode and namelessness are checked. Usage: test_isolation N. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "multirank.h"
#include "testbuf.h"

/* The token of a host unique id (magic, then the token: core/host/comm_create.h).
 * An attacker who can read a launcher's command line knows it. */
static uint64_t id_token(const ncore_unique_id_t *id) {
  uint64_t token;
  memcpy(&token, (const char *)id->internal + 8, sizeof token);
  return token;
}

/* How e6e904a named children (core/host/comm.c, derive_token): public, so
 * an attacker could compute every split's and shrink's segment name. */
static uint64_t e6e904a_child_token(uint64_t token, uint64_t seq, uint64_t tag) {
  uint64_t z = token ^ (seq * 0x9e3779b97f4a7c15ull) ^ (tag * 0xbf58476d1ce4e5b9ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* 1 if /dev/shm holds a file whose name contains token's hex digits. */
static int shm_file_named_after(uint64_t token) {
  char hex[32];
  snprintf(hex, sizeof hex, "%016llx", (unsigned long long)token);
  DIR *d = opendir("/dev/shm");
  if (!d) return 0;
  int found = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;)
    if (strstr(e->d_name, hex)) found = 1;
  closedir(d);
  return found;
}

/* 1 if an abstract Unix socket named after token is listening. */
static int rendezvous_named_after(uint64_t token) {
  char hex[32];
  snprintf(hex, sizeof hex, "%016llx", (unsigned long long)token);
  FILE *f = fopen("/proc/net/unix", "r");
  if (!f) return 0;
  char line[512];
  int found = 0;
  while (fgets(line, sizeof line, f))
    if (strstr(line, hex)) found = 1;
  fclose(f);
  return found;
}

/* Checks this process's view of its communicators: every segment mapping
 * is a memfd (no name anywhere), none lives under /dev/shm, and every
 * descriptor of a segment is a private file of this user. Returns the
 * number of segment mappings seen. */
static int check_private_segments(void) {
  FILE *maps = fopen("/proc/self/maps", "r");
  if (!maps) {
    harness_fail(__FILE__, __LINE__, "cannot read /proc/self/maps");
    return 0;
  }
  char line[1024];
  int segments = 0;
  while (fgets(line, sizeof line, maps)) {
    if (strstr(line, "/dev/shm/")) {
      harness_fail(__FILE__, __LINE__, "a mapping has a name under /dev/shm: %s", line);
      break;
    }
    if (strstr(line, "memfd:ncore-segment")) segments++;
  }
  fclose(maps);
  for (int fd = -1; (fd = harness_next_fd_named(fd, "memfd:ncore-segment")) >= 0;) {
    struct stat st;
    if (fstat(fd, &st) != 0) continue;
    if (st.st_uid != geteuid() || (st.st_mode & 077) != 0)
      harness_fail(__FILE__, __LINE__, "segment descriptor %d: owner %u, mode %o",
                   fd, (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777));
  }
  return segments;
}

/* Every rank of a communicator and of its split child maps private,
 * nameless segments (e6e904a mapped /dev/shm/ncore-<token>). */
MR_TEST(segments_are_private_and_nameless) {
  REQUIRE_HOST_BACKEND("checks the host backend's shared memory; NCCL shares device memory through NCCL, not through ncore");
  MR_COMM(comm);
  ncore_comm_t child;
  CHECK_OK(ncore_comm_split(comm, rank % 2, rank, &child, NULL));
  CHECK(check_private_segments() >= 2);
  CHECK(!shm_file_named_after(id_token(id)));
  mr_barrier(child);
  CHECK_OK(ncore_comm_destroy(child));
  CHECK_OK(ncore_comm_destroy(comm));
}

/* Watches /proc/net/unix for ncore rendezvous names (what any local user
 * can see) until told to stop. */
typedef struct watcher {
  volatile int stop;
  int count;
  char names[64][40];
} watcher_t;

/* 1 if this process has the socket of that inode open (other jobs on the
 * machine have rendezvous too). */
static int socket_is_ours(unsigned long inode) {
  char want[64];
  snprintf(want, sizeof want, "socket:[%lu]", inode);
  return harness_next_fd_named(-1, want) >= 0;
}

static void *watch_names(void *arg) {
  watcher_t *w = arg;
  while (!w->stop) {
    FILE *f = fopen("/proc/net/unix", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
      char *at = strstr(line, "@ncore-");
      unsigned long inode = 0;
      if (!at || sscanf(line, "%*s %*s %*s %*s %*s %*s %lu", &inode) != 1 ||
          !socket_is_ours(inode))
        continue;
      at[strcspn(at, " \n")] = '\0';
      int known = 0;
      for (int i = 0; i < w->count; i++) known |= strcmp(w->names[i], at + 1) == 0;
      if (!known && w->count < 64) snprintf(w->names[w->count++], sizeof w->names[0], "%s", at + 1);
    }
    if (f) fclose(f);
  }
  return NULL;
}

/* The names children's rendezvous show to everyone cannot be computed from
 * what is public (the parent's id): each differs from the rule e6e904a
 * used, and all differ from each other. Any user can run this. */
MR_TEST(children_names_cannot_be_guessed) {
  REQUIRE_HOST_BACKEND("checks the host backend's shared memory; NCCL shares device memory through NCCL, not through ncore");
  MR_COMM(comm);
  watcher_t w;
  memset(&w, 0, sizeof w);
  pthread_t thread;
  if (rank == 0) CHECK(pthread_create(&thread, NULL, watch_names, &w) == 0);
  enum { SPLITS = 6 };
  for (int i = 0; i < SPLITS; i++) {
    ncore_comm_t child;
    CHECK_OK(ncore_comm_split(comm, 0, rank, &child, NULL));
    CHECK_OK(ncore_comm_destroy(child));
  }
  if (rank != 0) return (void)ncore_comm_destroy(comm);
  w.stop = 1;
  pthread_join(thread, NULL);
  CHECK_OK(ncore_comm_destroy(comm));
  uint64_t token = id_token(id);
  int children = 0;
  for (int i = 0; i < w.count; i++) {
    unsigned long long seen = 0;
    if (sscanf(w.names[i], "ncore-%16llx", &seen) != 1 || seen == token) continue;
    children++;
    for (uint64_t seq = 1; seq <= SPLITS; seq++)
      if (seen == e6e904a_child_token(token, seq, 0))
        harness_fail(__FILE__, __LINE__, "child %s follows from the parent's id", w.names[i]);
    for (int j = 0; j < i; j++)
      if (strcmp(w.names[i], w.names[j]) == 0)
        harness_fail(__FILE__, __LINE__, "two children share %s", w.names[i]);
  }
  if (children == 0 && !harness_failed())
    SKIP("no child rendezvous was seen while it existed (too brief here)");
}

/* Kills a rank 0 that waits in ncore_comm_init_rank for a peer that never
 * comes: nothing named after its id may remain (e6e904a left
 * /dev/shm/ncore-<token> behind). */
TEST(rank_0_killed_during_init_leaves_nothing) {
  REQUIRE_HOST_BACKEND("checks the host backend's shared memory; NCCL shares device memory through NCCL, not through ncore");
  ncore_unique_id_t id;
  CHECK_OK(ncore_get_unique_id(&id, NCORE_BACKEND_HOST));
  uint64_t token = id_token(&id);
  pid_t child = fork();
  if (child == 0) {
    ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
    config.timeout_ms = 30000;
    ncore_comm_t comm;
    ncore_comm_init_rank(&comm, 2, &id, 0, &config);
    _exit(0);
  }
  /* It is inside init once its rendezvous (or, before, its file) shows. */
  int seen = 0;
  for (int i = 0; i < 4000 && !seen; i++) {
    seen = rendezvous_named_after(token) || shm_file_named_after(token);
    if (!seen) usleep(1000);
  }
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  CHECK(seen);
  CHECK(!shm_file_named_after(token));
  CHECK(!rendezvous_named_after(token));
}

/* ---- a second user ---- */

#define ATTACKER_NAME "ncore-test-attacker"

/* Makes the attacking user; 0 and its ids, or -1 with why in `why`. */
static int make_attacker(uid_t *uid, gid_t *gid, char *why, size_t size) {
  unsigned u = 0, g = 0;
  if (harness_make_user(ATTACKER_NAME, &u, &g, why, size) != 0) {
    if (geteuid() != 0)
      snprintf(why, size, "needs root to act as a second user (checked owner, "
                          "mode and namelessness instead)");
    return -1;
  }
  *uid = u;
  *gid = g;
  return 0;
}

static void remove_attacker(void) { harness_remove_user(ATTACKER_NAME); }

/* What the attacker got. */
typedef struct loot {
  int names_planted;   /* segment names created ahead of the victim */
  int rendezvous_tried;
  int descriptors_got; /* segments handed over to it */
  int files_opened;    /* victim's shared-memory files it could open */
} loot_t;

/* Tries to get a segment from the rendezvous named `name` (after '@'). */
static int try_rendezvous(const char *name) {
  int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return 0;
  struct sockaddr_un a;
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  size_t len = strlen(name);
  if (len > sizeof a.sun_path - 2) len = sizeof a.sun_path - 2;
  memcpy(a.sun_path + 1, name, len);
  int got = 0;
  if (connect(s, (struct sockaddr *)&a,
              (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)) == 0) {
    struct pollfd p = {s, POLLIN, 0};
    if (poll(&p, 1, 100) > 0) {
      char data[64], control[CMSG_SPACE(4 * sizeof(int))];
      struct iovec iov = {data, sizeof data};
      struct msghdr msg = {0};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
      if (recvmsg(s, &msg, MSG_DONTWAIT) > 0)
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
          if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) got = 1;
    }
  }
  close(s);
  return got;
}

/* The attacker's loop, as uid: plant the names e6e904a would give the
 * victim's children, then until `stop` is readable, try every ncore
 * rendezvous and every ncore file it sees. Reports through `report`. */
static void attack(uid_t uid, gid_t gid, uint64_t token, int ready, int stop, int report) {
  loot_t loot = {0};
  if (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid(uid) != 0 || geteuid() != uid)
    _exit(3);
  char planted[8][64];
  uint64_t tags[] = {0, 1, 0x5348524b};
  for (uint64_t seq = 1; seq <= 2; seq++)
    for (size_t t = 0; t < sizeof tags / sizeof tags[0]; t++) {
      char *name = planted[loot.names_planted];
      snprintf(name, 64, "/dev/shm/ncore-%016llx",
               (unsigned long long)e6e904a_child_token(token, seq, tags[t]));
      int fd = open(name, O_RDWR | O_CREAT | O_EXCL, 0666);
      if (fd >= 0) {
        fchmod(fd, 0666);
        close(fd);
        if (loot.names_planted < 7) loot.names_planted++;
      }
    }
  if (write(ready, "r", 1) != 1) _exit(4);
  for (;;) {
    struct pollfd p = {stop, POLLIN, 0};
    if (poll(&p, 1, 0) > 0) break;
    FILE *f = fopen("/proc/net/unix", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
      char *at = strstr(line, "@ncore-");
      if (!at) continue;
      at[strcspn(at, " \n")] = '\0';
      loot.rendezvous_tried++;
      loot.descriptors_got += try_rendezvous(at + 1);
    }
    if (f) fclose(f);
    DIR *d = opendir("/dev/shm");
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
      if (strncmp(e->d_name, "ncore-", 6) != 0) continue;
      char path[300];
      snprintf(path, sizeof path, "/dev/shm/%s", e->d_name);
      int mine = 0;
      for (int i = 0; i < loot.names_planted; i++) mine |= strcmp(planted[i], path) == 0;
      if (mine) continue;
      int fd = open(path, O_RDWR);
      if (fd >= 0) {
        loot.files_opened++;
        close(fd);
      }
    }
    if (d) closedir(d);
    usleep(200);
  }
  for (int i = 0; i < loot.names_planted; i++) unlink(planted[i]);
  if (write(report, &loot, sizeof loot) != (ssize_t)sizeof loot) _exit(5);
  _exit(0);
}

/* A running attacker, as rank 0 sees it. */
typedef struct attacker {
  pid_t pid;
  int stop, report;
} attacker_t;

/* Starts the attack on token; waits until its names are planted. */
static int start_attacker(uid_t uid, gid_t gid, uint64_t token, attacker_t *a) {
  int ready[2], stop[2], report[2];
  if (pipe(ready) || pipe(stop) || pipe(report)) return -1;
  a->pid = fork();
  if (a->pid == 0) {
    close(ready[0]);
    close(stop[1]);
    close(report[0]);
    attack(uid, gid, token, ready[1], stop[0], report[1]);
  }
  close(ready[1]);
  close(stop[0]);
  close(report[1]);
  char c;
  int ok = read(ready[0], &c, 1) == 1;
  close(ready[0]);
  a->stop = stop[1];
  a->report = report[0];
  return ok ? 0 : -1;
}

/* Stops the attacker and collects its loot; -1 if it failed itself. */
static int stop_attacker(attacker_t *a, loot_t *loot) {
  close(a->stop);
  ssize_t n = read(a->report, loot, sizeof *loot);
  close(a->report);
  int status = 0;
  waitpid(a->pid, &status, 0);
  return n == (ssize_t)sizeof *loot && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Sums rank + 1 over comm and checks the total. */
static void check_sum(ncore_comm_t comm) {
  int size = 0;
  CHECK_OK(ncore_comm_size(comm, &size));
  int32_t *buf = tb_alloc(sizeof(int32_t));
  CHECK(buf);
  int r = 0;
  CHECK_OK(ncore_comm_rank(comm, &r));
  int32_t v = r + 1;
  tb_put(buf, &v, sizeof v);
  CHECK_OK(ncore_allreduce(comm, buf, buf, 1, NCORE_INT32, NCORE_SUM, NULL));
  tb_get(&v, buf, sizeof v);
  CHECK_EQ(v, size * (size + 1) / 2);
  tb_free(buf);
}

/* Rank 0's decision, shared: 1 when a second user attacks. Skips otherwise. */
static int agree(ncore_comm_t comm, int mine) {
  int32_t *buf = tb_alloc(sizeof(int32_t));
  if (!buf) return 0;
  int32_t v = mine;
  tb_put(buf, &v, sizeof v);
  ncore_status_t st = ncore_broadcast(comm, buf, buf, 1, NCORE_INT32, 0, NULL);
  tb_get(&v, buf, sizeof v);
  tb_free(buf);
  return st == NCORE_OK && v;
}

/* The victim's side of the attack: split, shrink, and sums on each. */
static void victim_calls(ncore_comm_t comm, int rank) {
  ncore_comm_t child = NCORE_NULL_HANDLE, shrunk = NCORE_NULL_HANDLE;
  CHECK_OK(ncore_comm_split(comm, rank % 2, rank, &child, NULL));
  check_sum(child);
  CHECK_OK(ncore_comm_shrink(comm, NULL, 0, &shrunk, NULL, 0));
  check_sum(shrunk);
  check_sum(comm);
  CHECK_OK(ncore_comm_destroy(child));
  CHECK_OK(ncore_comm_destroy(shrunk));
}

/* The audit's attack, by a second user: it plants the names e6e904a would
 * give the children of a split and a shrink (the victim's rank 0 then
 * failed with "File exists" and the others joined the attacker's segment),
 * and keeps trying every ncore rendezvous and file it can see during the
 * victim's init, split and shrink. The victim's calls must all succeed with
 * correct results, and the attacker must get nothing. */
MR_TEST_EX(second_user_cannot_take_over_a_communicator, MR_OWN_PROCESSES, 2) {
  REQUIRE_HOST_BACKEND("checks the host backend's shared memory; NCCL shares device memory through NCCL, not through ncore");
  uid_t uid = 0;
  gid_t gid = 0;
  char why[200] = "";
  attacker_t attacker = {0, -1, -1};
  int made = 0, attacking = 0;
  if (rank == 0) {
    made = make_attacker(&uid, &gid, why, sizeof why) == 0;
    if (made) attacking = start_attacker(uid, gid, id_token(id), &attacker) == 0;
  }
  /* The attacker is already watching while the communicator is made. */
  ncore_comm_t comm = mr_comm_init(rank, nranks, id);
  if (comm && agree(comm, attacking)) {
    victim_calls(comm, rank);
    mr_barrier(comm);
  } else if (!harness_failed()) {
    harness_skip("%s", why[0] ? why : "the second user could not start");
  }
  /* Cleanup whatever happened above: the attacker never outlives the
   * test, nor does its account. */
  loot_t loot = {0};
  int stopped = attacker.pid > 0 ? stop_attacker(&attacker, &loot) : -1;
  if (made) remove_attacker();
  if (comm) CHECK_OK(ncore_comm_destroy(comm));
  if (rank != 0 || !attacking || harness_stopped()) return;
  CHECK_EQ(stopped, 0);
  CHECK(loot.names_planted > 0);
  printf("second user: planted %d names, tried %d rendezvous, got %d segments, opened %d files\n",
         loot.names_planted, loot.rendezvous_tried, loot.descriptors_got, loot.files_opened);
  CHECK_EQ(loot.descriptors_got, 0);
  CHECK_EQ(loot.files_opened, 0);
}

/* A file of this test that rank 0 and the others use to agree without a
 * communicator (there is none yet): /tmp/ncore-squat-<token>.<what>. */
static void flag_path(char *out, size_t size, const ncore_unique_id_t *id, const char *what) {
  snprintf(out, size, "/tmp/ncore-squat-%016llx.%s", (unsigned long long)id_token(id), what);
}

static int wait_for_file(const char *path, int ms) {
  struct stat st;
  for (int i = 0; i < ms; i++) {
    if (stat(path, &st) == 0) return 1;
    usleep(1000);
  }
  return 0;
}

static void touch(const char *path) {
  FILE *f = fopen(path, "w");
  if (f) fclose(f);
}

/* The second user's squatter: holds the rendezvous name of token, accepts
 * and drops every connection. Tells `go` once it listens. */
static void squat(uid_t uid, gid_t gid, uint64_t token, int go) {
  if (setgroups(0, NULL) || setgid(gid) || setuid(uid)) _exit(3);
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un a;
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  int n = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "ncore-%016llx",
                   (unsigned long long)token);
  if (bind(s, (struct sockaddr *)&a,
           (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n)) ||
      listen(s, 64))
    _exit(4);
  if (write(go, "g", 1) != 1) _exit(5);
  for (;;) {
    int c = accept(s, NULL, NULL);
    if (c >= 0) close(c);
  }
}

/* A second user who holds the rendezvous name of a unique id (it read the
 * id from a command line) gets nothing either: rank 0 cannot listen and
 * fails, and the other ranks refuse a segment from another user's process;
 * nobody waits for the timeout. */
MR_TEST_EX(squatted_rendezvous_fails_at_once, MR_OWN_PROCESSES, 2) {
  REQUIRE_HOST_BACKEND("checks the host backend's shared memory; NCCL shares device memory through NCCL, not through ncore");
  char ready[96], skip[96], done[96];
  flag_path(ready, sizeof ready, id, "ready");
  flag_path(skip, sizeof skip, id, "skip");
  uid_t uid = 0;
  gid_t gid = 0;
  char why[200] = "";
  pid_t squatter = 0;
  int made = 0;
  if (rank == 0) {
    int go[2];
    made = make_attacker(&uid, &gid, why, sizeof why) == 0;
    if (made && pipe(go) == 0) {
      squatter = fork();
      if (squatter == 0) {
        close(go[0]);
        squat(uid, gid, id_token(id), go[1]);
      }
      close(go[1]);
      char c;
      touch(read(go[0], &c, 1) == 1 ? ready : skip);
      close(go[0]);
    } else {
      touch(skip);
    }
  }
  struct stat st;
  for (int i = 0; i < 10000 && stat(ready, &st) != 0 && stat(skip, &st) != 0; i++)
    usleep(1000);
  if (stat(ready, &st) == 0) {
    ncore_comm_config_t config = mr_config();
    config.timeout_ms = 20000;
    ncore_comm_t comm = NCORE_NULL_HANDLE;
    double t0 = mr_now_ms();
    ncore_status_t got = ncore_comm_init_rank(&comm, nranks, id, rank, &config);
    double took = mr_now_ms() - t0;
    char message[512];
    snprintf(message, sizeof message, "%s", ncore_last_error_message());
    flag_path(done, sizeof done, id, "done");
    char mine[120];
    snprintf(mine, sizeof mine, "%s%d", done, rank);
    touch(mine);
    if (rank == 0) {
      /* The squatter stays until every rank met it. */
      for (int r = 1; r < nranks; r++) {
        snprintf(mine, sizeof mine, "%s%d", done, r);
        wait_for_file(mine, 15000);
      }
    }
    if (comm != NCORE_NULL_HANDLE) ncore_comm_destroy(comm);
    /* Checked without returning: the cleanup below must run. */
    if (got != NCORE_ERR_SYSTEM || !strstr(message, rank == 0 ? "is taken" : "not by this user"))
      harness_fail(__FILE__, __LINE__, "init gave %s (\"%s\"), expected NCORE_ERR_SYSTEM",
                   ncore_status_string(got), message);
    else if (took >= 10000)
      harness_fail(__FILE__, __LINE__, "init took %.0f ms to fail", took);
  } else if (!harness_failed()) {
    harness_skip("%s", why[0] ? why : "no second user here");
  }
  if (rank == 0) {
    if (squatter > 0) {
      kill(squatter, SIGKILL);
      waitpid(squatter, NULL, 0);
    }
    if (made) remove_attacker();
    usleep(200 * 1000); /* the others have read the flags */
    unlink(ready);
    unlink(skip);
    for (int r = 0; r < nranks; r++) {
      char mine[120];
      snprintf(mine, sizeof mine, "%s%d", done, r);
      unlink(mine);
    }
  }
}

HARNESS_MAIN
