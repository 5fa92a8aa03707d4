/* core — the messages between a rank and ncore's store (launch_tcp_wire.h). */
#include "launch_tcp_wire.h"

#include <endian.h>
#include <stdio.h>
#include <string.h>

#include "random_bytes.h"

#define GREETING_MAGIC "NCSTORE1"
#define ASK_MAGIC "NCSTASK1"
#define ANSWER_MAGIC "NCSTANS1"

/* Fills a NUL-padded text field of a message. */
static void put_text(char *field, size_t cap, const char *text) {
  memset(field, 0, cap);
  size_t len = strlen(text);
  memcpy(field, text, len < cap ? len : cap);
}

ncore_status_t core_store_greeting_make(const core_launch_secret_t *secret,
                                        core_store_greeting_t *out) {
  memset(out, 0, sizeof *out);
  memcpy(out->magic, GREETING_MAGIC, CORE_STORE_MAGIC_BYTES);
  put_text(out->label, sizeof out->label, secret->label);
  put_text(out->name, sizeof out->name, secret->name);
  return core_random_bytes(out->nonce, sizeof out->nonce);
}

int core_store_greeting_valid(const core_store_greeting_t *greeting) {
  return core_store_greeting_prefix_valid(greeting->magic, CORE_STORE_MAGIC_BYTES);
}

int core_store_greeting_prefix_valid(const void *received, size_t n) {
  size_t k = n < CORE_STORE_MAGIC_BYTES ? n : CORE_STORE_MAGIC_BYTES;
  return memcmp(received, GREETING_MAGIC, k) == 0;
}

/* A proof over the conversation so far: purpose, the greeting, then
 * ask_bytes of the ask and answer_bytes of the answer (answer may be NULL
 * when answer_bytes is 0). */
static void conversation_mac(const core_launch_secret_t *secret, const char *purpose,
                             const core_store_greeting_t *greeting,
                             const core_store_ask_t *ask, size_t ask_bytes,
                             const core_store_answer_t *answer, size_t answer_bytes,
                             unsigned char out[CORE_SHA256_BYTES]) {
  core_hmac_sha256_t mac;
  core_launch_secret_mac_begin(secret, purpose, &mac);
  core_hmac_sha256_update(&mac, greeting, sizeof *greeting);
  core_hmac_sha256_update(&mac, ask, ask_bytes);
  core_hmac_sha256_update(&mac, answer, answer_bytes);
  core_hmac_sha256_final(&mac, out);
}

/* The rank's proof: what it received and what it sends before the proof. */
static void ask_proof(const core_launch_secret_t *secret,
                      const core_store_greeting_t *greeting,
                      const core_store_ask_t *ask,
                      unsigned char out[CORE_SHA256_BYTES]) {
  conversation_mac(secret, "ncore store ask v1", greeting, ask,
                   offsetof(core_store_ask_t, proof), NULL, 0, out);
}

ncore_status_t core_store_ask_make(const core_launch_secret_t *secret,
                                   const core_store_greeting_t *greeting,
                                   int rank, int nranks, uint64_t call,
                                   const unsigned char claim[CORE_STORE_CLAIM_BYTES],
                                   core_store_ask_t *out) {
  memset(out, 0, sizeof *out);
  memcpy(out->magic, ASK_MAGIC, CORE_STORE_MAGIC_BYTES);
  out->rank = htole32((uint32_t)rank);
  out->nranks = htole32((uint32_t)nranks);
  out->call = htole64(call);
  put_text(out->label, sizeof out->label, secret->label);
  put_text(out->name, sizeof out->name, secret->name);
  memcpy(out->claim, claim, sizeof out->claim);
  ncore_status_t s = core_random_bytes(out->nonce, sizeof out->nonce);
  if (s == NCORE_OK) ask_proof(secret, greeting, out, out->proof);
  return s;
}

int core_store_ask_prefix_valid(const void *received, size_t n) {
  size_t k = n < CORE_STORE_MAGIC_BYTES ? n : CORE_STORE_MAGIC_BYTES;
  return memcmp(received, ASK_MAGIC, k) == 0;
}

