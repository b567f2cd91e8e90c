/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  One source tree for PostgreSQL 15, 16, 17 and 18: the server APIs that
 *	  were renamed or changed shape between them, under one name each.
 *
 * The code is written against the newest spelling wherever one exists
 * (RelFileLocator, MyProcNumber, object_aclcheck-style checks); for older
 * majors this header maps that spelling onto what they have.  Where an API
 * changed its behaviour rather than its name, the caller keeps its own
 * version guard next to the code, with a comment saying what differs.
 *
 * Only macros and typedefs live here, so the header includes nothing but
 * what every major has: a file that uses a macro includes the header the
 * macro's expansion needs (e.g. common/scram-common.h for the SCRAM ones).
 * The wire layer includes it from frontend code too.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_COMPAT_H
#define TOPIC_COMPAT_H

#if PG_VERSION_NUM < 150000
#error "pg_topics needs PostgreSQL 15 or later"
#endif

/*
 * Physical relation identity: RelFileLocator became RelFileLocator in 16,
 * with the same three Oids under new field names.  Our WAL records hold it,
 * so the layout must not change: both are three Oids in the same order.
 */
#ifndef FRONTEND
#if PG_VERSION_NUM >= 160000
#include "storage/relfilelocator.h"
#define RelationGetLocator(rel)			((rel)->rd_locator)
#define RelFileLocatorSpcOid(loc)		((loc).spcOid)
#define RelFileLocatorDbOid(loc)		((loc).dbOid)
#define RelFileLocatorRelNumber(loc)	((loc).relNumber)
#else
#include "storage/relfilenode.h"
typedef RelFileNode RelFileLocator;
#define RelFileLocatorEquals(a, b)		RelFileNodeEquals(a, b)
#define RelationGetLocator(rel)			((rel)->rd_node)
#define RelFileLocatorSpcOid(loc)		((loc).spcNode)
#define RelFileLocatorDbOid(loc)		((loc).dbNode)
#define RelFileLocatorRelNumber(loc)	((loc).relNode)
#endif
#endif							/* FRONTEND */

/*
 * A new relfilenode for an existing relation (the log cleaner's swap): 16
 * renamed the allocator and the relcache's note that the relation has it.
 */
#ifndef FRONTEND
#if PG_VERSION_NUM >= 160000
#define GET_NEW_REL_FILE_NUMBER(spc, pg_class, persistence) \
	GetNewRelFileNumber(spc, pg_class, persistence)
#define RELATION_ASSUME_NEW_FILE(rel)	RelationAssumeNewRelfilelocator(rel)
#else
#define GET_NEW_REL_FILE_NUMBER(spc, pg_class, persistence) \
	GetNewRelFileNode(spc, pg_class, persistence)
#define RELATION_ASSUME_NEW_FILE(rel)	RelationAssumeNewRelfilenode(rel)
#endif
#endif							/* FRONTEND */

/*
 * This backend's index in ProcGlobal->allProcs: PGPROC lost its pgprocno
 * field in 17, which has the global MyProcNumber instead; its local
 * transaction id moved into vxid.  17 also renamed the shared transaction
 * counters and the tests of what kind of process this is.
 */
/*
 * Is a PGPROC a session's (a client's, or a background worker's that runs
 * SQL for one)?  18 keeps only "regular backend"; earlier majors flag
 * background workers.
 */
#if PG_VERSION_NUM >= 180000
#define PROC_IS_CLIENT_BACKEND(proc)	((proc)->isRegularBackend)
#else
#define PROC_IS_CLIENT_BACKEND(proc)	(!(proc)->isBackgroundWorker)
#endif

#if PG_VERSION_NUM < 170000
#define INVALID_PROC_NUMBER				InvalidBackendId
#define MyProcNumber					(MyProc->pgprocno)
#define MyProcLocalTransactionId		(MyProc->lxid)
#define TransamVariables				ShmemVariableCache
#define AmAutoVacuumWorkerProcess()		IsAutoVacuumWorkerProcess()
#define AmBackgroundWorkerProcess()		IsBackgroundWorker
#else
#define MyProcLocalTransactionId		(MyProc->vxid.lxid)
#endif

/*
 * Privilege and ownership checks on databases, schemas, functions and
 * relations became object_aclcheck() and object_ownercheck() in 16.
 */
#if PG_VERSION_NUM >= 160000 && !defined(FRONTEND)
#include "catalog/pg_class_d.h"
#include "catalog/pg_database_d.h"
#include "catalog/pg_namespace_d.h"
#include "catalog/pg_proc_d.h"
#define pg_class_ownercheck(oid, role) \
	object_ownercheck(RelationRelationId, (oid), (role))
