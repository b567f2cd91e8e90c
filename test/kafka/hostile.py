"""Hostile Kafka clients, for test/t/035_kafka_hostile.pl.

    hostile.py HOST:PORT COMMAND [ARGS...]

Each command prints one JSON document: what the server did.  Commands
given a listener's PID measure it from /proc: its resident memory (the
peak, sampled every 5 ms, over what it was before) and its CPU time.
Commands given a USER and PASSWORD authenticate with SASL PLAIN first.
"""
import gzip
import json
import os
import random
import resource
import socket
import struct
import sys
import threading
import time

import raw_wire
from raw_wire import Enc

CLIENT_ID = 'hostile'


# the client's own address (HOSTILE_FROM, a loopback one such as
# 127.0.0.2): the server's log lines are rate-limited per client address
SOURCE = (os.environ['HOSTILE_FROM'], 0) if os.environ.get('HOSTILE_FROM') else None


def connect(addr):
    host, port = addr.rsplit(':', 1)
    return socket.create_connection((host, int(port)), timeout=10,
                                    source_address=SOURCE)


def closed_within(sock, seconds):
    """Does the server close sock within seconds (reading nothing)?"""
    sock.settimeout(seconds)
    try:
        return sock.recv(1) == b''
    except socket.timeout:
        return False
    except ConnectionResetError:
        return True


def request(sock, key, version, corr, body):
    """One request: the answer after its correlation id (not checked)"""
    sock.sendall(frame(key, version, corr, body))
    n = struct.unpack('>i', read_exactly(sock, 4))[0]
    return read_exactly(sock, n)[4:]


def read_exactly(sock, n):
    """n bytes; a connection closed first is a ConnectionError (not
    raw_wire's EOFError): the callers here take any OSError as closed"""
    data = b''
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError('closed')
        data += chunk
    return data


def api_versions_ok(addr):
    s = connect(addr)
    body = request(s, 18, 0, 1, b'')
    s.close()
    return struct.unpack('>h', body[:2])[0] == 0


# a string of the versions before the flexible ones, from bytes
string = Enc().string


def frame(key, version, corr, body):
    """A request frame: size, header (client id 'hostile'), body"""
    return raw_wire.frame(key, version, corr, body, CLIENT_ID)


def login(addr, user, password):
    """A connection authenticated as user with SASL PLAIN"""
    s = connect(addr)
    body = request(s, 17, 1, 1, string(b'PLAIN'))
    if struct.unpack('>h', body[:2])[0] != 0:
        raise Exception('SaslHandshake refused PLAIN')
    token = b'\0' + user.encode() + b'\0' + password.encode()
    body = request(s, 36, 0, 2, struct.pack('>i', len(token)) + token)
    if struct.unpack('>h', body[:2])[0] != 0:
        raise Exception('SASL PLAIN failed for %s' % user)
    return s


def try_login(addr, user, password):
    """The authenticated connection, or None if refused"""
    try:
        return login(addr, user, password)
    except (OSError, Exception):
        return None


class Listener:
    """A listener process seen from /proc: memory and CPU"""

    def __init__(self, pid):
        self.pid = int(pid)
        self.peak = 0
        self.running = False

    def status(self, field):
        with open('/proc/%d/status' % self.pid) as f:
            for line in f:
                if line.startswith(field + ':'):
                    return int(line.split()[1])
        return 0

    def rss(self):
        return self.status('VmRSS')

    def sockets(self):
        """How many sockets the process has open"""
        n = 0
        for fd in os.listdir('/proc/%d/fd' % self.pid):
            try:
                if os.readlink('/proc/%d/fd/%s' % (self.pid, fd)).startswith('socket:'):
                    n += 1
            except OSError:
                pass
        return n

    def cpu_seconds(self):
        with open('/proc/%d/stat' % self.pid) as f:
            fields = f.read().rsplit(')', 1)[1].split()
        # utime and stime, fields 14 and 15 of stat(5)
        return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')

    def _sample(self):
        while self.running:
            try:
                self.peak = max(self.peak, self.rss())
            except OSError:
                return
            time.sleep(0.005)

    def start(self):
        """Start sampling: the peak from now on, over the RSS now"""
        self.before = self.rss()
        self.peak = self.before
        self.running = True
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()

    def stop(self):
        """Stop sampling; the peak's growth in kB"""
        self.running = False
        self.thread.join()
        return self.peak - self.before


