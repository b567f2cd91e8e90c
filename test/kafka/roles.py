"""Kafka requests of several roles against one listener, for
test/t/038_kafka_roles.pl: what one role may and may not do to another's
topics, groups and members.

Run with Debian's /usr/bin/python3 (kafka-python 2.0.2 provides the
request classes and SCRAM):

    roles.py BOOTSTRAP COMMAND [ARGS...]

Each command prints one JSON document; the test compares it with what SQL
shows.  Connections authenticate with SCRAM-SHA-256 as the role named, with
the password "<role>pw".
"""
import io
import json
import socket
import struct
import subprocess
import sys

from kafka.coordinator.protocol import (ConsumerProtocolMemberAssignment,
                                        ConsumerProtocolMemberMetadata)
from kafka.protocol.admin import (DescribeGroupsRequest,
                                  SaslAuthenticateRequest,
                                  SaslHandShakeRequest)
from kafka.protocol.commit import OffsetCommitRequest, OffsetFetchRequest
from kafka.protocol.fetch import FetchRequest
from kafka.protocol.group import (HeartbeatRequest, JoinGroupRequest,
                                  LeaveGroupRequest, SyncGroupRequest)
from kafka.protocol.metadata import MetadataRequest
from kafka.scram import ScramClient


class Conn:
    """One connection, authenticated as role (auth_error: 0 on success)"""

    def __init__(self, bootstrap, role):
        host, port = bootstrap.rsplit(':', 1)
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        self.corr = 0
        hs = self.call(SaslHandShakeRequest[1]('SCRAM-SHA-256'))
        assert hs.error_code == 0, hs
        scram = ScramClient(role, role + 'pw', 'SCRAM-SHA-256')
        r = self.call(SaslAuthenticateRequest[1](scram.first_message().encode()))
        if r.error_code == 0:
            scram.process_server_first_message(r.sasl_auth_bytes.decode())
            r = self.call(SaslAuthenticateRequest[1](scram.final_message().encode()))
        self.auth_error = r.error_code

    def _read(self, n):
        data = b''
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise EOFError('the server closed the connection')
            data += chunk
        return data

    def call(self, req, version=None):
        """req, sent as version (its own by default) when the two versions
        have the same layout"""
        self.corr += 1
        client = b'roles-test'
        version = req.API_VERSION if version is None else version
        payload = struct.pack('>hhih', req.API_KEY, version, self.corr,
                              len(client)) + client + req.encode()
        self.sock.sendall(struct.pack('>i', len(payload)) + payload)
        body = self._read(struct.unpack('>i', self._read(4))[0])
        assert struct.unpack('>i', body[:4])[0] == self.corr
        return req.RESPONSE_TYPE.decode(io.BytesIO(body[4:]))


def subscription(topics):
    # kept in a variable: encode() holds its object only weakly
    metadata = ConsumerProtocolMemberMetadata(0, topics, b'')
    return metadata.encode()


def assignment(parts):
    assigned = ConsumerProtocolMemberAssignment(0, parts, b'')
    return assigned.encode()


def join(conn, group, topics, metadata=None):
    """JoinGroup v2 then, if it worked, the leader's SyncGroup: the member"""
    r = conn.call(JoinGroupRequest[2](
        group, 30000, 30000, '', 'consumer',
        [('range', metadata if metadata is not None else subscription(topics))]))
    if r.error_code != 0:
        return {'error': r.error_code}
    s = conn.call(SyncGroupRequest[1](group, r.generation_id, r.member_id,
                                      [(r.member_id, assignment([]))]))
    return {'error': s.error_code, 'member': r.member_id,
            'generation': r.generation_id}


def squat(bootstrap, topic):
    """A role that may not read topic joins groups "billing" (subscribing
    to it) and "anything" (with a subscription that cannot be read), and
    stays"""
    c = Conn(bootstrap, 'carol')
    return {'billing': join(c, 'billing', [topic]),
            'garbage': join(c, 'anything', [], b'\xff\xff not a subscription')}


def join_as(bootstrap, role, group, topic):
    """role joins group subscribing to topic; the error"""
    return join(Conn(bootstrap, role), group, [topic])['error']


def join_many(bootstrap, role, group, *topics):
    """role joins group subscribing to every topic named; the error"""
    return join(Conn(bootstrap, role), group, list(topics))['error']


def impersonate(bootstrap, topic, group, psql):
    """alice's consumer is a member of group; bob, who may read topic, finds
    its id in topics.group_members and acts as it"""
    a = Conn(bootstrap, 'alice')
    member = join(a, group, [topic])
    seen = subprocess.run(
        psql + ['-Atc', "SET ROLE bob; SELECT member "
                "FROM topics.group_members WHERE group_name = '%s'" % group],
        capture_output=True, text=True, check=True).stdout.split()
    b = Conn(bootstrap, 'bob')
    # generations count from 1: no secret
    mid, gen = seen[-1], member['generation']
    return {
        'bob_sees_member': mid == member['member'],
        'heartbeat': b.call(HeartbeatRequest[1](group, gen, mid)).error_code,
        'commit': b.call(OffsetCommitRequest[2](
            group, gen, mid, -1, [(topic, [(0, 1, 'bob')])])).topics[0][1][0][1],
        'leave': b.call(LeaveGroupRequest[1](group, mid)).error_code,
        'alice_heartbeat': a.call(HeartbeatRequest[1](group, gen, mid)).error_code,
    }


def commit_alone(bootstrap, role, group, topic, offset):
    """role commits a position for group outside any membership"""
    c = Conn(bootstrap, role)
    r = c.call(OffsetCommitRequest[2](group, -1, '', -1,
                                      [(topic, [(0, int(offset), 'm')])]))
    return r.topics[0][1][0][1]