int core_store_ask_proven(const core_launch_secret_t *secret,
                          const core_store_greeting_t *greeting,
                          const core_store_ask_t *ask) {
  unsigned char want[CORE_SHA256_BYTES];
  ask_proof(secret, greeting, ask, want);
  return core_store_ask_prefix_valid(ask, sizeof *ask) &&
         core_equal_in_constant_time(want, ask->proof, sizeof want);
}

/* The store's proof over the whole conversation. */
static void answer_mac(const core_launch_secret_t *secret,
                       const core_store_greeting_t *greeting,
                       const core_store_ask_t *ask,
                       const core_store_answer_t *answer,
                       unsigned char out[CORE_SHA256_BYTES]) {
  conversation_mac(secret, "ncore store answer v1", greeting, ask, sizeof *ask,
                   answer, offsetof(core_store_answer_t, mac), out);
}

/* The sealing context: both nonces, so no key stream is used twice. */
static void seal(const core_launch_secret_t *secret,
                 const core_store_greeting_t *greeting,
                 const core_store_ask_t *ask, void *data, size_t len) {
  unsigned char context[2 * CORE_STORE_NONCE_BYTES];
  memcpy(context, greeting->nonce, CORE_STORE_NONCE_BYTES);
  memcpy(context + CORE_STORE_NONCE_BYTES, ask->nonce, CORE_STORE_NONCE_BYTES);
  core_launch_secret_seal(secret, context, sizeof context, data, len);
}

void core_store_answer_make(const core_launch_secret_t *secret,
                            const core_store_greeting_t *greeting,
                            const core_store_ask_t *ask,
                            core_store_verdict_t verdict, int nranks,
                            uint64_t call, const char *message,
                            const ncore_unique_id_t *id,
                            core_store_answer_t *out) {
  memset(out, 0, sizeof *out);
  memcpy(out->magic, ANSWER_MAGIC, CORE_STORE_MAGIC_BYTES);
  out->verdict = htole32((uint32_t)verdict);
  out->nranks = htole32((uint32_t)nranks);
  out->call = htole64(call);
  put_text(out->message, sizeof out->message - 1, message);
  if (verdict == CORE_STORE_STRANGER) return;
  if (verdict == CORE_STORE_GIVEN && id != NULL) {
    memcpy(out->sealed_id, id->internal, sizeof out->sealed_id);
    seal(secret, greeting, ask, out->sealed_id, sizeof out->sealed_id);
  }
  answer_mac(secret, greeting, ask, out, out->mac);
}

int core_store_answer_valid(const core_store_answer_t *answer) {
  return memcmp(answer->magic, ANSWER_MAGIC, CORE_STORE_MAGIC_BYTES) == 0;
}

int core_store_answer_proven(const core_launch_secret_t *secret,
                             const core_store_greeting_t *greeting,
                             const core_store_ask_t *ask,
                             const core_store_answer_t *answer) {
  unsigned char want[CORE_SHA256_BYTES];
  answer_mac(secret, greeting, ask, answer, want);
  return core_store_answer_valid(answer) &&
         core_equal_in_constant_time(want, answer->mac, sizeof want);
}

void core_store_answer_unseal(const core_launch_secret_t *secret,
                              const core_store_greeting_t *greeting,
                              const core_store_ask_t *ask,
                              const core_store_answer_t *answer,
                              ncore_unique_id_t *id) {
  memcpy(id->internal, answer->sealed_id, sizeof id->internal);
  seal(secret, greeting, ask, id->internal, sizeof id->internal);
}

void core_store_text(const char *field, size_t cap, char *out, size_t out_cap) {
  size_t n = 0;
  for (size_t i = 0; i < cap && field[i] != '\0' && n + 1 < out_cap; i++)
    out[n++] = field[i] >= 0x20 && field[i] < 0x7f ? field[i] : '?';
  if (out_cap > 0) out[n] = '\0';
}