def bystander(addr):
    """How long (s) a fresh client waits for its ApiVersions answer, or
    None if it is not served"""
    t0 = time.time()
    try:
        if api_versions_ok(addr):
            return round(time.time() - t0, 2)
    except OSError:
        pass
    return None


def closed_by_server(sock, seconds):
    """Does the server close sock within seconds?  (what it sends is read
    and dropped; a reset counts as closed)"""
    deadline = time.time() + seconds
    while time.time() < deadline:
        sock.settimeout(max(deadline - time.time(), 0.01))
        try:
            if sock.recv(1 << 20) == b'':
                return True
        except socket.timeout:
            return False
        except OSError:
            return True
    return False


def slowloris(addr, wait):
    """Half a frame, then nothing: closed after the timeout?"""
    s = connect(addr)
    s.sendall(b'\x00\x00')
    t0 = time.time()
    closed = closed_within(s, float(wait))
    return {'closed': closed, 'after': round(time.time() - t0, 1),
            'others_served': api_versions_ok(addr)}


def idle(addr, wait):
    """A connection that sends nothing: closed after the idle timeout?"""
    s = connect(addr)
    t0 = time.time()
    closed = closed_within(s, float(wait))
    return {'closed': closed, 'after': round(time.time() - t0, 1)}


def flood(addr, count, hold):
    """count connections at once: how many the server keeps, and whether a
    new client is served while they are held and after they go"""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    socks = []
    for _ in range(int(count)):
        try:
            socks.append(connect(addr))
        except OSError:
            break
    time.sleep(float(hold))
    kept = 0
    for s in socks:
        s.setblocking(False)
        try:
            kept += 0 if s.recv(1) == b'' else 1
        except BlockingIOError:
            kept += 1
        except OSError:
            pass
    served_during = False
    try:
        served_during = api_versions_ok(addr)
    except OSError:
        pass
    for s in socks:
        s.close()
    # the listeners see the closes at their own pace: a busy machine may
    # take a while, so a new client tries for up to 30 s
    served_after = False
    deadline = time.time() + 30
    while not served_after and time.time() < deadline:
        time.sleep(0.5)
        try:
            served_after = api_versions_ok(addr)
        except OSError:
            pass
    return {'opened': len(socks), 'kept': kept, 'served_during': served_during,
            'served_after': served_after}


def garbage(addr):
    """Frames that are not requests: each closes its connection"""
    cases = {
        'size_2gb': struct.pack('>i', 0x7fffffff),
        'size_negative': struct.pack('>i', -5),
        'random': os.urandom(4096),
        'short_header': struct.pack('>i', 2) + b'\x00\x12',
        'bad_array': struct.pack('>i', 14) + struct.pack('>hhih', 3, 1, 1, -1) + struct.pack('>i', 0x7fffffff),
    }
    out = {}
    for name, data in cases.items():
        s = connect(addr)
        try:
            s.sendall(data)
        except OSError:
            pass
        out[name] = closed_within(s, 5)
    out['others_served'] = api_versions_ok(addr)
    return out


def bomb(addr, topic, inflated_mb):
    """A gzip batch that inflates to inflated_mb MB: refused with
    MESSAGE_TOO_LARGE, not stored, and the server goes on"""
    from kafka.record.default_records import DefaultRecordBatchBuilder
    b = DefaultRecordBatchBuilder(2, 1, False, -1, -1, -1, 1 << 30)
    b.append(0, timestamp=None, key=None, value=b'\0' * (int(inflated_mb) << 20), headers=[])
    records = bytes(b.build())
    name = topic.encode()
    req = (struct.pack('>hhi', -1, -1, 30000) + struct.pack('>i', 1)
           + struct.pack('>h', len(name)) + name + struct.pack('>i', 1)
           + struct.pack('>i', 0) + struct.pack('>i', len(records)) + records)
    s = connect(addr)
    body = request(s, 0, 3, 9, req)
    off = 4 + 2 + len(name) + 4
    partition, error = struct.unpack('>ih', body[off:off + 6])
    s.close()
    return {'compressed_bytes': len(records), 'error': error,
            'others_served': api_versions_ok(addr)}


