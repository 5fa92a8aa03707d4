/* Unit tests of a launched job's identity and what it keys (item
 * 1), built from the library's sources (//:ncore_core, see tests/BUILD):
 * SHA-256 and HMAC-SHA-256 against their standards' own test vectors
 * (core/sha256.c), the job secret read from the environment, a file or a
 * launcher's job id (core/launch_secret.c), and the store's messages
 * (core/launch_tcp_wire.c): only the job's secret proves an ask or an
 * answer, a changed byte proves nothing, and the id travels sealed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "../../core/launch_secret.h"
#include "../../core/launch_tcp_wire.h"
#include "../../core/sha256.h"

/* The digest as lowercase hex into out (65 bytes). */
static void hex(const unsigned char *digest, size_t n, char *out) {
  for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", digest[i]);
}

static void check_sha256(const char *message, size_t len, const char *want) {
  unsigned char digest[CORE_SHA256_BYTES];
  char got[2 * CORE_SHA256_BYTES + 1];
  core_sha256(message, len, digest);
  hex(digest, sizeof digest, got);
  if (strcmp(got, want) != 0)
    harness_fail(__FILE__, __LINE__, "SHA-256 of \"%.40s\" (%zu bytes): %s, "
                 "expected %s", message, len, got, want);
}

/* FIPS 180-4's examples (NIST's "SHA256.pdf" and the long-message one),
 * and the empty message. */
