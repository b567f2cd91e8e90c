"""Idempotent producers of different roles, by raw frames (test/t/039).

Run with Debian's /usr/bin/python3 (kafka-python builds the record batches):

    producer_roles.py BOOTSTRAP COMMAND [ARGS...]

Connections authenticate with SASL PLAIN as the role and password given.
Each command prints one JSON document on stdout; a failure is an exception.
"""
import json
import socket
import struct
import sys

import raw_wire
from clients import _batch, _raw_request, _read_response, _init_producer_id


class Conn:
    """A connection authenticated as user (SASL PLAIN)"""

    def __init__(self, bootstrap, user, password):
        host, port = bootstrap.rsplit(':', 1)
        self.sock = socket.create_connection((host, int(port)), timeout=60)
        raw_wire.sasl_plain(self.sock, user, password, 'producer-roles',
                            corr=101)
        self.corr = 102

    def next_corr(self):
        self.corr += 1
        return self.corr

    def init_producer_id(self):
        """InitProducerId: [error, producer id, epoch]"""
        return list(_init_producer_id(self.sock))

    def produce(self, topic, batches):
        """One Produce v3 (acks=all) of topic with batches, a list of
        (partition, record batch bytes): the [error, base offset] of each"""
        name = topic.encode()
        body = (struct.pack('>hhi', -1, -1, 30000) + struct.pack('>i', 1)
                + struct.pack('>h', len(name)) + name
                + struct.pack('>i', len(batches)))
        for partition, records in batches:
            body += struct.pack('>ii', partition, len(records)) + records
        corr = self.next_corr()
        payload = struct.pack('>hhih', 0, 3, corr, 3) + b'raw' + body
        self.sock.sendall(struct.pack('>i', len(payload)) + payload)
        rcorr, answer = _read_response(self.sock)
        assert rcorr == corr, (rcorr, corr)
        # topics[1]: name, partitions[n]: partition, error, base, log-append time
        off = 4 + 2 + len(name)
        n = struct.unpack('>i', answer[off:off + 4])[0]
        off += 4
        out = []
        for _ in range(n):
            part, err, base, ts = struct.unpack('>ihqq', answer[off:off + 22])
            out.append([err, base])
            off += 22
        return out

    def produce_one(self, topic, partition, pid, epoch, seq, value):
        """One batch of one record (key 'roles', value VALUE-SEQ):
        [error, base offset]"""
        return self.produce(topic, [(partition, _batch(pid, epoch, seq, 1, b'roles',
                                                       value.encode()))])[0]


def stolen_id(bootstrap, topic, owner, owner_pw, thief, thief_pw, other_topic):
    """owner gets a producer id and writes seq 0 to partition 0 of topic;
    thief sends batches with it: the next sequence number, a bumped epoch,
    seq 0 on partition 1 (which owner never wrote) and on other_topic, and a
    retry of owner's seq 0; then owner goes on with seq 1 and 2"""
    o = Conn(bootstrap, owner, owner_pw)
    t = Conn(bootstrap, thief, thief_pw)
    err, pid, epoch = o.init_producer_id()
    res = {'init': err, 'first': o.produce_one(topic, 0, pid, epoch, 0, 'owner')}
    res['thief_next'] = t.produce_one(topic, 0, pid, epoch, 1, 'thief')
    res['thief_fence'] = t.produce_one(topic, 0, pid, epoch + 1, 0, 'thief')
    res['thief_new_partition'] = t.produce_one(topic, 1, pid, epoch, 0, 'thief')
    res['thief_own_topic'] = t.produce_one(other_topic, 0, pid, epoch, 0, 'thief')
    res['thief_retry'] = t.produce_one(topic, 0, pid, epoch, 0, 'owner')
    res['owner_next'] = o.produce_one(topic, 0, pid, epoch, 1, 'owner')
    res['owner_after'] = o.produce_one(topic, 0, pid, epoch, 2, 'owner')
    res['owner_retry'] = o.produce_one(topic, 0, pid, epoch, 2, 'owner')
    # an id nobody was given, first used by thief at seq 0, is thief's
    made_up = pid ^ 0x5a5a5a5a
    res['made_up_thief'] = t.produce_one(other_topic, 0, made_up, 0, 0, 'made-up')
    res['made_up_owner'] = o.produce_one(topic, 0, made_up, 0, 1, 'made-up')
    return res


def flood(bootstrap, topic, owner, owner_pw, flooder, flooder_pw,
          flood_topic, partitions, ids):
    """owner writes a batch to topic; flooder sends ids batches at seq 0
    with made-up producer ids to flood_topic (of partitions partitions, one
    request a round); owner sends its batch again, then the next one, and
    then, with a new producer id, a batch that needs new entries"""
    o = Conn(bootstrap, owner, owner_pw)
    f = Conn(bootstrap, flooder, flooder_pw)
    partitions, ids = int(partitions), int(ids)
    err, pid, epoch = o.init_producer_id()
    res = {'init': err, 'first': o.produce_one(topic, 0, pid, epoch, 0, 'kept')}
    res['retry_before'] = o.produce_one(topic, 0, pid, epoch, 0, 'kept')
    errors = {}
    base = 1 << 40
    for start in range(0, ids, partitions):
        batches = [(p, _batch(base + start + p, 0, 0, 1, None, b'f'))
                   for p in range(min(partitions, ids - start))]
        for e, _ in f.produce(flood_topic, batches):
            errors[str(e)] = errors.get(str(e), 0) + 1
    res['flood_errors'] = errors
    res['retry_after'] = o.produce_one(topic, 0, pid, epoch, 0, 'kept')
    res['next'] = o.produce_one(topic, 0, pid, epoch, 1, 'kept')
    err, pid, epoch = o.init_producer_id()
    res['fresh'] = [err] + o.produce_one(topic, 0, pid, epoch, 0, 'fresh')
    return res


def issued_ids(bootstrap, user, password, count):
    """count producer ids given to one connection, in order"""
    c = Conn(bootstrap, user, password)
    return [c.init_producer_id() for _ in range(int(count))]


COMMANDS = {f.__name__: f for f in (stolen_id, flood, issued_ids)}

if __name__ == '__main__':
    bootstrap, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    print(json.dumps(COMMANDS[command](bootstrap, *args)))