def truncated_produce(addr, topic):
    """A Produce whose first partition is whole and whose second is cut
    short: the connection is closed, and the first is not stored"""
    from kafka.record.default_records import DefaultRecordBatchBuilder
    b = DefaultRecordBatchBuilder(2, 0, False, -1, -1, -1, 1 << 20)
    b.append(0, timestamp=None, key=None, value=b'truncated', headers=[])
    records = bytes(b.build())
    name = topic.encode()
    req = (struct.pack('>hhi', -1, -1, 30000) + struct.pack('>i', 1)
           + struct.pack('>h', len(name)) + name + struct.pack('>i', 2)
           + struct.pack('>i', 0) + struct.pack('>i', len(records)) + records
           + struct.pack('>i', 0) + struct.pack('>i', 1000) + b'short')
    s = connect(addr)
    s.sendall(frame(0, 3, 10, req))
    return {'closed': closed_within(s, 5), 'others_served': api_versions_ok(addr)}


def preauth_big(addr, pid, nsock, mb):
    """nsock connections that never authenticate, each sending a frame of
    mb MB: each is closed at its frame's size (a frame before
    authentication is at most 512 kB), and the listener's memory does not
    grow by their frames"""
    lst = Listener(pid)
    lst.start()
    size = int(mb) << 20
    head = struct.pack('>i', size) + raw_wire.header(18, 0, 1, CLIENT_ID)
    socks = [connect(addr) for _ in range(int(nsock))]
    left = []
    for s in socks:
        s.sendall(head)
        s.setblocking(False)
        left.append(size - len(head) + 4)
    chunk = b'\0' * 65536
    gone = [False] * len(socks)
    idle_since = time.time()
    while time.time() - idle_since < 2:
        moved = False
        for i, s in enumerate(socks):
            if gone[i] or left[i] <= 0:
                continue
            try:
                n = s.send(chunk[:left[i]])
                left[i] -= n
                moved = True
            except BlockingIOError:
                pass
            except OSError:
                gone[i] = True
        if moved:
            idle_since = time.time()
        else:
            time.sleep(0.01)
    closed = 0
    for i, s in enumerate(socks):
        s.setblocking(True)
        if gone[i] or closed_by_server(s, 2):
            closed += 1
    growth = lst.stop()
    served = bystander(addr)
    for s in socks:
        s.close()
    return {'closed': closed, 'growth_kb': growth, 'bystander': served}


def describe_groups_frame(ngroups, name=b'g', corr=7):
    """DescribeGroups v0 naming group name ngroups times: an answer of 18
    bytes and the name's a group"""
    return frame(15, 0, corr, struct.pack('>i', ngroups) + string(name) * ngroups)


