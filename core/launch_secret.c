/* core — a launched job's identity (launch_secret.h). */
#include "launch_secret.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "log.h"

/* The key is the SHA-256 of a domain tag and the text, so a secret used
 * elsewhere too (a password, a token) is not itself the key. */
static void key_of(const void *text, size_t len, unsigned char key[CORE_SHA256_BYTES]) {
  static const char tag[] = "ncore job secret v1";
  core_sha256_t h;
  core_sha256_init(&h);
  core_sha256_update(&h, tag, sizeof tag);
  core_sha256_update(&h, text, len);
  core_sha256_final(&h, key);
}

/* The label: a hash of the key, short, which tells nothing of the key. */
static void label_of(core_launch_secret_t *s) {
  static const char digits[] = "0123456789abcdef";
  unsigned char digest[CORE_SHA256_BYTES];
  core_hmac_sha256(s->key, sizeof s->key, "ncore job label v1",
                   sizeof "ncore job label v1", digest);
  for (int i = 0; i < CORE_LAUNCH_LABEL_CHARS / 2; i++) {
    s->label[2 * i] = digits[digest[i] >> 4];
    s->label[2 * i + 1] = digits[digest[i] & 15];
  }
  s->label[CORE_LAUNCH_LABEL_CHARS] = '\0';
}

void core_launch_secret_from_text(const void *text, size_t len,
                                  const char *name, const char *source,
                                  int authenticates, core_launch_secret_t *out) {
  memset(out, 0, sizeof *out);
  key_of(text, len, out->key);
  label_of(out);
  snprintf(out->name, sizeof out->name, "%s", name);
  snprintf(out->source, sizeof out->source, "%s", source);
  out->authenticates = authenticates;
}

void core_launch_secret_mix(core_launch_secret_t *secret, const char *text,
                            const char *name, const char *source) {
  unsigned char key[CORE_SHA256_BYTES];
  core_hmac_sha256(secret->key, sizeof secret->key, text, strlen(text), key);
  memcpy(secret->key, key, sizeof key);
  memset(key, 0, sizeof key);
  label_of(secret);
  snprintf(secret->name, sizeof secret->name, "%s", name);
  snprintf(secret->source, sizeof secret->source, "%s", source);
  secret->authenticates = 1;
}

/* A given secret: refused when shorter than a guess would take long. */
static ncore_status_t from_given(const char *text, size_t len, const char *variable,
                                 core_launch_secret_t *out) {
  if (len < CORE_LAUNCH_SECRET_MIN_CHARS)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: %zu characters; a job secret needs at least %d "
                      "(random ones: ncore-run makes 64 hex characters, as "
                      "`od -An -tx1 -N32 /dev/urandom | tr -d ' \\n'` does)",
                      variable, len, CORE_LAUNCH_SECRET_MIN_CHARS);
  core_launch_secret_from_text(text, len, "", variable, 1, out);
  return NCORE_OK;
}

/* NCORE_JOB_SECRET_FILE's contents, trailing white space dropped. */
static ncore_status_t from_file(const char *path, core_launch_secret_t *out) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "NCORE_JOB_SECRET_FILE: cannot open %s: %s", path,
                      strerror(errno));
  /* One byte more than allowed, to tell a file that is too long. */
  char text[CORE_LAUNCH_SECRET_FILE_MAX_BYTES + 1];
  size_t len = 0;
  for (;;) {
    ssize_t n = read(fd, text + len, sizeof text - len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      close(fd);
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "NCORE_JOB_SECRET_FILE: reading %s: %s", path, strerror(e));
    }
    if (n == 0 || (len += (size_t)n) == sizeof text) break;
  }
  close(fd);
  if (len > CORE_LAUNCH_SECRET_FILE_MAX_BYTES)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "NCORE_JOB_SECRET_FILE: %s holds more than %d bytes; a "
                      "job secret is a line of text", path,
                      CORE_LAUNCH_SECRET_FILE_MAX_BYTES);
  while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' ||
                     text[len - 1] == ' ' || text[len - 1] == '\t'))
    len--;
  ncore_status_t s = from_given(text, len, "NCORE_JOB_SECRET_FILE", out);
  memset(text, 0, sizeof text);
  return s;
}

/* A value of the environment that names the job, or NULL. */
static const char *job_value(const char *variable) {
  const char *v = getenv(variable);
  return v != NULL && v[0] != '\0' ? v : NULL;
}

/* Derives the identity from what a launcher gives every rank of a job;
 * 0, or -1 when there is nothing to derive it from. */
