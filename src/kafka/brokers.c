/*-------------------------------------------------------------------------
 *
 * brokers.c
 *	  The brokers Kafka clients see: every node of the formation, each with
 *	  a node id of its own.
 *
 * A broker is a node's Kafka listener at the address clients reach it,
 * and its node id is derived from that address (a hash of host:port, 0 to
 * 2^31 - 1): the same on every node and for every client, different for
 * different addresses, and lasting as long as the node listens there.
 * The id stays with the node, not with the primary's role: clients keep
 * brokers by node id, and an id that moved from one address to another
 * would rename that broker and make them forget the old address, the one
 * a later failover brings the primary back to (librdkafka 2.0.2 then never
 * found it again).  Which node is the primary shows otherwise: only a
 * writable primary leads the partitions, coordinates the groups and is the
 * controller (metadata.c, fence.c).  Derived rather than set, so that no
 * per-node setting must be kept out of what base backups copy.
 *
 * pg_topics.kafka_brokers names every node of the formation, the same list
 * on every node.  Metadata lists them all, standbys included (a standby
 * does not listen: clients find its port closed until it is promoted), so
 * that a client that has learned the brokers knows where to look when the
 * primary is gone: kafka-python keeps only the brokers of the last
 * Metadata, forgetting its bootstrap servers, and librdkafka does too from
 * 2.9 on.  This node is the entry at an address and port it listens on,
 * resolved when the listener starts and at each reload.  Without the
 * setting, or if the setting does not name this node, this node is listed
 * at the address it advertises: the first of
 * pg_topics.kafka_listen_addresses, or the address the client reached when
 * that is every address.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "access/xlog.h"
#include "utils/memutils.h"
#include "utils/varlena.h"

#include "pg_topics/base/settings.h"
#include "pg_topics/kafka/brokers.h"

/* the listener's sockets (they say where this node is reached) */
static const int *listen_fds = NULL;
static int	nlisten = 0;

/* pg_topics.kafka_brokers as last read: the setting, its brokers, this node */
static MemoryContext brokers_context = NULL;
static char *listed_setting = NULL;
static KafkaBroker *listed = NULL;
static int	nlisted = 0;
static int	self_listed = -1;

/* The node id of the broker at host:port (FNV-1a of "host:port") */
static int32
node_id_of(const char *host, int32 port)
{
	char		portstr[16];
	uint32		h = 2166136261u;

	snprintf(portstr, sizeof(portstr), ":%d", port);
	for (const char *c = host; *c != '\0'; c++)
	{
		h ^= (uint8) pg_tolower((unsigned char) *c);
		h *= 16777619u;
	}
	for (const char *c = portstr; *c != '\0'; c++)
	{
		h ^= (uint8) *c;
		h *= 16777619u;
	}
	return (int32) (h & 0x7fffffff);
}