#define pg_database_aclcheck(oid, role, mode) \
	object_aclcheck(DatabaseRelationId, (oid), (role), (mode))
#define pg_namespace_aclcheck(oid, role, mode) \
	object_aclcheck(NamespaceRelationId, (oid), (role), (mode))
#define pg_proc_aclcheck(oid, role, mode) \
	object_aclcheck(ProcedureRelationId, (oid), (role), (mode))
#endif

/*
 * SCRAM: from 16 the helpers take the hash and key length (SHA-256 is the
 * only one PostgreSQL stores).  SCRAM_H_SHA256 hashes a key of
 * SCRAM_SHA256_KEY_LEN bytes.
 */
#if PG_VERSION_NUM >= 160000
#define SCRAM_SHA256_KEY_LEN			SCRAM_SHA_256_KEY_LEN
#define SCRAM_SHA256_ITERATIONS			SCRAM_SHA_256_DEFAULT_ITERATIONS
#define SCRAM_H_SHA256(in, out, errstr) \
	scram_H((in), PG_SHA256, SCRAM_SHA_256_KEY_LEN, (out), (errstr))
#define SCRAM_BUILD_SECRET_SHA256(salt, saltlen, iterations, password, errstr) \
	scram_build_secret(PG_SHA256, SCRAM_SHA_256_KEY_LEN, \
					   (const void *) (salt), (saltlen), \
					   (iterations), (password), (errstr))
#define SCRAM_SALTED_PASSWORD_SHA256(password, salt, saltlen, iterations, out, errstr) \
	scram_SaltedPassword((password), PG_SHA256, SCRAM_SHA_256_KEY_LEN, \
						 (const void *) (salt), (saltlen), (iterations), \
						 (out), (errstr))
#define SCRAM_CLIENT_KEY_SHA256(salted, out, errstr) \
	scram_ClientKey((salted), PG_SHA256, SCRAM_SHA_256_KEY_LEN, (out), (errstr))
#define SCRAM_SERVER_KEY_SHA256(salted, out, errstr) \
	scram_ServerKey((salted), PG_SHA256, SCRAM_SHA_256_KEY_LEN, (out), (errstr))
#else
#define SCRAM_SHA256_KEY_LEN			SCRAM_KEY_LEN
#define SCRAM_SHA256_ITERATIONS			SCRAM_DEFAULT_ITERATIONS
#define SCRAM_H_SHA256(in, out, errstr) \
	scram_H((in), SCRAM_KEY_LEN, (out), (errstr))
#define SCRAM_BUILD_SECRET_SHA256(salt, saltlen, iterations, password, errstr) \
	scram_build_secret((salt), (saltlen), (iterations), (password), (errstr))
#define SCRAM_SALTED_PASSWORD_SHA256(password, salt, saltlen, iterations, out, errstr) \
	scram_SaltedPassword((password), (salt), (saltlen), (iterations), (out), \
						 (errstr))
#define SCRAM_CLIENT_KEY_SHA256(salted, out, errstr) \
	scram_ClientKey((salted), (out), (errstr))
#define SCRAM_SERVER_KEY_SHA256(salted, out, errstr) \
	scram_ServerKey((salted), (out), (errstr))
#endif

/*
 * 18: vacuum_delay_point says whether ANALYZE calls it; MAX_BACKENDS moved
 * to procnumber.h.
 */
#if PG_VERSION_NUM >= 180000
#define VACUUM_DELAY_POINT(is_analyze)	vacuum_delay_point(is_analyze)
#else
#define VACUUM_DELAY_POINT(is_analyze)	vacuum_delay_point()
#endif

/*
 * Free p, just allocated in CurrentMemoryContext -- unless that is a bump
 * context (17), which frees only as a whole: a tuplesort keeps the tuples
 * it copies in one, and frees them with it.
 */
#if PG_VERSION_NUM >= 170000
#define pfree_current(p) \
	do { \
		if (!IsA(CurrentMemoryContext, BumpContext)) \
			pfree(p); \
	} while (0)
#else
#define pfree_current(p)				pfree(p)
#endif

/*
 * A function that does not return: 18 says so before the declaration
 * (pg_noreturn, C11's _Noreturn), earlier majors after it.  Declarations
 * carry both; each major defines one and leaves the other empty.
 */
#if PG_VERSION_NUM >= 180000
#define pg_attribute_noreturn()
#else
#define pg_noreturn
#endif

#endif							/* TOPIC_COMPAT_H */