static int derive(core_launch_secret_t *out) {
  char text[512], name[sizeof out->name];
  const char *source = NULL;
  const char *run = job_value("TORCHELASTIC_RUN_ID");
  const char *job = job_value("SLURM_JOB_ID"), *step = job_value("SLURM_STEP_ID");
  const char *pmix = job_value("PMIX_NAMESPACE");
  const char *ompi = job_value("OMPI_MCA_ess_base_jobid");
  /* torchrun's default run id, "none", is the same for every job. */
  if (run != NULL && strcmp(run, "none") != 0) {
    source = "TORCHELASTIC_RUN_ID";
    snprintf(text, sizeof text, "torchrun\n%s", run);
    snprintf(name, sizeof name, "torchrun run %.40s", run);
  } else if (job != NULL && step != NULL) {
    const char *cluster = job_value("SLURM_CLUSTER_NAME");
    source = "SLURM_JOB_ID, SLURM_STEP_ID";
    snprintf(text, sizeof text, "slurm\n%s\n%s\n%s", cluster ? cluster : "", job, step);
    snprintf(name, sizeof name, "Slurm job %.20s step %.20s", job, step);
  } else if (pmix != NULL) {
    source = "PMIX_NAMESPACE";
    snprintf(text, sizeof text, "pmix\n%s", pmix);
    snprintf(name, sizeof name, "PMIx namespace %.40s", pmix);
  } else if (ompi != NULL) {
    source = "OMPI_MCA_ess_base_jobid";
    snprintf(text, sizeof text, "open mpi\n%s", ompi);
    snprintf(name, sizeof name, "Open MPI job %.40s", ompi);
  } else {
    return -1;
  }
  core_launch_secret_from_text(text, strlen(text), name, source, 0, out);
  return 0;
}

ncore_status_t core_launch_secret_read(core_launch_secret_t *out) {
  const char *given = getenv("NCORE_JOB_SECRET");
  const char *file = getenv("NCORE_JOB_SECRET_FILE");
  ncore_status_t s = NCORE_OK;
  if (given != NULL && given[0] != '\0')
    s = from_given(given, strlen(given), "NCORE_JOB_SECRET", out);
  else if (file != NULL && file[0] != '\0')
    s = from_file(file, out);
  else if (derive(out) != 0)
    core_launch_secret_from_text("", 0, "no job identity", "none", 0, out);
  if (s != NCORE_OK) return s;
  /* The name where the launcher has one, even for a given secret. */
  if (out->name[0] == '\0') {
    core_launch_secret_t derived;
    if (derive(&derived) == 0) snprintf(out->name, sizeof out->name, "%s", derived.name);
  }
  char job[128];
  core_launch_secret_describe(out, job, sizeof job);
  if (out->authenticates)
    core_log(CORE_LOG_INFO, "%s: its secret from %s is proven on every "
             "connection", job, out->source);
  else if (strcmp(out->source, "none") != 0)
    core_log(CORE_LOG_INFO, "%s: derived from %s, which separates jobs but "
             "authenticates nobody (NCORE_JOB_SECRET does)", job, out->source);
  else
    core_log(CORE_LOG_WARN, "%s: no NCORE_JOB_SECRET, NCORE_JOB_SECRET_FILE or "
             "launcher job id, so any job at the same MASTER_ADDR:MASTER_PORT "
             "passes for this one", job);
  return NCORE_OK;
}

void core_launch_secret_describe(const core_launch_secret_t *secret, char *out,
                                 size_t cap) {
  if (secret->name[0] != '\0')
    snprintf(out, cap, "job %s (%s)", secret->label, secret->name);
  else
    snprintf(out, cap, "job %s", secret->label);
}

void core_launch_secret_mac_begin(const core_launch_secret_t *secret,
                                  const char *purpose, core_hmac_sha256_t *mac) {
  core_hmac_sha256_init(mac, secret->key, sizeof secret->key);
  core_hmac_sha256_update(mac, purpose, strlen(purpose) + 1);
}

void core_launch_secret_seal(const core_launch_secret_t *secret,
                             const void *context, size_t context_len,
                             void *data, size_t len) {
  unsigned char *at = data;
  for (uint32_t block = 0; len > 0; block++) {
    unsigned char stream[CORE_SHA256_BYTES], counter[4] = {
        (unsigned char)(block >> 24), (unsigned char)(block >> 16),
        (unsigned char)(block >> 8), (unsigned char)block};
    core_hmac_sha256_t mac;
    core_launch_secret_mac_begin(secret, "ncore seal v1", &mac);
    core_hmac_sha256_update(&mac, context, context_len);
    core_hmac_sha256_update(&mac, counter, sizeof counter);
    core_hmac_sha256_final(&mac, stream);
    size_t take = len < sizeof stream ? len : sizeof stream;
    for (size_t i = 0; i < take; i++) at[i] ^= stream[i];
    at += take;
    len -= take;
  }
}