def fetch_position(bootstrap, role, group, topic):
    """role's OffsetFetch of partition 0: [error, offset]"""
    c = Conn(bootstrap, role)
    r = c.call(OffsetFetchRequest[1](group, [(topic, [0])]))
    p = r.topics[0][1][0]
    return [p[3], p[1]]


def reads(bootstrap, role, topic):
    """What role sees of topic: listed in Metadata, and Fetch's error"""
    c = Conn(bootstrap, role)
    listed = [t[1] for t in c.call(MetadataRequest[1](None)).topics]
    f = c.call(FetchRequest[4](-1, 100, 1, 1 << 20, 0,
                               [(topic, [(0, 0, 1 << 20)])]))
    return {'listed': topic in listed, 'fetch': f.topics[0][1][0][1]}


def auth(bootstrap, role):
    """role's SCRAM exchange: the error (0: authenticated)"""
    try:
        return Conn(bootstrap, role).auth_error
    except EOFError:
        return 'closed'


def lose_login(bootstrap, role, psql):
    """role authenticates, then loses LOGIN: does its connection go on?"""
    c = Conn(bootstrap, role)
    before = len(c.call(MetadataRequest[1](None)).topics) >= 0
    subprocess.run(psql + ['-c', 'ALTER ROLE %s NOLOGIN' % role], check=True,
                   capture_output=True)
    try:
        c.call(MetadataRequest[1](None))
        after = 'answered'
    except (EOFError, ConnectionResetError):
        after = 'closed'
    return {'before': before, 'after': after}


def describe(bootstrap, role, group):
    """role's DescribeGroups of group: [error, state]"""
    g = Conn(bootstrap, role).call(DescribeGroupsRequest[1]([group])).groups[0]
    return [g[0], g[2]]


def fill_members(bootstrap, role, group, count):
    """role's JoinGroup v4 with no member id, count times: each leaves a
    member behind (MEMBER_ID_REQUIRED, 79) that never comes back; the
    errors"""
    c = Conn(bootstrap, role)
    # JoinGroup v4 has v2's layout
    return [c.call(JoinGroupRequest[2](group, 30000, 30000, '', 'consumer',
                                       [('range', subscription([]))]),
                   4).error_code
            for _ in range(int(count))]


def pending_then_join(bootstrap, role, group):
    """A JoinGroup v4 that is told MEMBER_ID_REQUIRED and does not come
    back, then another member's JoinGroup (1 s rebalance timeouts): the
    two errors"""
    first = Conn(bootstrap, role).call(
        JoinGroupRequest[2](group, 30000, 1000, '', 'consumer',
                            [('range', subscription([]))]), 4).error_code
    second = Conn(bootstrap, role).call(
        JoinGroupRequest[2](group, 30000, 1000, '', 'consumer',
                            [('range', subscription([]))])).error_code
    return [first, second]


def fat_join(bootstrap, role, group, nbytes):
    """role joins group with nbytes of subscription user data"""
    metadata = ConsumerProtocolMemberMetadata(0, [], b'x' * int(nbytes))
    return join(Conn(bootstrap, role), group, [], metadata.encode())['error']


def member_then(bootstrap, role, group, topic, psql):
    """role's consumer joins group reading topic and stays; then the SQL
    given as the last argument runs (as the superuser); then the member
    heartbeats and commits.  The errors, and what the SQL said."""
    *psql, sql = psql
    c = Conn(bootstrap, role)
    member = join(c, group, [topic])
    out = subprocess.run(psql + ['-Atc', sql], capture_output=True, text=True)
    # the last line of the answer (after SET's), or the error
    said = out.stdout.strip().split('\n')[-1] if out.returncode == 0 else \
        out.stderr.strip().split('\n')[0]
    result = {'join': member['error'], 'sql': said}
    if member['error'] == 0:
        result['heartbeat'] = c.call(HeartbeatRequest[1](
            group, member['generation'], member['member'])).error_code
        result['commit'] = c.call(OffsetCommitRequest[2](
            group, member['generation'], member['member'], -1,
            [(topic, [(0, 0, '')])])).topics[0][1][0][1]
    return result


def squat_then_owner(bootstrap, topic):
    """carol, who may not read topic, joins group "squat" first and stays;
    then alice (the topic's owner) joins it reading topic; then carol joins
    again.  The three errors, and the members' roles DescribeGroups shows
    alice."""
    c = Conn(bootstrap, 'carol')
    first = join(c, 'squat', [topic])['error']
    a = Conn(bootstrap, 'alice')
    owner = join(a, 'squat', [topic])['error']
    try:
        # joined, it would wait for the rebalance (30 s): not answered
        again_conn = Conn(bootstrap, 'carol')
        again_conn.sock.settimeout(5)
        again = join(again_conn, 'squat', [topic])['error']
    except TimeoutError:
        again = 'admitted'
    g = a.call(DescribeGroupsRequest[1](['squat'])).groups[0]
    return {'carol': first, 'alice': owner, 'carol_again': again,
            'members': len(g[5])}


COMMANDS = {f.__name__: f for f in (squat, join_as, join_many, impersonate, commit_alone,
                                    fetch_position, reads, auth, lose_login,
                                    describe, fill_members, fat_join,
                                    pending_then_join, member_then,
                                    squat_then_owner)}

if __name__ == '__main__':
    bootstrap, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    if command in ('impersonate', 'lose_login', 'member_then'):
        # the last arguments are the psql command line
        n = {'impersonate': 2, 'lose_login': 1, 'member_then': 3}[command]
        args = args[:n] + [args[n:]]
    print(json.dumps(COMMANDS[command](bootstrap, *args)))
