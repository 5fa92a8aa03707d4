/* core — what travels between a rank and ncore's store (launch_tcp.c,
 * launch_tcp_serve.c), and the proofs in it. Three fixed-size messages
 * per connection, integers little-endian:
 *
 *   store -> rank  greeting  the store's job label and name, a fresh nonce
 *   rank -> store  ask       rank, rank count, call number, the rank's job
 *                            label and name, its nonce, its claim token
 *                            (one per fetch), and its proof:
 *                            HMAC(key, "ask" | greeting | ask before proof)
 *   store -> rank  answer    verdict, rank count, call, a message, the id
 *                            sealed under both nonces, and the store's
 *                            proof: HMAC(key, "answer" | greeting | ask |
 *                            answer before mac)
 *
 * The key is the job's (launch_secret.h). So only a rank that holds it
 * gets an id, only a store that holds it can hand one out (a stranger on
 * the port cannot give a wrong id), nobody else reads the id on the wire,
 * and no message can be replayed into another connection (each proof
 * covers both nonces). The store speaks first, which tells ncore's store
 * from a torch TCPStore on the same port (that one never does). Every
 * size is fixed: a peer that sends anything else is cut off. */
#ifndef NCORE_CORE_LAUNCH_TCP_WIRE_H
#define NCORE_CORE_LAUNCH_TCP_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include <ncore.h>

#include "launch_secret.h"

#define CORE_STORE_MAGIC_BYTES 8
#define CORE_STORE_NONCE_BYTES 32
#define CORE_STORE_LABEL_BYTES 16
#define CORE_STORE_NAME_BYTES 64
#define CORE_STORE_MESSAGE_BYTES 240
#define CORE_STORE_CLAIM_BYTES 16

typedef struct __attribute__((packed)) core_store_greeting {
  char magic[CORE_STORE_MAGIC_BYTES];
  char label[CORE_STORE_LABEL_BYTES]; /* NUL-padded text */
  char name[CORE_STORE_NAME_BYTES];
  unsigned char nonce[CORE_STORE_NONCE_BYTES];
} core_store_greeting_t;

typedef struct __attribute__((packed)) core_store_ask {
  char magic[CORE_STORE_MAGIC_BYTES];
  uint32_t rank, nranks;
  uint64_t call;
  char label[CORE_STORE_LABEL_BYTES];
  char name[CORE_STORE_NAME_BYTES];
  unsigned char nonce[CORE_STORE_NONCE_BYTES];
  /* The same in every attempt of one fetch: a rank that lost its answer
   * and asks again is told apart from a second process claiming its rank. */
  unsigned char claim[CORE_STORE_CLAIM_BYTES];
  unsigned char proof[CORE_SHA256_BYTES];
} core_store_ask_t;

/* What the store answers. */
typedef enum core_store_verdict {
  CORE_STORE_GIVEN = 1,    /* the sealed id is this rank's (proven) */
  CORE_STORE_REFUSED = 2,  /* the job's exchange cannot give this rank an
                              id: the message says why (proven) */
  CORE_STORE_STRANGER = 3  /* the ask proved no secret of the store's job:
                              a message, no proof, no id */
} core_store_verdict_t;

typedef struct __attribute__((packed)) core_store_answer {
  char magic[CORE_STORE_MAGIC_BYTES];
  uint32_t verdict, nranks;
  uint64_t call;
  char message[CORE_STORE_MESSAGE_BYTES];
  unsigned char sealed_id[NCORE_UNIQUE_ID_BYTES];
  unsigned char mac[CORE_SHA256_BYTES];
} core_store_answer_t;

/* The store's greeting for one connection: its label, name, a new nonce.
 * Returns NCORE_OK or NCORE_ERR_SYSTEM (no random bytes). */
ncore_status_t core_store_greeting_make(const core_launch_secret_t *secret,
                                        core_store_greeting_t *out);
/* 1 when greeting starts as a store's does. */
int core_store_greeting_valid(const core_store_greeting_t *greeting);
/* 1 when the first n bytes received could begin a store's greeting (its
 * magic): what a client of some other protocol reads first from an ncore
 * store, which greets every connection unasked. */
int core_store_greeting_prefix_valid(const void *received, size_t n);

/* A rank's ask after greeting, proving secret; claim: the fetch's token.
 * Returns NCORE_OK or NCORE_ERR_SYSTEM (no random bytes). */
ncore_status_t core_store_ask_make(const core_launch_secret_t *secret,
                                   const core_store_greeting_t *greeting,
                                   int rank, int nranks, uint64_t call,
                                   const unsigned char claim[CORE_STORE_CLAIM_BYTES],
                                   core_store_ask_t *out);
/* 1 when the first n bytes received could begin an ask (its magic). */
int core_store_ask_prefix_valid(const void *received, size_t n);
/* 1 when ask proves secret (after the store's greeting). */
int core_store_ask_proven(const core_launch_secret_t *secret,
                          const core_store_greeting_t *greeting,
                          const core_store_ask_t *ask);

/* The store's answer to ask: verdict, its rank count and call, message
 * (may be ""), and for CORE_STORE_GIVEN the id, sealed. A STRANGER answer
 * carries neither proof nor id. */
void core_store_answer_make(const core_launch_secret_t *secret,
                            const core_store_greeting_t *greeting,
                            const core_store_ask_t *ask,
                            core_store_verdict_t verdict, int nranks,
                            uint64_t call, const char *message,
                            const ncore_unique_id_t *id,
                            core_store_answer_t *out);
/* 1 when answer starts as an answer does. */
int core_store_answer_valid(const core_store_answer_t *answer);
/* 1 when the store that sent answer proved secret. */
int core_store_answer_proven(const core_launch_secret_t *secret,
                             const core_store_greeting_t *greeting,
                             const core_store_ask_t *ask,
                             const core_store_answer_t *answer);
/* The id of a proven GIVEN answer. */
void core_store_answer_unseal(const core_launch_secret_t *secret,
                              const core_store_greeting_t *greeting,
                              const core_store_ask_t *ask,
                              const core_store_answer_t *answer,
                              ncore_unique_id_t *id);

/* A text field of a peer's message (cap bytes, maybe without its NUL) as
 * printable ASCII into out: every other byte becomes '?', so nothing a
 * stranger sends can forge lines in a log or a terminal. */
void core_store_text(const char *field, size_t cap, char *out, size_t out_cap);

#endif
