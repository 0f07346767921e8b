/* SPDX-License-Identifier: MIT */
/* pq.h - libpq, loaded when the first PostgreSQL backend opens.
 *
 * The PostgreSQL backends call libpq through a table filled by dlopen on
 * first use instead of linking it: libpq pulls in its TLS, Kerberos and LDAP
 * stacks (about 6 MB of resident memory at start-up), which a server that
 * never opens a postgres:// store should not pay for. Include this header
 * instead of <libpq-fe.h>; from then on every PQ* call below goes through
 * the table. The table is process-wide, written once (pthread_once) and
 * read-only afterwards: the one-time-initialization exception to "no global
 * state". Every PQ* call must come after a successful mcp__pq_require (the
 * pool's open does it), which is what makes the table non-NULL.
 */
#ifndef MCP_STORE_PQ_H
#define MCP_STORE_PQ_H

#include <libpq-fe.h>

#include "mcp/status.h"

/* Every libpq function the backends use (more may be added: one line here
 * and one #define below). */
#define MCP__PQ_FUNCTIONS(X)                                                   \
  X(PQclear)                                                                   \
  X(PQcmdStatus)                                                               \
  X(PQcmdTuples)                                                               \
  X(PQconnectPoll)                                                             \
  X(PQconnectStart)                                                            \
  X(PQconnectdb)                                                               \
  X(PQconsumeInput)                                                            \
  X(PQenterPipelineMode)                                                       \
  X(PQerrorMessage)                                                            \
  X(PQexec)                                                                    \
  X(PQexecParams)                                                              \
  X(PQexecPrepared)                                                            \
  X(PQexitPipelineMode)                                                        \
  X(PQfinish)                                                                  \
  X(PQflush)                                                                   \
  X(PQfreemem)                                                                 \
  X(PQgetResult)                                                               \
  X(PQgetisnull)                                                               \
  X(PQgetlength)                                                               \
  X(PQgetvalue)                                                                \
  X(PQisBusy)                                                                  \
  X(PQnfields)                                                                 \
  X(PQnotifies)                                                                \
  X(PQntuples)                                                                 \
  X(PQpipelineSync)                                                            \
  X(PQprepare)                                                                 \
  X(PQresultErrorField)                                                        \
  X(PQresultErrorMessage)                                                      \
  X(PQresultStatus)                                                            \
  X(PQsendPrepare)                                                             \
  X(PQsendQuery)                                                               \
  X(PQsendQueryParams)                                                         \
  X(PQsendQueryPrepared)                                                       \
  X(PQsetNoticeProcessor)                                                      \
  X(PQsetNoticeReceiver)                                                       \
  X(PQsetnonblocking)                                                          \
  X(PQsocket)                                                                  \
  X(PQstatus)                                                                  \
  X(PQtransactionStatus)

typedef struct mcp__pq_api {
#define MCP__PQ_MEMBER(name) __typeof__(&name) name;
  MCP__PQ_FUNCTIONS(MCP__PQ_MEMBER)
#undef MCP__PQ_MEMBER
} mcp__pq_api;

/* The loaded table, or NULL when libpq cannot be loaded. */
const mcp__pq_api *mcp__pq(void);
/* MCP_OK when libpq is loaded (loading it on the first call); else
 * MCP_ERR_UNSUPPORTED with why in err ("install libpq5"). */
mcp_status mcp__pq_require(mcp_error_t *err);

#ifndef MCP__PQ_NO_REDIRECT
#define PQclear              (mcp__pq()->PQclear)
#define PQcmdStatus          (mcp__pq()->PQcmdStatus)
#define PQcmdTuples          (mcp__pq()->PQcmdTuples)
#define PQconnectPoll        (mcp__pq()->PQconnectPoll)
#define PQconnectStart       (mcp__pq()->PQconnectStart)
#define PQconnectdb          (mcp__pq()->PQconnectdb)
#define PQconsumeInput       (mcp__pq()->PQconsumeInput)
#define PQenterPipelineMode  (mcp__pq()->PQenterPipelineMode)
#define PQerrorMessage       (mcp__pq()->PQerrorMessage)
#define PQexec               (mcp__pq()->PQexec)
#define PQexecParams         (mcp__pq()->PQexecParams)
#define PQexecPrepared       (mcp__pq()->PQexecPrepared)
#define PQexitPipelineMode   (mcp__pq()->PQexitPipelineMode)
#define PQfinish             (mcp__pq()->PQfinish)
#define PQflush              (mcp__pq()->PQflush)
#define PQfreemem            (mcp__pq()->PQfreemem)
#define PQgetResult          (mcp__pq()->PQgetResult)
#define PQgetisnull          (mcp__pq()->PQgetisnull)
#define PQgetlength          (mcp__pq()->PQgetlength)
#define PQgetvalue           (mcp__pq()->PQgetvalue)
#define PQisBusy             (mcp__pq()->PQisBusy)
#define PQnfields            (mcp__pq()->PQnfields)
#define PQnotifies           (mcp__pq()->PQnotifies)
#define PQntuples            (mcp__pq()->PQntuples)
#define PQpipelineSync       (mcp__pq()->PQpipelineSync)
#define PQprepare            (mcp__pq()->PQprepare)
#define PQresultErrorField   (mcp__pq()->PQresultErrorField)
#define PQresultErrorMessage (mcp__pq()->PQresultErrorMessage)
#define PQresultStatus       (mcp__pq()->PQresultStatus)
#define PQsendPrepare        (mcp__pq()->PQsendPrepare)
#define PQsendQuery          (mcp__pq()->PQsendQuery)
#define PQsendQueryParams    (mcp__pq()->PQsendQueryParams)
#define PQsendQueryPrepared  (mcp__pq()->PQsendQueryPrepared)
#define PQsetNoticeProcessor (mcp__pq()->PQsetNoticeProcessor)
#define PQsetNoticeReceiver  (mcp__pq()->PQsetNoticeReceiver)
#define PQsetnonblocking     (mcp__pq()->PQsetnonblocking)
#define PQsocket             (mcp__pq()->PQsocket)
#define PQstatus             (mcp__pq()->PQstatus)
#define PQtransactionStatus  (mcp__pq()->PQtransactionStatus)
#endif

#endif