/* Is addr an address of this machine: one a socket can be bound to? */
static bool
address_is_local(const struct sockaddr *addr)
{
	struct sockaddr_storage any_port;
	socklen_t	len = addr->sa_family == AF_INET ? sizeof(struct sockaddr_in) :
		sizeof(struct sockaddr_in6);
	int			fd = socket(addr->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool		local;

	if (fd < 0)
		return false;
	memcpy(&any_port, addr, len);
	if (addr->sa_family == AF_INET)
		((struct sockaddr_in *) &any_port)->sin_port = 0;
	else
		((struct sockaddr_in6 *) &any_port)->sin6_port = 0;
	local = bind(fd, (struct sockaddr *) &any_port, len) == 0;
	close(fd);
	return local;
}

/*
 * Do this node's Kafka clients reach it at addr (an IPv4 or IPv6 address
 * and port)?  A listen socket bound to every address is reached at any
 * address of this machine.
 */
static bool
listens_at(const struct sockaddr *addr)
{
	for (int i = 0; i < nlisten; i++)
	{
		struct sockaddr_storage bound;
		socklen_t	len = sizeof(bound);

		if (getsockname(listen_fds[i], (struct sockaddr *) &bound, &len) < 0 ||
			bound.ss_family != addr->sa_family)
			continue;
		if (addr->sa_family == AF_INET)
		{
			const struct sockaddr_in *a = (const struct sockaddr_in *) addr;
			const struct sockaddr_in *b = (const struct sockaddr_in *) &bound;

			if (a->sin_port == b->sin_port &&
				(b->sin_addr.s_addr == htonl(INADDR_ANY) ?
				 address_is_local(addr) :
				 a->sin_addr.s_addr == b->sin_addr.s_addr))
				return true;
		}
		else if (addr->sa_family == AF_INET6)
		{
			const struct sockaddr_in6 *a = (const struct sockaddr_in6 *) addr;
			const struct sockaddr_in6 *b = (const struct sockaddr_in6 *) &bound;

			if (a->sin6_port == b->sin6_port &&
				(IN6_IS_ADDR_UNSPECIFIED(&b->sin6_addr) ?
				 address_is_local(addr) :
				 memcmp(&a->sin6_addr, &b->sin6_addr, sizeof(a->sin6_addr)) == 0))
				return true;
		}
	}
	return false;
}

/* Is host:port where this node's listener is reached? */
static bool
is_this_node(const char *host, int32 port)
{
	struct addrinfo hints;
	struct addrinfo *res;
	char		portstr[16];
	bool		found = false;

	if (port != pg_topics_kafka_port)
		return false;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(portstr, sizeof(portstr), "%d", port);
	if (getaddrinfo(host, portstr, &hints, &res) != 0)
		return false;
	for (struct addrinfo *ai = res; ai != NULL && !found; ai = ai->ai_next)
		if (ai->ai_family == AF_INET || ai->ai_family == AF_INET6)
			found = listens_at(ai->ai_addr);
	freeaddrinfo(res);
	return found;
}

/*
 * Read pg_topics.kafka_brokers if it changed (or reload says to resolve its
 * names again): its brokers, without repeats, and which is this node
 */
static void
load_brokers(bool reload)
{
	MemoryContext oldcontext;
	char	   *raw;
	List	   *entries;
	ListCell   *lc;

	if (!reload && listed_setting != NULL &&
		strcmp(listed_setting, pg_topics_kafka_brokers) == 0)
		return;
	if (brokers_context == NULL)
		brokers_context = AllocSetContextCreate(TopMemoryContext,
												"Kafka brokers",
												ALLOCSET_SMALL_SIZES);
	MemoryContextReset(brokers_context);
	oldcontext = MemoryContextSwitchTo(brokers_context);
	listed_setting = pstrdup(pg_topics_kafka_brokers);
	nlisted = 0;
	self_listed = -1;
	raw = pstrdup(listed_setting);
	/* checked when it was set (settings.c) */
	if (!SplitGUCList(raw, ',', &entries))
		entries = NIL;
	listed = palloc(sizeof(KafkaBroker) * Max(list_length(entries), 1));
	foreach(lc, entries)
	{
		char	   *host;
		int			port;
		int32		id;
		bool		repeated = false;

		if (!topic_kafka_broker_parse((char *) lfirst(lc), &host, &port))
			continue;
		id = node_id_of(host, port);
		for (int i = 0; i < nlisted; i++)
			repeated |= listed[i].node_id == id;
		if (repeated)
			continue;
		listed[nlisted].node_id = id;
		listed[nlisted].host = host;
		listed[nlisted].port = port;
		if (self_listed < 0 && is_this_node(host, port))
			self_listed = nlisted;
		nlisted++;
	}
	MemoryContextSwitchTo(oldcontext);
}

/*
 * The host this node advertises when pg_topics.kafka_brokers does not name
 * it: the first of pg_topics.kafka_listen_addresses, unless that is every
 * address (*), then the address this client reached (palloc'd)
 */
static char *
advertised_host(KafkaConn *conn)
{
	char	   *raw = pstrdup(pg_topics_kafka_listen_addresses);
	List	   *hosts;
	struct sockaddr_storage addr;
	socklen_t	len = sizeof(addr);
	char		host[NI_MAXHOST];

	if (SplitGUCList(raw, ',', &hosts) && hosts != NIL &&
		strcmp((char *) linitial(hosts), "*") != 0 &&
		strcmp((char *) linitial(hosts), "0.0.0.0") != 0 &&
		strcmp((char *) linitial(hosts), "::") != 0)
		return pstrdup((char *) linitial(hosts));
	if (getsockname(conn->fd, (struct sockaddr *) &addr, &len) == 0 &&
		getnameinfo((struct sockaddr *) &addr, len, host, sizeof(host), NULL, 0,
					NI_NUMERICHOST) == 0)
		return pstrdup(host);
	return pstrdup("localhost");
}

/* This node as a broker, as conn's client sees it */
KafkaBroker
kafka_self_broker(KafkaConn *conn)
{
	KafkaBroker self;

	load_brokers(false);
	if (self_listed >= 0)
		return listed[self_listed];
	self.host = advertised_host(conn);
	self.port = pg_topics_kafka_port;
	self.node_id = node_id_of(self.host, self.port);
	return self;
}

/*
 * The brokers conn's client sees (palloc'd in *brokers): every node of
 * pg_topics.kafka_brokers, and this node, which is (*self)th of them
 */
int
kafka_brokers(KafkaConn *conn, KafkaBroker **brokers, int *self)
{
	KafkaBroker this_node = kafka_self_broker(conn);
	int			n = nlisted;

	*brokers = palloc(sizeof(KafkaBroker) * (nlisted + 1));
	memcpy(*brokers, listed, sizeof(KafkaBroker) * nlisted);
	*self = self_listed;
	if (self_listed < 0)
	{
		(*brokers)[n] = this_node;
		*self = n++;
	}
	return n;
}

/* The listener process starts: its sockets are fds[0 .. n - 1] */
void
kafka_brokers_init(const int *fds, int n)
{
	listen_fds = fds;
	nlisten = n;
}

/* The listener's settings were read again: resolve the brokers again */
void
kafka_brokers_reload(void)
{
	load_brokers(true);
}

/*
 * The cluster id Kafka clients are told: the database system's identifier,
 * the same on a primary and its physical standbys, so that a client sees
 * one cluster across a failover
 */
const char *
kafka_cluster_id(void)
{
	static char id[64];

	if (id[0] == '\0')
		snprintf(id, sizeof(id), "pg_topics-" UINT64_FORMAT,
				 GetSystemIdentifier());
	return id;
}