TEST(sha256_matches_the_fips_180_examples) {
  check_sha256("abc", 3,
               "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  check_sha256("", 0,
               "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const char *two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  check_sha256(two_blocks, strlen(two_blocks),
               "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const char *long_one = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                         "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
  check_sha256(long_one, strlen(long_one),
               "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  /* A million 'a's, fed in pieces that straddle block boundaries. */
  core_sha256_t h;
  core_sha256_init(&h);
  char piece[997];
  memset(piece, 'a', sizeof piece);
  size_t left = 1000000;
  while (left > 0) {
    size_t take = left < sizeof piece ? left : sizeof piece;
    core_sha256_update(&h, piece, take);
    left -= take;
  }
  unsigned char digest[CORE_SHA256_BYTES];
  char got[2 * CORE_SHA256_BYTES + 1];
  core_sha256_final(&h, digest);
  hex(digest, sizeof digest, got);
  CHECK_STR_EQ(got, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* RFC 4231, section 4: the seven HMAC-SHA-256 test cases (case 5's output
 * truncated to 128 bits, as the RFC gives it). */
TEST(hmac_sha256_matches_rfc_4231) {
  unsigned char k1[20], k3[20], k4[25], k5[20], k6[131], d3[50], d4[50];
  memset(k1, 0x0b, sizeof k1);
  memset(k3, 0xaa, sizeof k3);
  for (int i = 0; i < 25; i++) k4[i] = (unsigned char)(i + 1);
  memset(k5, 0x0c, sizeof k5);
  memset(k6, 0xaa, sizeof k6);
  memset(d3, 0xdd, sizeof d3);
  memset(d4, 0xcd, sizeof d4);
  const char *d6 = "Test Using Larger Than Block-Size Key - Hash Key First";
  const char *d7 = "This is a test using a larger than block-size key and a larger "
                   "than block-size data. The key needs to be hashed before being "
                   "used by the HMAC algorithm.";
  struct {
    const void *key;
    size_t key_len;
    const void *data;
    size_t data_len;
    const char *want; /* hex; case 5: its first 16 bytes */
  } cases[] = {
      {k1, sizeof k1, "Hi There", 8,
       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
      {"Jefe", 4, "what do ya want for nothing?", 28,
       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
      {k3, sizeof k3, d3, sizeof d3,
       "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
      {k4, sizeof k4, d4, sizeof d4,
       "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
      {k5, sizeof k5, "Test With Truncation", 20, "a3b6167473100ee06e0c796c2955552b"},
      {k6, sizeof k6, d6, strlen(d6),
       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
      {k6, sizeof k6, d7, strlen(d7),
       "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    unsigned char mac[CORE_SHA256_BYTES];
    char got[2 * CORE_SHA256_BYTES + 1];
    core_hmac_sha256(cases[i].key, cases[i].key_len, cases[i].data,
                     cases[i].data_len, mac);
    hex(mac, sizeof mac, got);
    if (strncmp(got, cases[i].want, strlen(cases[i].want)) != 0)
      harness_fail(__FILE__, __LINE__, "RFC 4231 case %zu: %s, expected %s", i + 1,
                   got, cases[i].want);
  }
}

/* Clears every variable the identity is read from. */
static void clear_identity(void) {
  static const char *names[] = {"NCORE_JOB_SECRET", "NCORE_JOB_SECRET_FILE",
                                "TORCHELASTIC_RUN_ID", "SLURM_JOB_ID",
                                "SLURM_STEP_ID", "SLURM_CLUSTER_NAME",
                                "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unsetenv(names[i]);
}

/* A secret given in NCORE_JOB_SECRET or in a file: one identity for one
 * text, wherever it comes from, another for another text; the label is
 * public and says nothing of the secret. */
TEST(a_given_secret_authenticates_and_names_its_job) {
  clear_identity();
  core_launch_secret_t a, b, from_file, other;
  setenv("NCORE_JOB_SECRET", "0123456789abcdef0123456789abcdef", 1);
  CHECK_EQ(core_launch_secret_read(&a), NCORE_OK);
  CHECK_EQ(a.authenticates, 1);
  CHECK_STR_EQ(a.source, "NCORE_JOB_SECRET");
  CHECK_EQ(strlen(a.label), CORE_LAUNCH_LABEL_CHARS);
  CHECK(strstr("0123456789abcdef", a.label) == NULL);
  CHECK_EQ(core_launch_secret_read(&b), NCORE_OK);
  CHECK(memcmp(a.key, b.key, sizeof a.key) == 0);
  char path[] = "/tmp/ncore-test-secret-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  const char text[] = "0123456789abcdef0123456789abcdef\n";
  CHECK(write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
  close(fd);
  unsetenv("NCORE_JOB_SECRET");
  setenv("NCORE_JOB_SECRET_FILE", path, 1);
  ncore_status_t got = core_launch_secret_read(&from_file);
  unlink(path);
  CHECK_EQ(got, NCORE_OK);
  CHECK_STR_EQ(from_file.source, "NCORE_JOB_SECRET_FILE");
  CHECK(memcmp(a.key, from_file.key, sizeof a.key) == 0);
  CHECK_STR_EQ(a.label, from_file.label);
  unsetenv("NCORE_JOB_SECRET_FILE");
  setenv("NCORE_JOB_SECRET", "0123456789abcdef0123456789abcdeF", 1);
  CHECK_EQ(core_launch_secret_read(&other), NCORE_OK);
  CHECK(memcmp(a.key, other.key, sizeof a.key) != 0);
  CHECK(strcmp(a.label, other.label) != 0);
  /* A launcher's name of the job still names it. */
  setenv("TORCHELASTIC_RUN_ID", "run-17", 1);
  CHECK_EQ(core_launch_secret_read(&other), NCORE_OK);
  CHECK_STR_EQ(other.name, "torchrun run run-17");
  clear_identity();
}

/* What cannot be a secret is refused naming the variable. */
TEST(an_unusable_secret_is_refused_naming_its_variable) {
  clear_identity();
  core_launch_secret_t s;
  setenv("NCORE_JOB_SECRET", "short", 1);
  CHECK_EQ(core_launch_secret_read(&s), NCORE_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ncore_last_error_message(), "NCORE_JOB_SECRET: 5 characters") != NULL);
  unsetenv("NCORE_JOB_SECRET");
  setenv("NCORE_JOB_SECRET_FILE", "/nonexistent/ncore-secret", 1);
  CHECK_EQ(core_launch_secret_read(&s), NCORE_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ncore_last_error_message(), "NCORE_JOB_SECRET_FILE: cannot open") != NULL);
  char path[] = "/tmp/ncore-test-secret-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  char big[CORE_LAUNCH_SECRET_FILE_MAX_BYTES + 10];
  memset(big, 'x', sizeof big);
  ssize_t wrote = write(fd, big, sizeof big);
  close(fd);
  setenv("NCORE_JOB_SECRET_FILE", path, 1);
  ncore_status_t got = core_launch_secret_read(&s);
  unlink(path);
  CHECK_EQ(wrote, (ssize_t)sizeof big);
  CHECK_EQ(got, NCORE_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ncore_last_error_message(), "more than 4096 bytes") != NULL);
  clear_identity();
}

/* Without a given secret, what the launcher gives every rank of one job
 * separates jobs (and is said not to authenticate); torchrun's default
 * run id "none" separates nothing and is not used. */
TEST(launcher_job_ids_separate_jobs_without_authenticating) {
  clear_identity();
  core_launch_secret_t none, run_a, run_b, run_none, slurm, slurm_step;
  CHECK_EQ(core_launch_secret_read(&none), NCORE_OK);
  CHECK_STR_EQ(none.source, "none");
  CHECK_EQ(none.authenticates, 0);
  setenv("TORCHELASTIC_RUN_ID", "5f3c-a", 1);
  CHECK_EQ(core_launch_secret_read(&run_a), NCORE_OK);
  setenv("TORCHELASTIC_RUN_ID", "5f3c-b", 1);
  CHECK_EQ(core_launch_secret_read(&run_b), NCORE_OK);
  setenv("TORCHELASTIC_RUN_ID", "none", 1);
  CHECK_EQ(core_launch_secret_read(&run_none), NCORE_OK);
  unsetenv("TORCHELASTIC_RUN_ID");
  setenv("SLURM_JOB_ID", "42", 1);
  setenv("SLURM_STEP_ID", "0", 1);
  CHECK_EQ(core_launch_secret_read(&slurm), NCORE_OK);
  setenv("SLURM_STEP_ID", "1", 1);
  CHECK_EQ(core_launch_secret_read(&slurm_step), NCORE_OK);
  clear_identity();
  CHECK_EQ(run_a.authenticates, 0);
  CHECK_STR_EQ(run_a.source, "TORCHELASTIC_RUN_ID");
  CHECK_STR_EQ(run_a.name, "torchrun run 5f3c-a");
  CHECK(strcmp(run_a.label, run_b.label) != 0);
  CHECK_STR_EQ(run_none.label, none.label);
  CHECK_STR_EQ(slurm.name, "Slurm job 42 step 0");
  CHECK(strcmp(slurm.label, slurm_step.label) != 0);
  CHECK(strcmp(slurm.label, none.label) != 0);
}

/* Two identities for the store tests. */
static void two_jobs(core_launch_secret_t *ours, core_launch_secret_t *theirs) {
  const char a[] = "the secret of job A, 32 bytes ok";
  const char b[] = "the secret of job B, 32 bytes ok";
  core_launch_secret_from_text(a, strlen(a), "job A", "test", 1, ours);
  core_launch_secret_from_text(b, strlen(b), "job B", "test", 1, theirs);
}

/* An ask proves the secret it was made with, and nothing else: another
 * job's, a changed byte, a greeting of another connection. */
TEST(an_ask_proves_its_jobs_secret_only) {
  core_launch_secret_t ours, theirs;
  two_jobs(&ours, &theirs);
  core_store_greeting_t greeting, another;
  CHECK_EQ(core_store_greeting_make(&ours, &greeting), NCORE_OK);
  CHECK_EQ(core_store_greeting_make(&ours, &another), NCORE_OK);
  CHECK(core_store_greeting_valid(&greeting));
  unsigned char claim[CORE_STORE_CLAIM_BYTES] = {1, 2, 3};
  core_store_ask_t ask, stranger;
  CHECK_EQ(core_store_ask_make(&ours, &greeting, 2, 4, 7, claim, &ask), NCORE_OK);
  CHECK_EQ(core_store_ask_make(&theirs, &greeting, 2, 4, 7, claim, &stranger), NCORE_OK);
  CHECK(core_store_ask_proven(&ours, &greeting, &ask));
  CHECK(!core_store_ask_proven(&ours, &greeting, &stranger));
  CHECK(!core_store_ask_proven(&ours, &another, &ask)); /* replayed elsewhere */
  for (size_t i = 0; i < offsetof(core_store_ask_t, proof); i++) {
    core_store_ask_t changed = ask;
    ((unsigned char *)&changed)[i] ^= 0x20;
    if (core_store_ask_proven(&ours, &greeting, &changed))
      harness_fail(__FILE__, __LINE__, "an ask with byte %zu changed is proven", i);
  }
  CHECK(core_store_ask_prefix_valid(&ask, 3));
  CHECK(!core_store_ask_prefix_valid("NCOREID?", 8)); /* the old, unproven ask */
}

/* The answer: only the job's store can make one its ranks believe, the
 * id in it is sealed (not in clear on the wire) and comes out whole. */
TEST(an_answer_is_proven_and_its_id_sealed) {
  core_launch_secret_t ours, theirs;
  two_jobs(&ours, &theirs);
  core_store_greeting_t greeting;
  CHECK_EQ(core_store_greeting_make(&ours, &greeting), NCORE_OK);
  unsigned char claim[CORE_STORE_CLAIM_BYTES] = {9};
  core_store_ask_t ask;
  CHECK_EQ(core_store_ask_make(&ours, &greeting, 1, 2, 0, claim, &ask), NCORE_OK);
  ncore_unique_id_t id, got;
  for (size_t i = 0; i < sizeof id.internal; i++) id.internal[i] = (char)(i * 7 + 1);
  core_store_answer_t answer, forged;
  core_store_answer_make(&ours, &greeting, &ask, CORE_STORE_GIVEN, 2, 0, "", &id, &answer);
  core_store_answer_make(&theirs, &greeting, &ask, CORE_STORE_GIVEN, 2, 0, "", &id, &forged);
  CHECK(core_store_answer_proven(&ours, &greeting, &ask, &answer));
  CHECK(!core_store_answer_proven(&ours, &greeting, &ask, &forged));
  CHECK(memmem(&answer, sizeof answer, id.internal, 16) == NULL);
  core_store_answer_unseal(&ours, &greeting, &ask, &answer, &got);
  CHECK(memcmp(got.internal, id.internal, sizeof id.internal) == 0);
  core_store_answer_t changed = answer;
  changed.sealed_id[5] ^= 1;
  CHECK(!core_store_answer_proven(&ours, &greeting, &ask, &changed));
  /* A stranger's answer carries no proof and no id. */
  core_store_answer_t refusal;
  core_store_answer_make(&ours, &greeting, &ask, CORE_STORE_STRANGER, 0, 0,
                         "go away", &id, &refusal);
  CHECK(!core_store_answer_proven(&ours, &greeting, &ask, &refusal));
  unsigned char zero[NCORE_UNIQUE_ID_BYTES] = {0};
  CHECK(memcmp(refusal.sealed_id, zero, sizeof zero) == 0);
}

/* What a peer writes into a text field reaches messages as printable
 * ASCII only, cut at the field's size. */
TEST(a_peers_text_is_printable_and_bounded) {
  char field[8] = {'a', '\n', 'b', '\x1b', '[', 'c', 'd', 'e'}; /* no NUL */
  char out[64];
  core_store_text(field, sizeof field, out, sizeof out);
  CHECK_STR_EQ(out, "a?b?[cde");
  core_store_text(field, sizeof field, out, 4);
  CHECK_STR_EQ(out, "a?b");
}

HARNESS_MAIN