def connect_small(addr):
    """A connection whose receive buffer is small: answers stay on the
    server's side"""
    host, port = addr.rsplit(':', 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(10)
    if SOURCE:
        s.bind(SOURCE)
    s.connect((host, int(port)))
    return s


def hung_up(sock, seconds):
    """Does the server close sock within seconds?  Nothing is read: the
    answers stay unread"""
    import select
    p = select.poll()
    p.register(sock, select.POLLRDHUP | select.POLLHUP | select.POLLERR)
    return bool(p.poll(int(float(seconds) * 1000)))


def unread(addr, pid, user, password, nconn, ngroups, wait):
    """nconn connections of user each send a DescribeGroups naming a group
    of 100 bytes ngroups times, whose answer is about 118 * ngroups bytes,
    and never read it: the listener's memory stays within its budget, the
    connections are closed within wait s (answers nobody reads make a
    connection idle), and a bystander is served"""
    lst = Listener(pid)
    baseline = lst.sockets()
    lst.start()
    req = describe_groups_frame(int(ngroups), b'g' * 100)
    socks = []
    for _ in range(int(nconn)):
        s = connect_small(addr)
        body = request(s, 17, 1, 1, string(b'PLAIN'))
        token = b'\0' + user.encode() + b'\0' + password.encode()
        body = request(s, 36, 0, 2, struct.pack('>i', len(token)) + token)
        if struct.unpack('>h', body[:2])[0] != 0:
            raise Exception('SASL PLAIN failed for %s' % user)
        s.sendall(req)
        socks.append(s)
    t0 = time.time()
    served = bystander(addr)
    # the server's side: a socket closed with unsent data sends its FIN
    # only after the data, which is never read here
    while lst.sockets() > baseline and time.time() - t0 < float(wait):
        time.sleep(0.1)
    closed = len(socks) - max(lst.sockets() - baseline, 0)
    took = round(time.time() - t0, 1)
    time.sleep(0.5)
    growth = lst.stop()
    after = lst.rss() - lst.before
    for s in socks:
        s.close()
    return {'closed': closed, 'after': took, 'peak_kb': growth,
            'rss_after_kb': after, 'bystander': served}


def big_list(addr, pid, user, password, api, n):
    """One request of user naming n topics (Metadata, empty names), n groups
    (DescribeGroups, 'g') or partition 0 of topic t n times (Fetch): the
    listener's memory peak, how long it took, whether it was answered or
    the connection closed, and the longest a bystander waited meanwhile"""
    n = int(n)
    if api == 'metadata':
        req = frame(3, 1, 7, struct.pack('>i', n) + string(b'') * n)
    elif api == 'fetch':
        # partition 0 of topic t, n times, not waiting
        body = (struct.pack('>iiiib', -1, 0, 0, 1 << 20, 0) + struct.pack('>i', 1)
                + string(b't') + struct.pack('>i', n)
                + struct.pack('>iqi', 0, 0, 1) * n)
        req = frame(1, 4, 7, body)
    else:
        req = describe_groups_frame(n)
    s = login(addr, user, password)
    lst = Listener(pid)
    lst.start()
    waits = []
    done = threading.Event()

    def watch():
        while not done.is_set():
            waits.append(bystander(addr))
            time.sleep(0.1)
    t = threading.Thread(target=watch, daemon=True)
    t0 = time.time()
    t.start()
    s.sendall(req)
    answered = False
    s.settimeout(120)
    try:
        size = struct.unpack('>i', read_exactly(s, 4))[0]
        read_exactly(s, size)
        answered = True
    except (ConnectionError, OSError):
        pass
    took = round(time.time() - t0, 2)
    done.set()
    t.join()
    growth = lst.stop()
    s.close()
    slowest = None if any(w is None for w in waits) else max(waits or [0])
    return {'answered': answered, 'took': took, 'peak_kb': growth,
            'bystander_max': slowest}


def zigzag_varint(v):
    v = (v << 1) ^ (v >> 63)
    out = b''
    while v >= 0x80:
        out += bytes([(v & 0x7f) | 0x80])
        v >>= 7
    return out + bytes([v])


def tiny_records_batch(n):
    """A gzip RecordBatch of n records without key, value or headers"""
    from kafka.record.util import calc_crc32c
    records = b''.join(
        zigzag_varint(len(body)) + body for body in
        (b'\0\0' + zigzag_varint(i) + b'\x01\x01\x00' for i in range(n)))
    blob = gzip.compress(records, 1)
    after_crc = (struct.pack('>hiqqqhii', 1, n - 1, 0, 0, -1, -1, -1, n)
                 + blob)
    crc = calc_crc32c(after_crc)
    batch_len = 4 + 1 + 4 + len(after_crc)
    return (struct.pack('>qiib', 0, batch_len, -1, 2) + struct.pack('>I', crc)
            + after_crc), len(records)


def tiny_records(addr, pid, user, password, topic, n):
    """One Produce of a gzip batch of n tiny records (about 8 bytes each
    inflated, 64 decoded): its error code and the listener's memory peak"""
    batch, inflated = tiny_records_batch(int(n))
    name = topic.encode()
    body = (struct.pack('>hhi', -1, 1, 30000) + struct.pack('>i', 1)
            + string(name) + struct.pack('>i', 1)
            + struct.pack('>ii', 0, len(batch)) + batch)
    s = login(addr, user, password)
    lst = Listener(pid)
    lst.start()
    s.settimeout(120)
    answer = request(s, 0, 3, 9, body)
    growth = lst.stop()
    off = 4 + 2 + len(name) + 4
    partition, error = struct.unpack('>ih', answer[off:off + 6])
    s.close()
    return {'error': error, 'inflated_bytes': inflated, 'peak_kb': growth}


def preauth_slots(addr, user, password, hold, tries):
    """hold connections that never authenticate, then tries logins: how
    many logins get in, and how many of the held connections the server
    closed to make room"""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    idle = []
    for _ in range(int(hold)):
        try:
            idle.append(connect(addr))
        except OSError:
            break
    time.sleep(0.5)
    logins = 0
    for _ in range(int(tries)):
        s = try_login(addr, user, password)
        if s is not None:
            logins += 1
            s.close()
    closed = sum(1 for s in idle if hung_up(s, 0.01))
    for s in idle:
        s.close()
    return {'logins': logins, 'idle_closed': closed}


def logins(addr, user, password, n, hold):
    """n logins of user, each kept open: how many get in; the ones that did
    stay for hold s"""
    kept = []
    for _ in range(int(n)):
        s = try_login(addr, user, password)
        if s is not None:
            kept.append(s)
    # a refused login is answered, then closed: the kept ones must stay
    time.sleep(float(hold))
    alive = sum(1 for s in kept if not hung_up(s, 0.01))
    for s in kept:
        s.close()
    return {'ok': len(kept), 'alive': alive}


def stale_role(addr, user, password, n, go):
    """n connections log in as user; once the file go exists (the test
    takes LOGIN from the role meanwhile) each sends a Metadata: how many
    the server closed"""
    socks = [login(addr, user, password) for _ in range(int(n))]
    print('ready', flush=True)
    deadline = time.time() + 60
    while not os.path.exists(go) and time.time() < deadline:
        time.sleep(0.1)
    closed = 0
    for s in socks:
        s.sendall(frame(3, 1, 5, struct.pack('>i', -1)))
        if closed_within(s, 5):
            closed += 1
    return {'closed': closed}


def fetch_frame(topic, partitions, max_wait_ms, corr=11):
    """Fetch v4 of partitions of topic from offset 0, waiting max_wait_ms
    for 1 byte"""
    name = topic.encode()
    parts = b''.join(struct.pack('>iqi', p, 0, 1 << 20) for p in partitions)
    body = (struct.pack('>iiiib', -1, int(max_wait_ms), 1, 1 << 20, 0)
            + struct.pack('>i', 1) + string(name)
            + struct.pack('>i', len(partitions)) + parts)
    return frame(1, 4, corr, body)


def parked_idle(addr, user, password, topic, wait):
    """A Fetch waiting 10 minutes for records that never come, on an
    otherwise idle connection: closed within wait s?"""
    s = login(addr, user, password)
    s.sendall(fetch_frame(topic, [0], 600000))
    t0 = time.time()
    closed = hung_up(s, float(wait))
    return {'closed': closed, 'after': round(time.time() - t0, 1)}


def parked_cpu(addr, pid, user, password, topic, npartitions, wait_ms):
    """A Fetch over npartitions partitions of an empty topic waiting
    wait_ms: the listener's CPU use meanwhile (percent of one core)"""
    lst = Listener(pid)
    s = login(addr, user, password)
    cpu0 = lst.cpu_seconds()
    t0 = time.time()
    s.sendall(fetch_frame(topic, list(range(int(npartitions))), wait_ms))
    s.settimeout(60)
    size = struct.unpack('>i', read_exactly(s, 4))[0]
    read_exactly(s, size)
    waited = time.time() - t0
    cpu = lst.cpu_seconds() - cpu0
    s.close()
    return {'waited': round(waited, 2), 'cpu_percent': round(100 * cpu / waited, 1)}


def refusals(addr, n):
    """n connections, each sending a Metadata of version 99: how many the
    server closed"""
    closed = 0
    for i in range(int(n)):
        s = connect(addr)
        s.sendall(frame(3, 99, i, b''))
        if closed_within(s, 5):
            closed += 1
        s.close()
    return {'closed': closed}


def mutate(rng, data):
    """data with a few of a fuzzer's usual mutations"""
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        what = rng.random()
        if what < 0.3 and data:
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
        elif what < 0.6 and len(data) >= 4:
            i = rng.randrange(len(data) - 3)
            data[i:i + 4] = struct.pack('>i', rng.choice(
                [0, -1, -2, 1, 0x7fffffff, 0x7fff, 0x10000, rng.randrange(1 << 31)]))
        elif what < 0.7 and len(data) >= 2:
            i = rng.randrange(len(data) - 1)
            data[i:i + 2] = struct.pack('>h', rng.choice([0, -1, 0x7fff, 1]))
        elif what < 0.8 and data:
            del data[rng.randrange(len(data)):]
        elif what < 0.9:
            data += os.urandom(rng.randrange(1, 64))
        elif data:
            i = rng.randrange(len(data))
            data[i:i] = data[i:i + rng.randrange(1, 256)]
    return bytes(data)


def fuzz(addr, pid, seeds, count, seed, mode, user=None, password=None):
    """count mutated requests (from the seed corpus of test/fuzz/corpus/
    requests: API key, version, body) on connections that never
    authenticate (mode preauth) or that authenticate (user given) and never
    read their answers (mode unread), up to 20 a connection: the listener
    lives on (same pid), its memory peak, a bystander served after"""
    rng = random.Random(int(seed))
    corpus = []
    for name in sorted(os.listdir(seeds)):
        with open(os.path.join(seeds, name), 'rb') as f:
            corpus.append(f.read())
    lst = Listener(pid)
    lst.start()
    sent = 0
    connections = 0
    while sent < int(count):
        try:
            if mode == 'unread' and user:
                s = login(addr, user, password)
            else:
                s = connect(addr)
        except (OSError, Exception):
            time.sleep(0.1)
            continue
        connections += 1
        s.settimeout(0.2)
        for _ in range(rng.randint(1, 20)):
            raw = mutate(rng, rng.choice(corpus))
            if len(raw) < 4:
                raw += b'\0' * (4 - len(raw))
            payload = raw[:4] + struct.pack('>ih', sent, 7) + b'hostile' + raw[4:]
            size = len(payload)
            if rng.random() < 0.05:
                size = rng.choice([0, -1, size + 1, size - 1, 0x7fffffff])
            try:
                s.sendall(struct.pack('>i', size) + payload)
            except OSError:
                break
            sent += 1
            if mode == 'preauth':
                # what a client before authentication gets: read and dropped
                try:
                    s.recv(1 << 16)
                except OSError:
                    pass
        s.close()
    growth = lst.stop()
    alive = os.path.exists('/proc/%d' % lst.pid)
    # the listener sees the closes at its own pace (they may hold slots of
    # pg_topics.kafka_max_connections a moment longer): a client tries for
    # up to 10 s
    served = None
    deadline = time.time() + 10
    while served is None and time.time() < deadline:
        served = bystander(addr)
        if served is None:
            time.sleep(0.2)
    return {'frames': sent, 'connections': connections, 'peak_kb': growth,
            'alive': alive, 'bystander': served}


COMMANDS = {f.__name__: f for f in (slowloris, idle, flood, garbage, bomb,
                                    truncated_produce, preauth_big, unread,
                                    big_list, tiny_records, preauth_slots,
                                    logins, parked_idle, parked_cpu,
                                    refusals, stale_role, fuzz)}

if __name__ == '__main__':
    addr, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    print(json.dumps(COMMANDS[command](addr, *args)))
