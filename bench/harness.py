#!/usr/bin/env python3
"""pg_topics benchmark harness (issue 7): every workload for every peer in ONE throwaway
PostgreSQL 15 instance. Usage: bench/run [--smoke|--quick|--full]. See bench/README.md.

Exit status: 0 = harness ran; 1 = a peer's script failed (the harness or a peer's scripts
have rotted); 2 = the harness itself broke (server would not start, ...). Numbers never
decide the exit status.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import types

from common.stats import percentile

BENCH = os.path.dirname(os.path.abspath(__file__))
PEERS_DIR = os.path.join(BENCH, "peers")
PGBIN = os.environ.get("PGBIN", "/usr/lib/postgresql/15/bin")
PORT = int(os.environ.get("BENCH_PORT", "55432"))
SERVER_USER = os.environ.get("BENCH_OS_USER", "pgbench")   # only used when running as root
# pg_topics' Kafka listener (workload 10), loopback only, next to the server's port
KAFKA_PORT = int(os.environ.get("BENCH_KAFKA_PORT", str(PORT + 1000)))
KCAT = os.environ.get("BENCH_KCAT", "kcat")
# Debian's python3, where python3-confluent-kafka is (the latency part of workload 10)
KAFKA_PYTHON = os.environ.get("BENCH_KAFKA_PYTHON", "/usr/bin/python3")
DB = "bench"
DBUSER = "bench"
NCPU = os.cpu_count() or 1

# Fixed server settings (the report lists the values the server actually ran with).
SETTINGS = {
    "listen_addresses": "'127.0.0.1'",       # loopback only; clients use the Unix socket
    "max_connections": "20",
    "shared_buffers": "'1GB'",
    "fsync": "on",
    "synchronous_commit": "on",              # workload 1 also runs with it off (per session)
    "full_page_writes": "on",
    "wal_level": "replica",
    "wal_compression": "off",
    "max_wal_size": "'16GB'",                # no checkpoint inside a run; the harness
    "min_wal_size": "'1GB'",                 #   checkpoints between runs instead
    "checkpoint_timeout": "'1h'",
    "autovacuum": "off",                     # no background noise; harness runs VACUUM ANALYZE
    "jit": "off",                            #   after each backlog load, untimed
    "max_locks_per_transaction": "256",
    "logging_collector": "off",
    "log_min_messages": "warning",
}
# pg_topics' Kafka listener, set only when workload 10 runs (so that every other workload runs
# on the same server as without it); ignored when pg_topics is not preloaded. Its workers
# connect to the benchmark's database, retrying once a second until the harness creates it.
KAFKA_SETTINGS = {
    "pg_topics.kafka_port": str(KAFKA_PORT),
    "pg_topics.kafka_listen_addresses": "'127.0.0.1'",
    "pg_topics.kafka_database": f"'{DB}'",
}
REPORT_SETTINGS = ["server_version", "shared_buffers", "fsync", "synchronous_commit",
                   "full_page_writes", "wal_level", "wal_buffers", "wal_compression",
                   "max_wal_size", "checkpoint_timeout", "autovacuum", "jit", "work_mem",
                   "huge_pages", "shared_preload_libraries"]

# Sizes per mode. produce_secs=None means "use produce_txns transactions per client".
MODES = {
    "smoke": dict(runs=1, produce_secs=None, produce_txns_1=100, produce_txns_batch=2,
                  batch_w2=100, batch_w3=1000, backlog=20000, payload_rows_max=5000,
                  payload_bytes_max=20_000_000,
                  w4_backlogs=[0, 20_000], w4_txns=20, w5_records=20_000, w5_txns=50,
                  w7_secs=2, w8_bytes=4_000_000,
                  # w9 in smoke: each new script once (1 client, first pass; read_* and the
                  # consumers w9_consume_* point at run in w3)
                  w9_batch=200, w9_copy_calls=1, w9_backlog=400, w9_clients=[1],
                  w9_second_pass=False, w9_reads=["w9_fetch_cte_client", "w9_fetch_cte_server"],
                  w10_records=10_000, w10_batch=1000, w10_latency_secs=1,
                  w11_keys=2000, w11_secs=1, w12_records=2000, w12_max_txns=5, w12_diag_txns=2,
                  w12_diag_points=[1], w12_ref_txns=10,
                  # w13 in smoke: each script once (1 client, the readers' first pass)
                  w13_rows=1000, w13_batch=200, w13_backlog=1000, w13_txns=2,
                  w13_scan_reps=1, w13_clients=[1], w13_reads=["fetch", "poll", "scan"]),
    "quick": dict(runs=1, produce_secs=2, batch_w2=1000, batch_w3=1000, backlog=200_000,
                  payload_rows_max=100_000, payload_bytes_max=200_000_000,
                  w4_backlogs=[0, 500_000, 2_000_000], w5_records=1_000_000, w7_secs=5,
                  w8_bytes=100_000_000, w9_batch=1000, w9_copy_calls=300, w9_backlog=200_000,
                  w10_records=1_000_000, w10_batch=10_000, w10_latency_secs=5,
                  w11_keys=100_000, w11_secs=2, w12_records=100_000, w12_max_txns=200,
                  w12_diag_txns=20, w12_ref_txns=100, w13_rows=20_000, w13_batch=1000,
                  w13_backlog=50_000, w13_scan_reps=3),
    "full": dict(runs=3, produce_secs=5, batch_w2=1000, batch_w3=1000, backlog=1_000_000,
                 payload_rows_max=100_000, payload_bytes_max=200_000_000,
                 w4_backlogs=[0, 5_000_000, 50_000_000], w5_records=10_000_000, w7_secs=20,
                 w8_bytes=1_000_000_000, w9_batch=1000, w9_copy_calls=1000,
                 w9_backlog=1_000_000, w10_records=1_000_000, w10_batch=10_000,
                 w10_latency_secs=20, w11_keys=100_000, w11_secs=5, w12_records=500_000,
                 w12_max_txns=500, w12_diag_txns=50, w12_ref_txns=200, w13_rows=50_000,
                 w13_batch=1000, w13_backlog=200_000, w13_scan_reps=5),
}
W1_CLIENTS = 4
W2_CLIENTS = [1, 2]
W2_SIZES = [100, 10, 1000, 10_000, 100_000]   # 100 B first: its payload is shared with W1/W3
DEFAULT_SIZE = 100

LOAD_BATCH = 10_000        # records per transaction of the W4/W5 bulk backlog load
W4_BATCH = 1000            # records per produce_batch call in workload 4
W5_BATCH = 1000            # records per fetch in workload 5
W11_VERSIONS = 20          # records of each key in workload 11's log (the issue's 100k x 20)
W5_RANGE_FRACTION = 0.001  # workload 5's time range covers 0.1% of the records
W5_REPEAT = 3              # EXPLAIN ANALYZE executions per time-range/full-scan point (median)
W7_RATE = 1000             # records/s, 1 per transaction, 1 producer client
W7_BATCH = 1000            # max_records of the consumer's fetch
W7_WAIT_S = 1.0            # the consumer's long-poll wait (pg_topics)
# Workload 3's consumers: a consumer whose position the database keeps (a cursor row, a
# consumer group, PgQ's subscription; consume_remaining.sql checks that it drained the
# backlog), and a reader that keeps its position itself in pgbench variables (read_*.sql
# fail the run when a call returns fewer records than asked).
W3_SCRIPTS = [("consume_server", "server side (count(*))"),
              ("consume_client", "to the client"),
              ("read_server", "reader keeps its position: server side (count(*))"),
              ("read_client", "reader keeps its position: to the client")]
# The reader again, timing only its second pass over the backlog in one connection: on a
# virtual machine the first touch of each 4 kB page of shared memory by a new backend costs
# microseconds (bench/README.md), which a consumer that stays connected pays only once.
W3_SECOND_PASS = {"read_server": "reader, second pass in its connection: server side (count(*))",
                  "read_client": "reader, second pass in its connection: to the client"}
# Workload 9 (issue 19): every produce path next to produce_batch, every read path next to
# the consumer whose position the database keeps (pg_topics: topics.poll), in one run.
# Produce: (name, label, how). "pgbench": the peer's <script> under pgbench -M prepared;
# "values": the peer's w9_insert_values.sql prints a pgbench script (1000 literal rows), run
# with -M simple so that every call is sent, parsed and planned as an ORM/ETL client's is;
# "copy": the peer's w9_copy.sql (a psql \copy line), repeated once per call by psql.
W9_PRODUCE = [("produce_batch", "produce_batch.sql", "pgbench"),
              ("insert_select", "INSERT … SELECT unnest(arrays)", "pgbench"),
              ("insert_values", "INSERT … VALUES (literal rows)", "values"),
              ("copy", "COPY … FROM STDIN (psql \\copy)", "copy")]
W9_PRODUCE_SCRIPT = {"produce_batch": "produce_batch.sql",
                     "insert_select": "w9_insert_select.sql",
                     "insert_values": "w9_insert_values.sql", "copy": "w9_copy.sql"}
# Reads: (script, label, second pass?). w9_consume_* are the peer's consumer whose position
# the database keeps (pg_topics: topics.poll of pg_topics_poll; heap: heap_consume; null:
# null_fetch), reset and checked by w9_consume_reset.sql / w9_consume_remaining.sql.
W9_READS = [("w9_fetch_cte_client", "fetch in a CTE, position in a table: to the client", True),
            ("w9_fetch_cte_server", "fetch in a CTE, position in a table: count only", True),
            ("read_client", "reader keeps its position (read_client.sql): to the client", True),
            ("read_server", "reader keeps its position (read_server.sql): count only", True),
            ("w9_consume_client",
             "consume, position kept by the database (topics.poll / heap_consume): to the client",
             False),
            ("w9_consume_server",
             "consume, position kept by the database (topics.poll / heap_consume): count only",
             False)]
# Workload 10: the Kafka protocol (pg_topics' listener) against the SQL paths, same records,
# same run. Producer: kcat -P with acks=all and librdkafka's own batching (its defaults:
# linger.ms 5, batch.num.messages 10000, batch.size 1000000 bytes); consumer: kcat -C from the
# beginning, exiting at the last record (-c records; librdkafka 2.0.2 signals the end of a
# partition (-e) only after an empty fetch there, which the listener parks, as a Kafka broker
# does, for the consumer's fetch.wait.max.ms, 500 ms), librdkafka's fetch defaults otherwise
# (fetch.max.bytes 52428800, max.partition.fetch.bytes 1048576); it prints each offset.
W10_KCAT_PRODUCE = ["-P", "-K", "\\t", "-X", "acks=all"]
W10_KCAT_CONSUME = ["-C", "-o", "beginning", "-e", "-q", "-f", "%o\\n"]
W10_LATENCY_RATE = 1000
W10_SETTLE_S = 1.0         # after kcat -C: see w10()
W10_GOALS = dict(produce=0.8, consume=1.0, p99_ms=10.0)
# Workload 12: a transactional Kafka producer against an idempotent one (confluent-kafka,
# bench/common/kafka_txn_produce.py), records of 100 B; the transactional producer commits
# every W12_PER_TXN records. Every point sends w12_records records, except that a
# transactional point sends at most w12_max_txns transactions: each one starts a background
# worker (about 0.1 s on the machine that made bench/results), so w12_records records of one
# per transaction would take hours.
W12_PER_TXN = [1, 100, 1000]
# Workload 13 (issue 34): 1 kB JSON events (common/json_events.sql), heap against pg_topics
# with each topic config compression.type of the pg_topics peer's w13_compression. Reads, each
# touching every value (a field of every event): (key for a mode's w13_reads, script, label,
# second pass?, records per call: "batch" or "backlog"). The second pass times a connection's second pass over the
# backlog only (workload 3: a new backend's first touch of each page of shared memory costs
# microseconds on a virtual machine, and a bigger log has more pages).
W13_CLIENTS = [1, 2]
W13_READS = [("fetch", "w13_fetch", "fetch, a new connection", False, "batch"),
             ("fetch_second", "w13_fetch", "fetch, second pass in its connection", True,
              "batch"),
             ("poll", "w13_poll", "poll (consumer group), a new connection", False, "batch"),
             ("scan", "w13_scan", "SQL scan of the whole backlog, later scans in their "
              "connection", True, "backlog")]
KAFKA_WORKLOADS = {"w10", "w12"}      # the server runs with the Kafka listener for these
ALL_WORKLOADS = ["w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8", "w9", "w10", "w11", "w12",
                 "w13"]

TODO_WORKLOADS = {}


def have_confluent_kafka():
    """Can KAFKA_PYTHON (the Kafka workloads' client) import confluent_kafka?"""
    try:
        return subprocess.run([KAFKA_PYTHON, "-c", "import confluent_kafka"],
                              capture_output=True).returncode == 0
    except OSError:
        return False


def log(msg):
    print(msg, flush=True)



def loadavg():
    """The machine's load average when the run starts (client and server share it)."""
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return None


def fmt_ms(x):
    return "—" if x is None else f"{x:.2f}"


class HarnessError(Exception):
    pass


class PeerError(Exception):
    pass


# --------------------------------------------------------------------------- server

class Server:
    def __init__(self, workdir):
        self.workdir = workdir
        self.pgdata = os.path.join(workdir, "pgdata")
        self.sockdir = os.path.join(workdir, "sock")
        self.logfile = os.path.join(workdir, "server.log")
        self.as_root = os.geteuid() == 0
        self.started = False

    def _as_server_user(self, cmd):
        if self.as_root:
            return ["runuser", "-u", SERVER_USER, "--"] + cmd
        return cmd

    def _ensure_os_user(self):
        if not self.as_root:
            return
        if subprocess.run(["id", "-u", SERVER_USER], capture_output=True).returncode != 0:
            log(f"creating system user {SERVER_USER} (PostgreSQL refuses to run as root)")
            subprocess.run(["useradd", "-r", "-m", "-s", "/bin/sh", SERVER_USER], check=True)

    def _chown(self, path):
        if self.as_root:
            subprocess.run(["chown", "-R", f"{SERVER_USER}:", path], check=True)

    def stop_stale(self):
        if os.path.exists(os.path.join(self.pgdata, "postmaster.pid")):
            log("stopping a server left behind by an earlier run")
            subprocess.run(self._as_server_user([f"{PGBIN}/pg_ctl", "-D", self.pgdata, "-m",
                                                 "immediate", "-w", "stop"]),
                           capture_output=True)

    def init(self, preload, kafka=False):
        self._ensure_os_user()
        os.makedirs(self.workdir, exist_ok=True)
        self.stop_stale()
        for d in (self.pgdata, self.sockdir):
            shutil.rmtree(d, ignore_errors=True)
        os.makedirs(self.sockdir)
        os.makedirs(self.pgdata, mode=0o700)
        os.chmod(self.workdir, 0o755)
        self._chown(self.sockdir)
        self._chown(self.pgdata)
        if self.as_root:
            # the server user must be able to reach the work directory
            p = self.workdir
            while p != "/":
                st = os.stat(p)
                if not st.st_mode & 0o001:
                    raise HarnessError(f"{p} is not traversable by {SERVER_USER}; "
                                       "set BENCH_WORKDIR to a directory under /tmp")
                p = os.path.dirname(p)
            open(self.logfile, "a").close()
            self._chown(self.logfile)
        r = subprocess.run(self._as_server_user([
            f"{PGBIN}/initdb", "-D", self.pgdata, "-U", DBUSER, "--auth=trust",
            "-E", "UTF8", "--locale=C", "--no-sync"]), capture_output=True, text=True)
        if r.returncode != 0:
            raise HarnessError("initdb failed:\n" + r.stdout + r.stderr)
        self.write_conf(preload, kafka)

    def write_conf(self, preload, kafka=False):
        conf = dict(SETTINGS)
        if kafka:
            conf.update(KAFKA_SETTINGS)
        conf["port"] = str(PORT)
        conf["unix_socket_directories"] = f"'{self.sockdir}'"
        conf["shared_preload_libraries"] = "'" + ",".join(preload) + "'"
        with open(os.path.join(self.pgdata, "bench.conf"), "w") as f:
            f.write("# written by bench/harness.py\n")
            for k, v in conf.items():
                f.write(f"{k} = {v}\n")
        path = os.path.join(self.pgdata, "postgresql.conf")
        with open(path) as f:
            text = f.read()
        if "include = 'bench.conf'" not in text:
            with open(path, "a") as f:
                f.write("\ninclude = 'bench.conf'\n")
        self._chown(self.pgdata)

    def start(self):
        r = subprocess.run(self._as_server_user([
            f"{PGBIN}/pg_ctl", "-D", self.pgdata, "-l", self.logfile, "-w", "-t", "60",
            "start"]), capture_output=True, text=True)
        if r.returncode != 0:
            tail = ""
            if os.path.exists(self.logfile):
                with open(self.logfile) as f:
                    tail = "".join(f.readlines()[-20:])
            raise HarnessError("server did not start:\n" + r.stdout + r.stderr + tail)
        self.started = True

    def stop(self):
        if self.started:
            subprocess.run(self._as_server_user([f"{PGBIN}/pg_ctl", "-D", self.pgdata,
                                                 "-m", "fast", "-w", "stop"]),
                           capture_output=True)
            self.started = False

    # ---- clients (run as the invoking user, through the Unix socket)
    def conn_args(self, db=DB):
        return ["-h", self.sockdir, "-p", str(PORT), "-U", DBUSER, "-d", db]

    def sql(self, query, db=DB):
        """One value (or rows as text) from a query run by psql."""
        r = subprocess.run([f"{PGBIN}/psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1",
                            "-c", query] + self.conn_args(db), capture_output=True, text=True)
        if r.returncode != 0:
            raise HarnessError(f"query failed: {query}\n{r.stderr}")
        return r.stdout.strip()

    def psql_file(self, path, variables=None, pgoptions=None):
        cmd = [f"{PGBIN}/psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-f", path]
        for k, v in (variables or {}).items():
            cmd += ["-v", f"{k}={v}"]
        env = dict(os.environ)
        if pgoptions:
            env["PGOPTIONS"] = pgoptions
        r = subprocess.run(cmd + self.conn_args(), capture_output=True, text=True, env=env)
        if r.returncode != 0:
            raise PeerError(f"{os.path.relpath(path, BENCH)} failed:\n{r.stderr.strip()}")
        return r.stdout.strip()

    def pgbench_cmd(self, script, clients, variables, secs=None, txns=None, pgoptions=None,
                    rate=None, protocol="prepared"):
        cmd = [f"{PGBIN}/pgbench", "-n", "-M", protocol, "-c", str(clients),
               "-j", str(min(clients, NCPU)), "-f", script]
        cmd += ["-T", str(secs)] if secs else ["-t", str(txns)]
        if rate:
            cmd += ["-R", str(rate)]
        for k, v in variables.items():
            cmd += ["-D", f"{k}={v}"]
        cmd += ["-h", self.sockdir, "-p", str(PORT), "-U", DBUSER, DB]
        env = dict(os.environ)
        if pgoptions:
            env["PGOPTIONS"] = pgoptions
        return cmd, env

    @staticmethod
    def pgbench_result(script, rc, out):
        tps = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", out)
        done = re.search(r"number of transactions actually processed: (\d+)", out)
        failed = re.search(r"number of failed transactions: (\d+)", out)
        lat = re.search(r"latency average = ([0-9.]+) ms", out)
        lag = re.search(r"rate limit schedule lag: avg ([0-9.]+) \(max ([0-9.]+)\) ms", out)
        if rc != 0 or not tps or not done or (failed and int(failed.group(1)) > 0) \
                or int(done.group(1)) == 0:
            errs = "\n".join(l for l in out.splitlines()
                             if "ERROR" in l or "error" in l or "FATAL" in l)[:2000]
            raise PeerError(f"pgbench {os.path.relpath(script, BENCH)} failed "
                            f"(rc={rc}):\n{errs or out[-2000:]}")
        return dict(tps=float(tps.group(1)), txns=int(done.group(1)),
                    latency_ms=float(lat.group(1)) if lat else None,
                    lag_avg_ms=float(lag.group(1)) if lag else None,
                    lag_max_ms=float(lag.group(2)) if lag else None)

    def pgbench(self, script, clients, variables, secs=None, txns=None, pgoptions=None,
                rate=None, protocol="prepared"):
        cmd, env = self.pgbench_cmd(script, clients, variables, secs, txns, pgoptions, rate,
                                    protocol)
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        return self.pgbench_result(script, r.returncode, r.stdout + r.stderr)

    def psql_clients(self, script, clients, pgoptions=None):
        """clients psql processes running the same script file at once; returns the wall time
        from starting the first to the last one's exit (connections included)."""
        env = dict(os.environ)
        if pgoptions:
            env["PGOPTIONS"] = pgoptions
        cmd = [f"{PGBIN}/psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-f", script] \
            + self.conn_args()
        outs = [tempfile.TemporaryFile(mode="w+") for _ in range(clients)]
        t0 = time.time()
        procs = [subprocess.Popen(cmd, stdout=o, stderr=subprocess.STDOUT, text=True, env=env)
                 for o in outs]
        for p in procs:
            p.wait()
        secs = time.time() - t0
        for p, o in zip(procs, outs):
            o.seek(0)
            text = o.read()
            o.close()
            if p.returncode != 0:
                raise PeerError(f"psql {os.path.relpath(script, BENCH)} failed "
                                f"(rc={p.returncode}):\n{text[-2000:]}")
        return secs

    def pgbench_later_half(self, script, variables, txns, pgoptions=None):
        """One client runs 2 x txns transactions; the result describes the later txns only
        (from pgbench's per-transaction log), so that one pass of warming up the
        connection is left out."""
        cmd, env = self.pgbench_cmd(script, 1, variables, txns=2 * txns, pgoptions=pgoptions)
        logdir = tempfile.mkdtemp(prefix="pgbench_log")
        try:
            cmd[1:1] = ["-l", "--log-prefix", os.path.join(logdir, "tx")]
            r = subprocess.run(cmd, capture_output=True, text=True, env=env)
            self.pgbench_result(script, r.returncode, r.stdout + r.stderr)
            # a line per transaction: client, number, latency (us), script, epoch s, us
            logged = []
            for name in os.listdir(logdir):
                with open(os.path.join(logdir, name)) as f:
                    logged += [(int(line.split()[1]), int(line.split()[2])) for line in f]
            usecs = [u for _, u in sorted(logged)[txns:]]
        finally:
            shutil.rmtree(logdir, ignore_errors=True)
        if len(usecs) != txns:
            raise PeerError(f"pgbench {os.path.relpath(script, BENCH)}: {len(usecs)} "
                            f"transactions logged in the second pass, expected {txns}")
        total = sum(usecs) / 1e6
        return dict(tps=txns / total, txns=txns, latency_ms=total * 1e3 / txns)

    def pgbench_start(self, script, clients, variables, secs=None, txns=None, pgoptions=None,
                      rate=None):
        """pgbench in the background; finish with pgbench_wait()."""
        cmd, env = self.pgbench_cmd(script, clients, variables, secs, txns, pgoptions, rate)
        # output to a file, not a pipe: a full pipe would stall the client mid-measurement
        outf = tempfile.TemporaryFile(mode="w+")
        return script, subprocess.Popen(cmd, stdout=outf, stderr=subprocess.STDOUT, text=True,
                                        env=env), outf

    def pgbench_wait(self, handle, timeout):
        script, proc, outf = handle
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()       # our own child, by its handle
            proc.wait()
            outf.seek(0)
            raise PeerError(f"pgbench {os.path.relpath(script, BENCH)} did not finish "
                            f"within {timeout:.0f}s:\n{outf.read()[-2000:]}")
        outf.seek(0)
        out = outf.read()
        outf.close()
        r = self.pgbench_result(script, proc.returncode, out)
        r["output"] = out
        return r


# --------------------------------------------------------------------------- peers

class Peer:
    def __init__(self, name):
        self.name = name
        self.dir = os.path.join(PEERS_DIR, name)
        self.conf = {}
        with open(os.path.join(self.dir, "peer.conf")) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#") and "=" in line:
                    k, v = line.split("=", 1)
                    self.conf[k.strip()] = v.strip()
        self.extension = self.conf.get("extension") or None
        self.preload = self.conf.get("preload") or None
        self.pgoptions = self.conf.get("pgoptions") or None
        self.skip_reason = None

    def script(self, name):
        p = os.path.join(self.dir, name)
        return p if os.path.exists(p) else None


def peer_order(names):
    first = ["null", "null_commit", "heap", "pgq", "pg_topics"]
    return [n for n in first if n in names] + sorted(n for n in names if n not in first)


def load_peers(only):
    names = [d for d in os.listdir(PEERS_DIR)
             if os.path.exists(os.path.join(PEERS_DIR, d, "peer.conf"))]
    if "null" not in names:
        raise HarnessError("peers/null is required: it is the floor every peer is compared to")
    peers = [Peer(n) for n in peer_order(names)]
    if only:
        keep = set(only.split(",")) | {"null"}
        peers = [p for p in peers if p.name in keep]
    return peers


def pg_config(what):
    return subprocess.run([f"{PGBIN}/pg_config", f"--{what}"], capture_output=True,
                          text=True, check=True).stdout.strip()


def preloadable(lib):
    return os.path.exists(os.path.join(pg_config("pkglibdir"), lib + ".so"))


# --------------------------------------------------------------------------- runner

class Bench:
    def __init__(self, args):
        self.args = args
        self.mode = args.mode
        self.m = dict(MODES[self.mode])
        if args.runs:
            self.m["runs"] = args.runs
        self.server = Server(args.workdir)
        self.results = []          # dicts: workload, config, peer, run metrics
        self.errors = []           # (peer, message)
        self.payload = None        # (value_size, nrows) currently in table payload
        self.notes = []            # for the report (workloads skipped, and why)

    # ---- helpers
    def payload_rows(self, size, batch):
        rows = min(self.m["payload_rows_max"], max(1, self.m["payload_bytes_max"] // size))
        return max(rows, 2 * batch)

    def ensure_payload(self, size, nrows, batch=None):
        """payload rows of size bytes, and payload_batches of batch rows (default: w2's)"""
        batch = batch or self.m["batch_w2"]
        if self.payload and self.payload[0] == size and self.payload[1] >= nrows \
                and self.payload[2] == batch:
            return self.payload[1]
        t0 = time.time()
        self.server.psql_file(os.path.join(BENCH, "common", "payload.sql"),
                              {"value_size": size, "nrows": nrows, "batch": batch})
        self.server.sql("CHECKPOINT")
        self.payload = (size, nrows, batch)
        log(f"  payload: {nrows} rows x {size} B generated in {time.time() - t0:.1f}s (untimed)")
        return nrows

    def checkpoint(self):
        self.server.sql("CHECKPOINT")

    def expect_drained(self, remaining, what, calls, batch):
        """A consumer's run reads the whole backlog: remaining, a peer's script, prints what is left."""
        left = self.server.psql_file(remaining)
        if left not in ("0", ""):
            raise PeerError(f"{what}: {left} records left after {calls} calls of {batch} "
                            "(expected 0)")

    def record(self, workload, config, peer, runs, records_per_txn, extra=None):
        rps = [r["tps"] * records_per_txn for r in runs]
        med = statistics.median(rps)
        row = dict(workload=workload, config=config, peer=peer.name,
                   records_per_s=med, ms_per_1000=1e6 / med if med else None,
                   runs=[round(x, 1) for x in rps], txns=[r["txns"] for r in runs])
        row.update(extra or {})
        self.results.append(row)
        log(f"  {workload} {config:<28} {peer.name:<10} {row['ms_per_1000']:10.3f} ms/1000 "
            f"{med:12.0f} rec/s  runs={row['runs']}")

    def fail(self, peer, workload, e):
        msg = str(e).strip()
        log(f"  {workload} {peer.name}: FAILED\n    " + msg.replace("\n", "\n    "))
        self.errors.append(dict(peer=peer.name, workload=workload, error=msg))
        self.results.append(dict(workload=workload, config=None, peer=peer.name, error=msg))

    def setup_peer(self, peer, variables):
        self.server.psql_file(peer.script("setup.sql"), variables, peer.pgoptions)

    def produce_runs(self, peer, script, clients, variables, txns, pgoptions=None):
        """runs x (setup.sql, CHECKPOINT, pgbench)."""
        out = []
        opts = " ".join(x for x in (peer.pgoptions, pgoptions) if x) or None
        for _ in range(self.m["runs"]):
            self.setup_peer(peer, variables)
            self.checkpoint()
            out.append(self.server.pgbench(script, clients, variables,
                                           secs=self.m["produce_secs"], txns=txns,
                                           pgoptions=opts))
        return out

    # ---- workloads
    def w1(self, peers):
        log("workload 1: produce, 1 record per transaction, "
            f"{W1_CLIENTS} clients, synchronous_commit on/off")
        nrows = self.ensure_payload(DEFAULT_SIZE, self.payload_rows(DEFAULT_SIZE, 1000))
        variables = dict(nrows=nrows, batch=1, maxlo=nrows, pos=0)
        for sc in ("on", "off"):
            for peer in peers:
                script = peer.script("produce_1.sql")
                # a peer may be meaningful for one setting only (peer.conf w1_synchronous_commit)
                if not script or sc not in peer.conf.get("w1_synchronous_commit", "on,off"):
                    continue
                try:
                    runs = self.produce_runs(peer, script, W1_CLIENTS, variables,
                                             self.m.get("produce_txns_1"),
                                             f"-c synchronous_commit={sc}")
                    self.record("w1", f"synchronous_commit={sc}", peer, runs, 1,
                                dict(clients=W1_CLIENTS, value_size=DEFAULT_SIZE))
                except PeerError as e:
                    self.fail(peer, "w1", e)

    def w2(self, peers):
        batch = self.m["batch_w2"]
        log(f"workload 2: produce, {batch} records per call, {W2_CLIENTS} clients, "
            f"payload sweep {W2_SIZES}")
        for size in W2_SIZES:
            nrows = self.ensure_payload(size, self.payload_rows(size, batch))
            variables = dict(nrows=nrows, batch=batch, maxlo=nrows - batch + 1, pos=0)
            for clients in W2_CLIENTS:
                for peer in peers:
                    script = peer.script("produce_batch.sql")
                    if not script:
                        continue
                    try:
                        runs = self.produce_runs(peer, script, clients, variables,
                                                 self.m.get("produce_txns_batch"))
                        self.record("w2", f"{size} B, {clients} client(s)", peer, runs, batch,
                                    dict(clients=clients, value_size=size, batch=batch))
                    except PeerError as e:
                        self.fail(peer, "w2", e)
            # free the space of the big runs before the next size
            for peer in peers:
                try:
                    self.setup_peer(peer, variables)
                except PeerError:
                    pass
            self.checkpoint()

    def w3_w6(self, peers):
        batch = self.m["batch_w3"]
        backlog = self.m["backlog"]
        calls = backlog // batch
        log(f"workload 3: consume a {backlog}-record backlog, {batch} per call, 1 consumer "
            f"(server side / to the client); workload 6: disk and WAL per record")
        nrows = self.ensure_payload(DEFAULT_SIZE, self.payload_rows(DEFAULT_SIZE, batch), batch)
        variables = dict(nrows=nrows, batch=batch, maxlo=nrows - batch + 1, pos=0,
                         backlog=backlog)
        for peer in peers:
            try:
                self.setup_peer(peer, variables)
                size_sql = peer.script("size.sql")
                load = peer.script("load_batch.sql") or peer.script("produce_batch.sql")
                if not load:
                    continue
                self.checkpoint()
                s0 = int(self.server.psql_file(size_sql) or 0) if size_sql else None
                lsn0 = self.server.sql("SELECT pg_current_wal_lsn()")
                t0 = time.time()
                self.server.pgbench(load, 1, variables, txns=calls, pgoptions=peer.pgoptions)
                load_secs = time.time() - t0
                wal = int(self.server.sql(
                    f"SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '{lsn0}')"))
                s1 = int(self.server.psql_file(size_sql) or 0) if size_sql else None
                if size_sql:
                    self.results.append(dict(
                        workload="w6", config=f"{backlog} records, {batch} per call",
                        peer=peer.name, records=backlog, value_size=DEFAULT_SIZE,
                        disk_bytes=s1 - s0, wal_bytes=wal,
                        disk_per_record=(s1 - s0) / backlog, wal_per_record=wal / backlog,
                        load_secs=round(load_secs, 2)))
                    log(f"  w6 {peer.name:<10} disk {(s1 - s0) / backlog:8.1f} B/record   "
                        f"WAL {wal / backlog:8.1f} B/record   (load {load_secs:.1f}s)")
                # what autovacuum would have done by now for a real backlog (untimed)
                self.server.sql("VACUUM ANALYZE")
                self.checkpoint()
            except (PeerError, HarnessError) as e:
                self.fail(peer, "w3", e)
                continue
            for name, label in W3_SCRIPTS:
                script = peer.script(f"{name}.sql")
                if not script:
                    continue
                try:
                    runs = []
                    checked = name.startswith("consume_")
                    for _ in range(self.m["runs"]):
                        if checked and peer.script("consume_reset.sql"):
                            self.server.psql_file(peer.script("consume_reset.sql"), variables,
                                                  peer.pgoptions)
                        self.checkpoint()
                        runs.append(self.server.pgbench(script, 1, variables, txns=calls,
                                                        pgoptions=peer.pgoptions))
                        if checked and peer.script("consume_remaining.sql"):
                            self.expect_drained(peer.script("consume_remaining.sql"), name,
                                                calls, batch)
                    self.record("w3", label, peer, runs, batch,
                                dict(batch=batch, backlog=backlog, value_size=DEFAULT_SIZE))
                    if name in W3_SECOND_PASS:
                        runs = []
                        for _ in range(self.m["runs"]):
                            self.checkpoint()
                            runs.append(self.server.pgbench_later_half(
                                script, variables, calls, pgoptions=peer.pgoptions))
                        self.record("w3", W3_SECOND_PASS[name], peer, runs, batch,
                                    dict(batch=batch, backlog=backlog, value_size=DEFAULT_SIZE))
                except PeerError as e:
                    self.fail(peer, "w3", e)
            try:
                self.setup_peer(peer, variables)   # free the backlog
            except PeerError:
                pass

    # ---- workloads 4, 5, 7 (pg_topics-specific; peers that have the scripts)
    def bulk_load(self, peer, n, nrows):
        """Append n records (rounded up to LOAD_BATCH) with load_bulk.sql, 1 client.
        Returns (records, seconds)."""
        calls = -(-n // LOAD_BATCH)
        variables = dict(nrows=nrows, batch=LOAD_BATCH, maxlo=nrows - LOAD_BATCH + 1, pos=0)
        t0 = time.time()
        self.server.pgbench(peer.script("load_bulk.sql"), 1, variables, txns=calls,
                            pgoptions=peer.pgoptions)
        return calls * LOAD_BATCH, time.time() - t0

    def vacuum_checkpoint(self):
        """What autovacuum would have done after a backlog load (untimed); returns seconds."""
        t0 = time.time()
        self.server.sql("VACUUM ANALYZE")
        self.checkpoint()
        return time.time() - t0

    def free_peer(self, peer, variables):
        try:
            self.setup_peer(peer, variables)
            self.checkpoint()
        except (PeerError, HarnessError):
            pass

    def w4(self, peers):
        backlogs = self.m["w4_backlogs"]
        log(f"workload 4: produce, {W4_BATCH} records per call, 1 client, 100 B values, at "
            f"backlogs {backlogs} (backlog loaded by load_bulk.sql, {LOAD_BATCH} per transaction)")
        nrows = self.ensure_payload(DEFAULT_SIZE, self.payload_rows(DEFAULT_SIZE, LOAD_BATCH))
        variables = dict(nrows=nrows, batch=W4_BATCH, maxlo=nrows - W4_BATCH + 1, pos=0)
        for peer in peers:
            prod = peer.script("produce_batch.sql")
            if not (prod and peer.script("load_bulk.sql")):
                continue
            try:
                self.setup_peer(peer, variables)
                self.checkpoint()
                records = 0        # records in the peer's storage (loads + measured produce)
                loaded = 0         # nominal backlog loaded so far
                for target in backlogs:
                    extra = dict(backlog=target, clients=1, batch=W4_BATCH,
                                 value_size=DEFAULT_SIZE, load_records=0, load_secs=None,
                                 vacuum_checkpoint_secs=None)
                    if target > loaded:
                        n, secs = self.bulk_load(peer, target - loaded, nrows)
                        records += n
                        loaded = target
                        vsecs = self.vacuum_checkpoint()
                        extra.update(load_records=n, load_secs=round(secs, 2),
                                     load_records_per_s=round(n / secs) if secs else None,
                                     vacuum_checkpoint_secs=round(vsecs, 2))
                        log(f"  w4 {peer.name:<10} loaded {n:,} records in {secs:.1f}s "
                            f"({n / secs:,.0f} records/s); VACUUM ANALYZE + CHECKPOINT "
                            f"{vsecs:.1f}s (untimed)")
                    extra["records_before"] = records
                    runs = []
                    for _ in range(self.m["runs"]):
                        self.checkpoint()
                        r = self.server.pgbench(prod, 1, variables, secs=self.m["produce_secs"],
                                                txns=self.m.get("w4_txns"),
                                                pgoptions=peer.pgoptions)
                        runs.append(r)
                        records += r["txns"] * W4_BATCH
                    self.record("w4", f"backlog {target:,}", peer, runs, W4_BATCH, extra)
            except (PeerError, HarnessError) as e:
                self.fail(peer, "w4", e)
            finally:
                self.free_peer(peer, variables)

    @staticmethod
    def explain_stats(text):
        """Numbers from EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) output."""
        try:
            doc = json.loads(text)[0]
        except (ValueError, IndexError, KeyError) as e:
            raise PeerError(f"not EXPLAIN (FORMAT JSON) output ({e}):\n{text[:500]}")
        plan = doc["Plan"]
        st = dict(exec_ms=doc.get("Execution Time"),
                  blocks=plan.get("Shared Hit Blocks", 0) + plan.get("Shared Read Blocks", 0),
                  blocks_read=plan.get("Shared Read Blocks", 0),
                  seek_pages_scanned=None, log_pages=None, rows=0, scans=[])

        def walk(n):
            name = n.get("Custom Plan Provider") or n["Node Type"]
            if "Relation Name" in n:
                st["scans"].append(name)
                st["rows"] += int(n.get("Actual Rows", 0) * n.get("Actual Loops", 1))
            if n.get("Custom Plan Provider") == "TopicSeek":
                st["seek_pages_scanned"] = (st["seek_pages_scanned"] or 0) + \
                    n.get("Pages Scanned", 0)
                st["log_pages"] = (st["log_pages"] or 0) + n.get("Log Pages", 0)
            for c in n.get("Plans", []):
                walk(c)
        walk(plan)
        st["scans"] = sorted(set(st["scans"]))
        return st

    def explain_runs(self, peer, script, variables):
        """W5_REPEAT executions; time = median Execution Time, pages from the last one."""
        runs = [self.explain_stats(self.server.psql_file(script, variables, peer.pgoptions))
                for _ in range(W5_REPEAT)]
        st = dict(runs[-1])
        st["runs_ms"] = [round(r["exec_ms"], 3) for r in runs]
        st["exec_ms"] = statistics.median(r["exec_ms"] for r in runs)
        return st

    def w5(self, peers):
        n_records = self.m["w5_records"]
        log(f"workload 5: seeks on a {n_records:,}-record single-partition backlog: fetch "
            f"{W5_BATCH} at the head vs at random offsets; a {W5_RANGE_FRACTION:.1%} time range "
            f"vs a full scan")
        nrows = self.ensure_payload(DEFAULT_SIZE, self.payload_rows(DEFAULT_SIZE, LOAD_BATCH))
        for peer in peers:
            names = ("load_bulk.sql", "fetch_at.sql", "timestamp_at.sql", "time_range.sql",
                     "full_scan.sql")
            if not all(peer.script(x) for x in names):
                continue
            variables = dict(nrows=nrows, batch=W5_BATCH, maxlo=nrows - W5_BATCH + 1, pos=0)
            try:
                self.setup_peer(peer, variables)
                self.checkpoint()
                loaded, secs = self.bulk_load(peer, n_records, nrows)
                vsecs = self.vacuum_checkpoint()
                log(f"  w5 {peer.name:<10} loaded {loaded:,} records in {secs:.1f}s; "
                    f"VACUUM ANALYZE + CHECKPOINT {vsecs:.1f}s (untimed)")
                head = loaded - W5_BATCH
                for label, lo, hi in ((f"fetch {W5_BATCH} at the head", head, head),
                                      (f"fetch {W5_BATCH} at random offsets", 0, head)):
                    runs = []
                    for _ in range(self.m["runs"]):
                        self.checkpoint()
                        runs.append(self.server.pgbench(
                            peer.script("fetch_at.sql"), 1,
                            dict(variables, off_lo=lo, off_hi=hi),
                            secs=self.m["produce_secs"], txns=self.m.get("w5_txns"),
                            pgoptions=peer.pgoptions))
                    ms = [r["latency_ms"] if r["latency_ms"] is not None else 1000 / r["tps"]
                          for r in runs]
                    row = dict(workload="w5", config=label, peer=peer.name, kind="fetch",
                               records=loaded, batch=W5_BATCH, off_lo=lo, off_hi=hi,
                               ms_per_call=statistics.median(ms),
                               runs_ms=[round(x, 3) for x in ms], calls=[r["txns"] for r in runs],
                               load_secs=round(secs, 2))
                    self.results.append(row)
                    log(f"  w5 {label:<34} {peer.name:<10} {row['ms_per_call']:8.3f} ms/call  "
                        f"runs={row['runs_ms']}")
                span = max(1, int(loaded * W5_RANGE_FRACTION))
                o1 = loaded // 2 - span // 2
                o2 = o1 + span - 1
                t1 = self.server.psql_file(peer.script("timestamp_at.sql"), dict(o=o1))
                t2 = self.server.psql_file(peer.script("timestamp_at.sql"), dict(o=o2))
                if not t1 or not t2:
                    raise PeerError(f"timestamp_at.sql returned nothing for offset {o1} or {o2}")
                tv = dict(t1=t1, t2=t2)
                points = [(f"time range {W5_RANGE_FRACTION:.1%}", "time_range.sql", tv),
                          ("full scan", "full_scan.sql", {})]
                if peer.script("w5_index.sql"):
                    points.append(("index", None, None))
                for label, script, v in points:
                    if script is None:
                        self.server.psql_file(peer.script("w5_index.sql"), {}, peer.pgoptions)
                        label, script, v = (f"time range {W5_RANGE_FRACTION:.1%}, after "
                                            "w5_index.sql", "time_range.sql", tv)
                    st = self.explain_runs(peer, peer.script(script), v)
                    row = dict(workload="w5", config=label, peer=peer.name, kind="scan",
                               records=loaded, offsets=[o1, o2] if v else None,
                               t1=v.get("t1") if v else None, t2=v.get("t2") if v else None,
                               **st)
                    self.results.append(row)
                    seek = (f"  TopicSeek pages {st['seek_pages_scanned']}/{st['log_pages']}"
                            if st["log_pages"] is not None else "")
                    log(f"  w5 {label:<34} {peer.name:<10} {st['exec_ms']:8.3f} ms  "
                        f"{st['blocks']:>9,} buffers  {st['rows']:>9,} rows  "
                        f"{'/'.join(st['scans'])}{seek}")
            except (PeerError, HarnessError) as e:
                self.fail(peer, "w5", e)
            finally:
                self.free_peer(peer, variables)

    def w8(self, peers):
        """Retention: load twice w8_bytes of 100 B records, then drop the oldest half with
        the peer's own retention (retention_drop.sql, timed) and measure the disk space
        that went back to the filesystem (pg_database_size before and after)."""
        target = self.m["w8_bytes"]
        log(f"workload 8: retention, drop the oldest {target:,} bytes of a "
            f"{2 * target:,}-byte backlog of 100 B records")
        nrows = self.ensure_payload(DEFAULT_SIZE, self.payload_rows(DEFAULT_SIZE, LOAD_BATCH))
        variables = dict(nrows=nrows, batch=LOAD_BATCH, maxlo=nrows - LOAD_BATCH + 1, pos=0)
        for peer in peers:
            drop = peer.script("retention_drop.sql")
            if not (drop and peer.script("load_bulk.sql")):
                continue
            try:
                self.setup_peer(peer, variables)
                if peer.script("retention_setup.sql"):
                    self.server.psql_file(peer.script("retention_setup.sql"),
                                          dict(segment_size=f"{max(target // 8 // 1024, 64)}kB"),
                                          peer.pgoptions)
                base = int(self.server.sql("SELECT pg_database_size(current_database())"))
                # about 120 B per 100 B record on disk: load until the log is twice the target
                n, secs = self.bulk_load(peer, 2 * target // 120, nrows)
                self.checkpoint()
                before = int(self.server.sql("SELECT pg_database_size(current_database())"))
                t0 = time.time()
                self.server.psql_file(drop, dict(cut=n // 2), peer.pgoptions)
                drop_secs = time.time() - t0
                self.checkpoint()
                after = int(self.server.sql("SELECT pg_database_size(current_database())"))
                held = before - base
                returned = before - after
                row = dict(workload="w8", config=f"drop oldest half of {n:,} records",
                           peer=peer.name, records=n, bytes_held=held,
                           bytes_returned=returned,
                           returned_fraction=round(returned / (held / 2), 3) if held else None,
                           drop_ms=round(drop_secs * 1000, 1),
                           ms_per_gb=round(drop_secs * 1000 / (held / 2) * 1e9, 1) if held else None)
                self.results.append(row)
                log(f"  w8 {peer.name:<10} {n:,} records, {held:,} bytes; dropping the oldest "
                    f"half took {row['drop_ms']} ms ({row['ms_per_gb']} ms per GB) and returned "
                    f"{returned:,} bytes ({row['returned_fraction']:.0%} of half)")
            except (PeerError, HarnessError) as e:
                self.fail(peer, "w8", e)
            finally:
                if peer.script("retention_teardown.sql"):
                    try:
                        self.server.psql_file(peer.script("retention_teardown.sql"), {},
                                              peer.pgoptions)
                    except (PeerError, HarnessError):
                        pass
                self.free_peer(peer, variables)

    def w9(self, peers):
        """Every produce path next to produce_batch (1 and 2 clients; disk and WAL bytes per
        record around the 1-client run), and every read path next to the consumer whose
        position the database keeps, over one backlog: all in this run."""
        batch = self.m["w9_batch"]
        backlog = self.m["w9_backlog"]
        calls = backlog // batch
        peers = [p for p in peers if any(p.script(f) for f in (
            "w9_insert_select.sql", "w9_insert_values.sql", "w9_copy.sql",
            "w9_fetch_cte_server.sql", "w9_fetch_cte_client.sql"))]
        log(f"workload 9: every produce path ({batch} records per call, "
            f"{self.m.get('w9_clients', W2_CLIENTS)} clients) "
            f"and every read path ({batch} per call over a {backlog:,}-record backlog), "
            f"peers {[p.name for p in peers]}")
        nrows = self.ensure_payload(DEFAULT_SIZE, self.payload_rows(DEFAULT_SIZE, batch), batch)
        variables = dict(nrows=nrows, batch=batch, maxlo=nrows - batch + 1, pos=0,
                         backlog=backlog)
        gen_dir = os.path.join(self.args.workdir, "w9")
        shutil.rmtree(gen_dir, ignore_errors=True)
        os.makedirs(gen_dir)
        # COPY's data: payload rows 1 .. batch in COPY's text format (bytea as \x hex), read
        # by psql's \copy from this file on every call
        datafile = os.path.join(gen_dir, "copy.data")
        r = subprocess.run([f"{PGBIN}/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c",
                            f"COPY (SELECT key, value FROM payload WHERE id BETWEEN 1 AND {batch}"
                            " ORDER BY id) TO STDOUT"] + self.server.conn_args(),
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise HarnessError(f"COPY of the payload failed:\n{r.stderr}")
        with open(datafile, "w") as f:
            f.write(r.stdout)
        # the timed scripts each peer's files make (untimed)
        made = {}
        for peer in peers:
            for name, _, how in W9_PRODUCE:
                src = peer.script(W9_PRODUCE_SCRIPT[name])
                if not src:
                    continue
                try:
                    if how == "values":
                        text = self.server.psql_file(src, variables, peer.pgoptions)
                    elif how == "copy":
                        with open(src) as f:
                            line = next(l for l in f if l.startswith("\\copy"))
                        text = "".join(line.replace("@FILE@", datafile)
                                       for _ in range(self.m["w9_copy_calls"]))
                    else:
                        made[(peer.name, name)] = src
                        continue
                except (PeerError, StopIteration) as e:
                    self.fail(peer, "w9", e if isinstance(e, PeerError)
                              else PeerError(f"{src}: no \\copy line"))
                    continue
                path = os.path.join(gen_dir, f"{peer.name}_{name}.sql")
                with open(path, "w") as f:
                    f.write(text.rstrip("\n") + "\n")
                made[(peer.name, name)] = path
        for name, label, how in W9_PRODUCE:
            for clients in self.m.get("w9_clients", W2_CLIENTS):
                for peer in peers:
                    script = made.get((peer.name, name))
                    if not script:
                        continue
                    try:
                        self.w9_produce(peer, name, label, how, script, clients, variables)
                    except (PeerError, HarnessError) as e:
                        self.fail(peer, "w9", e)
        for peer in peers:
            self.w9_reads(peer, variables, calls)

    def w9_produce(self, peer, name, label, how, script, clients, variables):
        batch = variables["batch"]
        size_sql = peer.script("size.sql") if clients == 1 else None
        runs, storage = [], []
        for _ in range(self.m["runs"]):
            self.setup_peer(peer, variables)
            self.checkpoint()
            s0 = int(self.server.psql_file(size_sql) or 0) if size_sql else None
            lsn0 = self.server.sql("SELECT pg_current_wal_lsn()")
            if how == "copy":
                # timed: psql processes started at once, each making w9_copy_calls \copy
                # calls (one transaction each) of batch rows, until the last one exits
                n = self.m["w9_copy_calls"]
                secs = self.server.psql_clients(script, clients, peer.pgoptions)
                r = dict(tps=clients * n / secs, txns=clients * n, latency_ms=None)
            else:
                r = self.server.pgbench(script, clients, variables,
                                        secs=self.m["produce_secs"],
                                        txns=self.m.get("produce_txns_batch"),
                                        pgoptions=peer.pgoptions,
                                        protocol="simple" if how == "values" else "prepared")
            runs.append(r)
            if size_sql:
                wal = int(self.server.sql(
                    f"SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '{lsn0}')"))
                s1 = int(self.server.psql_file(size_sql) or 0)
                n = r["txns"] * batch
                storage.append(((s1 - s0) / n, wal / n))
        extra = dict(kind="produce", path=name, label=label, clients=clients, batch=batch,
                     value_size=DEFAULT_SIZE,
                     protocol="psql \\copy" if how == "copy" else
                     ("simple" if how == "values" else "prepared"))
        if storage:
            extra.update(disk_per_record=statistics.median(d for d, _ in storage),
                         wal_per_record=statistics.median(w for _, w in storage))
        self.record("w9", f"{label}, {clients} client(s)", peer, runs, batch, extra)
        if storage:
            log(f"  w9 {'':<28} {peer.name:<10} disk {extra['disk_per_record']:8.1f} B/record"
                f"   WAL {extra['wal_per_record']:8.1f} B/record")

    def w9_reads(self, peer, variables, calls):
        batch, backlog = variables["batch"], variables["backlog"]
        only = self.m.get("w9_reads")
        reads = [(n, label, twice and self.m.get("w9_second_pass", True))
                 for n, label, twice in W9_READS
                 if peer.script(f"{n}.sql") and (only is None or n in only)]
        if not reads:
            return
        try:
            self.setup_peer(peer, variables)
            load = peer.script("load_batch.sql") or peer.script("produce_batch.sql")
            self.checkpoint()
            t0 = time.time()
            self.server.pgbench(load, 1, variables, txns=calls, pgoptions=peer.pgoptions)
            log(f"  w9 {peer.name:<10} backlog of {backlog:,} loaded in {time.time() - t0:.1f}s;"
                f" VACUUM ANALYZE + CHECKPOINT {self.vacuum_checkpoint():.1f}s (untimed)")
        except (PeerError, HarnessError) as e:
            self.fail(peer, "w9", e)
            self.free_peer(peer, variables)
            return
        extra = dict(kind="read", batch=batch, backlog=backlog, value_size=DEFAULT_SIZE)
        for name, label, twice in reads:
            script = peer.script(f"{name}.sql")
            cte = name.startswith("w9_fetch_cte")
            reset = peer.script("w9_consume_reset.sql") if name.startswith("w9_consume") \
                else None
            remaining = peer.script("w9_consume_remaining.sql") \
                if name.startswith("w9_consume") else None
            try:
                for second in ([False, True] if twice else [False]):
                    runs = []
                    for _ in range(self.m["runs"]):
                        if cte:    # the reader's position: a table row (untimed)
                            self.server.sql("DROP TABLE IF EXISTS w9_pos; CREATE TABLE w9_pos "
                                            "(id int PRIMARY KEY, pos bigint NOT NULL); "
                                            "INSERT INTO w9_pos VALUES (1, 0)")
                        if reset:
                            self.server.psql_file(reset, variables, peer.pgoptions)
                        self.checkpoint()
                        if second:
                            runs.append(self.server.pgbench_later_half(
                                script, variables, calls, pgoptions=peer.pgoptions))
                        else:
                            runs.append(self.server.pgbench(script, 1, variables, txns=calls,
                                                            pgoptions=peer.pgoptions))
                        if cte:    # each pass ends at the backlog's end, back at 0
                            pos = self.server.sql("SELECT pos FROM w9_pos WHERE id = 1")
                            if pos != "0":
                                raise PeerError(f"{name}: position {pos} after whole passes "
                                                "over the backlog (expected 0)")
                        if remaining:
                            self.expect_drained(remaining, name, calls, batch)
                    self.record("w9", label + (", second pass" if second else ""), peer, runs,
                                batch, dict(extra, path=name, label=label,
                                            second_pass=second))
            except (PeerError, HarnessError) as e:
                self.fail(peer, "w9", e)
        self.free_peer(peer, variables)

    # ---- workload 10: the Kafka protocol (pg_topics' listener) against the SQL paths
    def kafka_ready(self, bootstrap, topic, timeout=30):
        """Wait until the listener answers Metadata with the topic (its workers start with
        the server, and restart once a second until the database exists)."""
        deadline = time.time() + timeout
        last = ""
        while True:
            try:
                r = subprocess.run([KCAT, "-b", bootstrap, "-L", "-J", "-t", topic, "-m", "5"],
                                   capture_output=True, text=True, timeout=60)
            except subprocess.TimeoutExpired:
                r = subprocess.CompletedProcess([], 1, "", "kcat -L timed out")
            if r.returncode == 0:
                try:
                    meta = json.loads(r.stdout)
                    parts = [t for t in meta.get("topics", []) if t.get("topic") == topic
                             and not t.get("error") and t.get("partitions")]
                    if parts:
                        return len(parts[0]["partitions"])
                except ValueError:
                    pass
            last = (r.stdout + r.stderr)[-500:]
            if time.time() > deadline:
                raise PeerError(f"the Kafka listener at {bootstrap} did not list topic "
                                f"{topic} within {timeout} s:\n{last}")
            time.sleep(0.5)

    def kcat(self, bootstrap, args, stdin=None, stdout=None, timeout=900):
        """kcat with args; returns its wall time in seconds (process start to exit)."""
        cmd = [KCAT, "-b", bootstrap] + args
        t0 = time.time()
        try:
            r = subprocess.run(cmd, stdin=stdin, stdout=stdout or subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise PeerError(f"{' '.join(cmd)} did not finish within {timeout} s")
        secs = time.time() - t0
        if r.returncode != 0:
            raise PeerError(f"{' '.join(cmd)} failed (rc={r.returncode}):\n{r.stderr[-2000:]}")
        return secs

    def w10_check_topic(self, n):
        """The topic holds exactly the n records of the input (count and bytes)."""
        got = self.server.sql(
            "SELECT count(*) || ' ' || coalesce(sum(octet_length(key)), 0) || ' ' || "
            "coalesce(sum(octet_length(value)), 0) || ' ' || coalesce(max(\"offset\"), -1) "
            "FROM bench_topic")
        want = f"{n} {16 * n} {DEFAULT_SIZE * n} {n - 1}"
        if got != want:
            raise PeerError(f"bench_topic holds count, key bytes, value bytes, last offset "
                            f"{got}; expected {want}")

    def w10(self, peers):
        """The Kafka protocol against the SQL paths of the same run: kcat produce of n records
        of 100 B (acks=all, librdkafka's batches) vs produce_batch of the same records in calls
        of w10_batch; kcat consume of them from the beginning vs fetch of w10_batch per call to
        the client; end-to-end latency of a Kafka producer at 1,000 records/s to a Kafka
        consumer."""
        peers = [p for p in peers if p.script("w10_produce_batch.sql")]
        if not peers:
            return
        n, batch = self.m["w10_records"], self.m["w10_batch"]
        log(f"workload 10: the Kafka protocol, {n:,} records of {DEFAULT_SIZE} B: kcat produce "
            f"(acks=all) vs produce_batch ({batch:,} per call), kcat consume vs fetch "
            f"({batch:,} per call, to the client); latency at {W10_LATENCY_RATE} records/s")
        if not shutil.which(KCAT):
            self.notes.append(f"workload 10 skipped: {KCAT} is not installed")
            log(f"  w10 skipped: {KCAT} is not installed")
            return
        bootstrap = f"127.0.0.1:{KAFKA_PORT}"
        nrows = self.ensure_payload(DEFAULT_SIZE, self.payload_rows(DEFAULT_SIZE, batch))
        nb = min(nrows, n) // batch          # distinct batches of the input
        rows = nb * batch
        # the input, untimed: payload_text rows 1 .. rows, values as 100-byte bytea (the
        # base64 text of payload_text, which a line of kcat's input can carry), in batches of
        # `batch` for produce_batch, and as kcat's input file, key TAB value a line, the same
        # rows repeated in the same order up to n records
        self.server.sql(
            "DROP TABLE IF EXISTS kafka_batches; "
            "CREATE UNLOGGED TABLE kafka_batches (b int PRIMARY KEY, keys text[] NOT NULL, "
            "vals bytea[] NOT NULL); "
            "ALTER TABLE kafka_batches ALTER keys SET STORAGE EXTERNAL, "
            "ALTER vals SET STORAGE EXTERNAL; "
            f"INSERT INTO kafka_batches SELECT (id - 1) / {batch}, array_agg(key ORDER BY id), "
            f"array_agg(convert_to(vtext, 'UTF8') ORDER BY id) FROM payload_text "
            f"WHERE id <= {rows} GROUP BY 1")
        self.server.sql("VACUUM ANALYZE kafka_batches")
        gen_dir = os.path.join(self.args.workdir, "w10")
        shutil.rmtree(gen_dir, ignore_errors=True)
        os.makedirs(gen_dir)
        r = subprocess.run([f"{PGBIN}/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c",
                            f"COPY (SELECT key, vtext FROM payload_text WHERE id <= {rows} "
                            "ORDER BY id) TO STDOUT"] + self.server.conn_args(),
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise HarnessError(f"COPY of the payload failed:\n{r.stderr}")
        lines = r.stdout.splitlines(keepends=True)
        if len(lines) != rows or any(len(l) != 16 + 1 + DEFAULT_SIZE + 1 for l in lines[:10]):
            raise HarnessError(f"kcat's input: {len(lines)} lines of payload_text, expected "
                               f"{rows} of key TAB {DEFAULT_SIZE}-byte value")
        infile = os.path.join(gen_dir, "records.txt")
        block = "".join(lines)
        with open(infile, "w") as f:
            for _ in range(n // rows):
                f.write(block)
            f.write("".join(lines[:n % rows]))
        del block, lines
        consumed = os.path.join(gen_dir, "consumed.txt")
        for peer in peers:
            variables = dict(nrows=nrows, batch=batch, nbatches=nb, b=0, pos=0, backlog=n,
                             maxlo=nrows - batch + 1)
            settings = {k: self.server.sql(f"SELECT current_setting('{k}', true)")
                        for k in ("pg_topics.kafka_port", "pg_topics.kafka_listen_addresses",
                                  "pg_topics.kafka_database", "pg_topics.kafka_schema",
                                  "pg_topics.kafka_workers")}
            if settings["pg_topics.kafka_port"] in ("", "0"):
                self.notes.append("workload 10 skipped: no Kafka listener (pg_topics.kafka_port "
                                  "is not a setting of this pg_topics build, or 0)")
                log("  w10 skipped: no Kafka listener (pg_topics.kafka_port)")
                return
            kcat_consume = W10_KCAT_CONSUME + ["-c", str(n)]
            common = dict(records=n, batch=batch, value_size=DEFAULT_SIZE, partitions=1,
                          kafka_settings=settings, kcat_produce=W10_KCAT_PRODUCE,
                          kcat_consume=kcat_consume)
            try:
                # ---- produce: SQL and Kafka alternate, each into a fresh topic
                self.setup_peer(peer, variables)
                self.kafka_ready(bootstrap, "bench_topic")
                size_sql = peer.script("size.sql")
                sql_runs, kafka_runs, sql_bytes, kafka_bytes = [], [], [], []
                for _ in range(self.m["runs"]):
                    for kind in ("sql", "kafka"):
                        self.setup_peer(peer, variables)
                        self.checkpoint()
                        s0 = int(self.server.psql_file(size_sql) or 0)
                        lsn0 = self.server.sql("SELECT pg_current_wal_lsn()")
                        if kind == "sql":
                            r = self.server.pgbench(peer.script("w10_produce_batch.sql"), 1,
                                                    variables, txns=n // batch,
                                                    pgoptions=peer.pgoptions)
                            sql_runs.append(r)
                        else:
                            with open(infile) as f:
                                secs = self.kcat(bootstrap, W10_KCAT_PRODUCE + ["-t",
                                                                                "bench_topic"],
                                                 stdin=f)
                            kafka_runs.append(dict(tps=1 / secs, txns=1, latency_ms=None))
                        wal = int(self.server.sql(
                            f"SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '{lsn0}')"))
                        s1 = int(self.server.psql_file(size_sql) or 0)
                        (sql_bytes if kind == "sql" else kafka_bytes).append(
                            ((s1 - s0) / n, wal / n))
                        self.w10_check_topic(n)
                for label, path, runs, per, stor in (
                        (f"produce_batch, {batch:,} records per call", "produce_batch",
                         sql_runs, batch, sql_bytes),
                        ("Kafka Produce: kcat -P, acks=all", "kafka_produce", kafka_runs, n,
                         kafka_bytes)):
                    self.record("w10", label, peer, runs, per, dict(
                        common, kind="produce", path=path, label=label,
                        disk_per_record=statistics.median(d for d, _ in stor),
                        wal_per_record=statistics.median(w for _, w in stor)))
                # ---- consume: the records Kafka produced last, read by both
                vsecs = self.vacuum_checkpoint()
                log(f"  w10 {peer.name:<10} {n:,} records in the topic (from kcat); VACUUM "
                    f"ANALYZE + CHECKPOINT {vsecs:.1f}s (untimed)")
                kafka_runs, first_runs, second_runs = [], [], []
                read = peer.script("read_client.sql")
                for _ in range(self.m["runs"]):
                    self.checkpoint()
                    with open(consumed, "w") as f:
                        secs = self.kcat(bootstrap, kcat_consume + ["-t", "bench_topic"],
                                         stdout=f)
                    with open(consumed) as f:
                        offsets = f.read().split()
                    if len(offsets) != n or offsets[-1] != str(n - 1):
                        raise PeerError(f"kcat -C read {len(offsets)} records up to offset "
                                        f"{offsets[-1] if offsets else None}; expected {n} up to "
                                        f"{n - 1}")
                    kafka_runs.append(dict(tps=1 / secs, txns=1, latency_ms=None))
                    # kcat leaves with a prefetching Fetch parked at the end of the partition;
                    # the listener worker busy-loops over the closed connection until that
                    # Fetch's fetch.wait.max.ms (500 ms) is up: let it finish first
                    time.sleep(W10_SETTLE_S)
                    self.checkpoint()
                    first_runs.append(self.server.pgbench(read, 1, variables, txns=n // batch,
                                                          pgoptions=peer.pgoptions))
                    self.checkpoint()
                    second_runs.append(self.server.pgbench_later_half(
                        read, variables, n // batch, pgoptions=peer.pgoptions))
                os.remove(consumed)
                for label, path, runs, per in (
                        (f"fetch, {batch:,} records per call, to the client (read_client.sql),"
                         " a new connection", "fetch", first_runs, batch),
                        (f"fetch, {batch:,} records per call, to the client (read_client.sql),"
                         " second pass in its connection", "fetch_second_pass", second_runs,
                         batch),
                        ("Kafka Fetch: kcat -C -o beginning", "kafka_consume", kafka_runs,
                         n)):
                    self.record("w10", label, peer, runs, per,
                                dict(common, kind="consume", path=path, label=label))
            except (PeerError, HarnessError) as e:
                self.fail(peer, "w10", e)
            # ---- latency: a Kafka producer at 1,000 records/s, a Kafka consumer (one row
            # per run: a tail percentile is not a median's business)
            try:
                for run in range(self.m["runs"]):
                    if not self.w10_latency(peer, variables, bootstrap, run + 1):
                        break
            except (PeerError, HarnessError) as e:
                self.fail(peer, "w10", e)
            finally:
                self.free_peer(peer, variables)
        shutil.rmtree(gen_dir, ignore_errors=True)

    def w10_latency(self, peer, variables, bootstrap, run):
        """One latency run into a fresh topic; False when it cannot run here."""
        secs = self.m["w10_latency_secs"]
        prog = os.path.join(BENCH, "common", "kafka_latency.py")
        if not have_confluent_kafka():
            self.notes.append(f"workload 10's latency skipped: {KAFKA_PYTHON} cannot import "
                              "confluent_kafka (python3-confluent-kafka)")
            log("  w10 latency skipped: no confluent_kafka")
            return False
        self.setup_peer(peer, variables)
        self.kafka_ready(bootstrap, "bench_topic")
        self.checkpoint()
        try:
            r = subprocess.run([KAFKA_PYTHON, prog, bootstrap, "bench_topic",
                                str(W10_LATENCY_RATE), str(secs)],
                               capture_output=True, text=True, timeout=secs + 180)
        except subprocess.TimeoutExpired:
            raise PeerError(f"kafka_latency.py did not finish within {secs + 180} s")
        if r.returncode != 0:
            raise PeerError(f"kafka_latency.py failed (rc={r.returncode}):\n"
                            f"{(r.stdout + r.stderr)[-2000:]}")
        try:
            res = json.loads(r.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            raise PeerError(f"kafka_latency.py printed no result:\n{r.stdout[-1000:]}"
                            f"{r.stderr[-1000:]}")
        row = dict(workload="w10", config=f"{W10_LATENCY_RATE} records/s, {secs} s, run {run}",
                   peer=peer.name, kind="latency", rate=W10_LATENCY_RATE, secs=secs, run=run,
                   **res)
        self.results.append(row)
        log(f"  w10 {peer.name:<10} latency p50 {fmt_ms(res['p50_ms'])} p99 "
            f"{fmt_ms(res['p99_ms'])} p999 {fmt_ms(res['p999_ms'])} max {fmt_ms(res['max_ms'])}"
            f" ms (acks: p50 {fmt_ms(res['ack_p50_ms'])} p99 {fmt_ms(res['ack_p99_ms'])} ms; "
            f"from the log-append time: p50 {fmt_ms(res['append_p50_ms'])} p99 "
            f"{fmt_ms(res['append_p99_ms'])} ms); "
            f"{res['produced']} produced ({res['achieved_rate']}/s, schedule lag max "
            f"{res['lag_max_ms']} ms), {res['consumed']} consumed")
        if res["missing"] or res["duplicates"] or res["delivery_errors"] or res["undelivered"]:
            raise PeerError(f"Kafka latency: {res['missing']} of {res['produced']} records not "
                            f"received, {res['duplicates']} received twice, "
                            f"{res['delivery_errors']} delivery errors "
                            f"({res['first_errors']}), {res['undelivered']} undelivered")
        return True

    # ---- workload 12: Kafka transactions against idempotent produce
    def w12_produce(self, peer, bootstrap, n, per_txn, txn_id, debug=False):
        """One run of kafka_txn_produce.py into a fresh topic: n records, idempotent
        (per_txn None) or transactional with per_txn records per transaction. Checks that
        the topic holds exactly them; returns the script's result with the WAL bytes."""
        self.setup_peer(peer, {})
        if shutil.which(KCAT):
            self.kafka_ready(bootstrap, "bench_topic")
        self.checkpoint()
        prog = os.path.join(BENCH, "common", "kafka_txn_produce.py")
        cmd = [KAFKA_PYTHON, prog, bootstrap, "bench_topic", str(n)]
        cmd += ["idempotent"] if per_txn is None else ["transactional", str(per_txn), txn_id]
        env = dict(os.environ)
        if debug:
            env["KAFKA_TXN_DEBUG"] = "1"
        lsn0 = self.server.sql("SELECT pg_current_wal_lsn()")
        timeout = 600
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            raise PeerError(f"kafka_txn_produce.py did not finish within {timeout} s")
        wal = int(self.server.sql(f"SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '{lsn0}')"))
        if r.returncode != 0:
            raise PeerError(f"{' '.join(cmd[1:])} failed (rc={r.returncode}):\n"
                            f"{(r.stdout + r.stderr)[-2000:]}")
        try:
            res = json.loads(r.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            raise PeerError(f"kafka_txn_produce.py printed no result:\n{r.stdout[-1000:]}"
                            f"{r.stderr[-1000:]}")
        if res["delivery_errors"] or res["undelivered"]:
            raise PeerError(f"{' '.join(cmd[1:])}: {res['delivery_errors']} delivery errors "
                            f"({res['first_errors']}), {res['undelivered']} undelivered")
        # every record arrived, once: count, key and value bytes, last offset
        got = self.server.psql_file(peer.script("w12_count.sql"))
        want = f"{n} {16 * n} {DEFAULT_SIZE * n} {n - 1}"
        if got != want:
            raise PeerError(f"after {' '.join(cmd[1:])}: bench_topic holds count, key bytes, "
                            f"value bytes, last offset {got}; expected {want}")
        res["wal_per_record"] = wal / n
        return res

    def w12_new_backend(self, peer, nrows):
        """What a new PostgreSQL process costs here: produce_1.sql (one topics.produce per
        transaction, 1 client) in one connection, and with a new connection per transaction
        (pgbench -C). A Kafka transaction's worker is such a process, started per
        transaction."""
        k = self.m["w12_ref_txns"]
        script = peer.script("produce_1.sql")
        variables = dict(nrows=nrows, batch=1, maxlo=nrows, pos=0)
        out = {}
        for name, extra in (("one_connection", []), ("new_connection", ["-C"])):
            self.setup_peer(peer, variables)
            self.checkpoint()
            cmd, env = self.server.pgbench_cmd(script, 1, variables, txns=k,
                                               pgoptions=peer.pgoptions)
            cmd[1:1] = extra
            r = subprocess.run(cmd, capture_output=True, text=True, env=env)
            text = r.stdout + r.stderr
            done = re.search(r"number of transactions actually processed: (\d+)", text)
            lat = re.search(r"latency average = ([0-9.]+) ms", text)
            conn = re.search(r"average connection time = ([0-9.]+) ms", text)
            if r.returncode != 0 or not done or int(done.group(1)) != k or not lat:
                raise PeerError(f"pgbench {' '.join(extra)} produce_1.sql failed "
                                f"(rc={r.returncode}):\n{text[-2000:]}")
            out[name] = dict(txns=k, latency_ms=float(lat.group(1)),
                             connection_ms=float(conn.group(1)) if conn else None)
        return out

    def w12(self, peers):
        """Kafka transactions against idempotent produce: confluent-kafka producers through
        pg_topics' listener, records of 100 B, idempotent (acks=all) and transactional with
        W12_PER_TXN records per transaction; each point into a fresh topic, the points in turn
        within a run. Then, untimed as throughput: one run per transactional point with
        librdkafka's protocol log (each request type's round trip), and produce_1.sql in one
        connection and in a new connection per transaction (what a new process costs)."""
        peers = [p for p in peers if p.script("w12_count.sql")]
        if not peers:
            return
        n, max_txns = self.m["w12_records"], self.m["w12_max_txns"]
        log(f"workload 12: Kafka transactions, {n:,} records of {DEFAULT_SIZE} B per point "
            f"(at most {max_txns:,} transactions): idempotent producer (acks=all) vs "
            f"transactional, {W12_PER_TXN} records per transaction")
        if not have_confluent_kafka():
            self.notes.append(f"workload 12 skipped: {KAFKA_PYTHON} cannot import "
                              "confluent_kafka (python3-confluent-kafka)")
            log("  w12 skipped: no confluent_kafka")
            return
        bootstrap = f"127.0.0.1:{KAFKA_PORT}"
        points = [None] + W12_PER_TXN
        records = {pt: n if pt is None else min(n, max_txns * pt) for pt in points}
        for peer in peers:
            if self.server.sql("SELECT current_setting('pg_topics.kafka_port', true)") \
                    in ("", "0"):
                self.notes.append("workload 12 skipped: no Kafka listener (pg_topics.kafka_port "
                                  "is not a setting of this pg_topics build, or 0)")
                log("  w12 skipped: no Kafka listener (pg_topics.kafka_port)")
                return
            settings = {k: self.server.sql(f"SELECT current_setting('{k}', true)")
                        for k in ("pg_topics.kafka_workers", "pg_topics.kafka_max_transactions",
                                  "max_worker_processes", "synchronous_commit")}
            try:
                runs = {pt: [] for pt in points}
                for run in range(self.m["runs"]):
                    for pt in points:
                        res = self.w12_produce(peer, bootstrap, records[pt], pt,
                                               f"bench-w12-{pt}-{run + 1}")
                        runs[pt].append(res)
                        log(f"  w12 {peer.name:<10} run {run + 1} "
                            f"{'idempotent' if pt is None else f'{pt} per transaction':<18} "
                            f"{records[pt]:>9,} records {res['records_per_s']:>10,.0f} rec/s "
                            f"({res['secs']:.2f} s"
                            + ("" if pt is None else
                               f", {res['transactions']:,} transactions, p50 "
                               f"{res['txn_p50_ms']:.1f} ms, p99 {res['txn_p99_ms']:.1f} ms")
                            + f"), WAL {res['wal_per_record']:.1f} B/record")
                base = statistics.median(r["records_per_s"] for r in runs[None])
                for pt in points:
                    rs = runs[pt]
                    label = ("idempotent producer (acks=all)" if pt is None
                             else f"transactional, {pt:,} record{'s' if pt > 1 else ''} per "
                                  "transaction")
                    extra = dict(kind="idempotent" if pt is None else "transactional",
                                 per_txn=pt, records=records[pt], value_size=DEFAULT_SIZE,
                                 kafka_settings=settings, producer=rs[0]["producer"],
                                 secs=[r["secs"] for r in rs],
                                 wal_per_record=statistics.median(r["wal_per_record"]
                                                                  for r in rs))
                    if pt is not None:
                        extra.update(
                            transactions=rs[0]["transactions"],
                            txn_p50_ms=statistics.median(r["txn_p50_ms"] for r in rs),
                            txn_p99_ms=statistics.median(r["txn_p99_ms"] for r in rs),
                            txn_max_ms=max(r["txn_max_ms"] for r in rs),
                            txn_mean_ms=statistics.median(r["txn_mean_ms"] for r in rs))
                    self.record("w12", label, peer,
                                [dict(tps=r["records_per_s"], txns=r["transactions"])
                                 for r in rs], 1, extra)
                    row = self.results[-1]
                    row["ratio_to_idempotent"] = round(row["records_per_s"] / base, 5)
                # where a transaction's time goes: librdkafka's round trip of each request
                # type, from its protocol log (a run of its own: the log costs client time)
                for pt in self.m.get("w12_diag_points", W12_PER_TXN):
                    k = self.m["w12_diag_txns"] * pt
                    res = self.w12_produce(peer, bootstrap, k, pt, f"bench-w12-{pt}-diag",
                                           debug=True)
                    self.results.append(dict(
                        workload="w12", config=f"round trips, {pt} per transaction",
                        peer=peer.name, kind="rtt", per_txn=pt, records=k,
                        transactions=res["transactions"], txn_mean_ms=res["txn_mean_ms"],
                        txn_p50_ms=res["txn_p50_ms"], rtt=res.get("rtt", {})))
                    log(f"  w12 {peer.name:<10} round trips, {pt} per transaction "
                        f"({res['transactions']} transactions, mean {res['txn_mean_ms']:.1f} "
                        "ms each): " + ", ".join(
                            f"{t} {v['n']}x mean {v['mean_ms']:.1f} ms"
                            for t, v in res.get("rtt", {}).items()))
                # the SQL path's price of a new process, for comparison
                if peer.script("produce_1.sql"):
                    nrows = self.ensure_payload(DEFAULT_SIZE, self.payload_rows(DEFAULT_SIZE,
                                                                                1000))
                    ref = self.w12_new_backend(peer, nrows)
                    self.results.append(dict(workload="w12", config="new backend reference",
                                             peer=peer.name, kind="new_backend", **ref))
                    log(f"  w12 {peer.name:<10} produce_1.sql, 1 record per transaction: "
                        f"{ref['one_connection']['latency_ms']:.2f} ms per transaction in one "
                        f"connection, {ref['new_connection']['latency_ms']:.2f} ms with a new "
                        f"connection each (connecting "
                        f"{ref['new_connection']['connection_ms'] or 0:.2f} ms)")
            except (PeerError, HarnessError) as e:
                self.fail(peer, "w12", e)
            finally:
                self.free_peer(peer, {})

    def w11(self, peers):
        """Log compaction: a keyed log of w11_keys keys x W11_VERSIONS versions of 100 B
        (w11_load.sql, one version per transaction), then topics.compact over it
        (w11_compact.sql, timed) while produce_batch.sql appends to bench_topic; the same
        produce without compaction first. Disk bytes of the compacted topic before and after."""
        keys, versions = self.m["w11_keys"], W11_VERSIONS
        batch = self.m["batch_w2"]
        secs = self.m["w11_secs"]
        log(f"workload 11: log compaction of {keys:,} keys x {versions} versions of 100 B, "
            f"produce ({batch} records per call, 1 client) without and during it")
        nrows = self.ensure_payload(DEFAULT_SIZE, max(keys, self.payload_rows(DEFAULT_SIZE,
                                                                              batch)))
        if nrows < keys:
            raise HarnessError(f"workload 11 needs {keys} payload rows, has {nrows}")
        variables = dict(nrows=nrows, batch=batch, maxlo=nrows - batch + 1, pos=0)
        for peer in peers:
            scripts = [peer.script(f"w11_{x}.sql")
                       for x in ("setup", "load", "compact", "size", "teardown")]
            if not all(scripts) or not peer.script("produce_batch.sql"):
                continue
            setup, load, compact, size, teardown = scripts
            try:
                self.setup_peer(peer, variables)
                # segments of about a 16th of the log (about 130 B a record on disk): the
                # LIVE one, which compaction leaves alone, stays small
                seg_kb = max(keys * versions * 130 // 16 // 1024, 64)
                self.server.psql_file(setup, dict(segment_size=f"{seg_kb}kB"), peer.pgoptions)
                t0 = time.time()
                self.server.pgbench(load, 1, dict(keys=keys), txns=versions,
                                    pgoptions=peer.pgoptions)
                load_secs = time.time() - t0
                self.checkpoint()
                before = [int(x) for x in self.server.psql_file(size).split(",")]
                # produce alone
                alone = self.server.pgbench(peer.script("produce_batch.sql"), 1, variables,
                                            secs=secs, pgoptions=peer.pgoptions)
                self.checkpoint()
                ends, c0, c1, out = self.w11_during(peer, compact, variables, secs)
                removed = int(out.split("\n")[-1])
                # produce while topics.compact ran: the transactions that ended meanwhile
                during = sum(1 for t in ends if c0 <= t <= c1) * batch / (c1 - c0)
                self.checkpoint()
                after = [int(x) for x in self.server.psql_file(size).split(",")]
                row = dict(workload="w11", config=f"{keys:,} keys x {versions} versions",
                           peer=peer.name, keys=keys, versions=versions,
                           records_before=before[2], records_after=after[2],
                           removed=removed, segments_before=before[1],
                           segments_after=after[1], bytes_before=before[0],
                           bytes_after=after[0], load_secs=round(load_secs, 2),
                           compact_secs=round(c1 - c0, 3),
                           compact_records_per_s=round(removed / (c1 - c0)),
                           scanned_records_per_s=round(before[2] / (c1 - c0)),
                           produce_alone=round(alone["tps"] * batch),
                           produce_during=round(during), batch=batch)
                row["produce_ratio"] = round(row["produce_during"] / row["produce_alone"], 3)
                self.results.append(row)
                log(f"  w11 {peer.name:<10} {before[2]:,} records, {before[0]:,} bytes -> "
                    f"{after[2]:,} records, {after[0]:,} bytes; topics.compact removed "
                    f"{removed:,} in {row['compact_secs']} s ({row['compact_records_per_s']:,} "
                    f"removed/s); produce {row['produce_alone']:,} rec/s alone, "
                    f"{row['produce_during']:,} during it")
            except (PeerError, HarnessError, ValueError, IndexError) as e:
                self.fail(peer, "w11", e)
            finally:
                try:
                    self.server.psql_file(teardown, {}, peer.pgoptions)
                except (PeerError, HarnessError):
                    pass
                self.free_peer(peer, variables)

    def w11_during(self, peer, compact, variables, secs):
        """compact run by psql while produce_batch.sql (1 client, each transaction logged)
        runs back to back in runs of secs, from before it starts to after it ends. Returns
        every produce transaction's end time, the compaction's start and end (epoch
        seconds) and psql's output."""
        script = peer.script("produce_batch.sql")
        env = dict(os.environ)
        if peer.pgoptions:
            env["PGOPTIONS"] = peer.pgoptions
        logdir = tempfile.mkdtemp(prefix="pgbench_log")
        outf = tempfile.TemporaryFile(mode="w+")
        ends = []

        def produce(run):
            cmd, penv = self.server.pgbench_cmd(script, 1, variables, secs=secs,
                                                pgoptions=peer.pgoptions)
            cmd[1:1] = ["-l", "--log-prefix", os.path.join(logdir, f"tx{run}")]
            return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    text=True, env=penv)
        try:
            runs = [produce(0)]
            time.sleep(min(0.5, secs / 4))
            c0 = time.time()
            psql = subprocess.Popen([f"{PGBIN}/psql", "-X", "-q", "-At", "-v",
                                     "ON_ERROR_STOP=1", "-f", compact]
                                    + self.server.conn_args(), stdout=outf,
                                    stderr=subprocess.STDOUT, text=True, env=env)
            done = []
            waiter = threading.Thread(target=lambda: (psql.wait(), done.append(time.time())))
            waiter.start()
            while True:
                out, _ = runs[-1].communicate(timeout=secs + 600)
                self.server.pgbench_result(script, runs[-1].returncode, out)
                if done:
                    break
                runs.append(produce(len(runs)))
            waiter.join()
            c1 = done[0]
            outf.seek(0)
            text = outf.read().strip()
            if psql.returncode != 0:
                raise PeerError(f"{os.path.relpath(compact, BENCH)} failed:\n{text[-2000:]}")
            for name in os.listdir(logdir):
                with open(os.path.join(logdir, name)) as f:
                    # client, number, latency (us), script, epoch s, us: the end time
                    ends += [int(line.split()[4]) + int(line.split()[5]) / 1e6 for line in f]
        finally:
            outf.close()
            shutil.rmtree(logdir, ignore_errors=True)
        return ends, c0, c1, text

    # ---- workload 13: 1 kB JSON events, heap against pg_topics stored compressed or not
    def w13(self, peers):
        """1 kB JSON order events (common/json_events.sql, deterministic, made before any
        timing) into the heap and into pg_topics topics of each compression.type of the
        pg_topics peer's w13_compression: produce_batch records/s with 1 and 2 clients; disk
        and WAL bytes per record around a backlog load of a known record count; then over that
        backlog fetch, poll and a SQL scan, each touching every value. A codec the build
        refuses (0A000 at create_topic) is reported as skipped, not failed."""
        peers = [p for p in peers if p.script("w13_setup.sql")]
        if not peers:
            return
        nrows, batch, backlog = self.m["w13_rows"], self.m["w13_batch"], self.m["w13_backlog"]
        log(f"workload 13: 1 kB JSON events, produce_batch ({batch} per call, "
            f"{self.m.get('w13_clients', W13_CLIENTS)} clients), disk and WAL per record over a {backlog:,}-record load, fetch / poll / "
            f"SQL scan of it; peers {[p.name for p in peers]}")
        t0 = time.time()
        stats = self.server.psql_file(os.path.join(BENCH, "common", "json_events.sql"),
                                      dict(nrows=nrows, batch=batch)).split("\n")[-1].split()
        self.checkpoint()
        events = dict(rows=int(stats[0]), jsonb_bytes=float(stats[1]),
                      text_bytes=float(stats[2]), compact_json_bytes=float(stats[3]))
        self.results.append(dict(workload="w13", config="payload", peer=None, kind="payload",
                                 batch=batch, backlog=backlog, **events))
        log(f"  w13 payload: {nrows:,} events generated in {time.time() - t0:.1f}s (untimed): "
            f"jsonb image {events['jsonb_bytes']:.0f} B, as compact JSON "
            f"{events['compact_json_bytes']:.0f} B on average")
        variables = dict(nrows=nrows, batch=batch, nbatches=nrows // batch, pos=0,
                         backlog=backlog)
        for peer in peers:
            variants = [v.strip() for v in peer.conf.get("w13_compression", "").split(",")
                        if v.strip()] or [None]
            for variant in variants:
                name = peer.name if variant is None else f"{peer.name} ({variant})"
                v = dict(variables, compression=variant or "uncompressed")
                try:
                    try:
                        self.setup_w13(peer, v)
                    except PeerError as e:
                        if "0A000" not in str(e):
                            raise
                        reason = next((l for l in str(e).splitlines() if "0A000" in l),
                                      str(e)).split("0A000:", 1)[-1].strip()
                        self.results.append(dict(workload="w13", config="skipped", peer=name,
                                                 peer_base=peer.name, variant=variant,
                                                 kind="skipped", reason=reason))
                        self.notes.append(f"workload 13: {name} skipped: the build refuses it "
                                          f"(0A000: {reason})")
                        log(f"  w13 {name}: skipped, the build refuses it (0A000: {reason})")
                        continue
                    self.w13_peer(peer, name, variant, v)
                except (PeerError, HarnessError) as e:
                    self.fail(peer, "w13", PeerError(f"{name}: {e}"))
                finally:
                    if peer.script("w13_teardown.sql"):
                        try:
                            self.server.psql_file(peer.script("w13_teardown.sql"), v,
                                                  peer.pgoptions)
                            self.checkpoint()
                        except (PeerError, HarnessError):
                            pass

    def setup_w13(self, peer, variables):
        self.server.psql_file(peer.script("w13_setup.sql"), variables, peer.pgoptions)

    def w13_peer(self, peer, name, variant, v):
        batch, backlog = v["batch"], v["backlog"]
        calls = backlog // batch
        who = types.SimpleNamespace(name=name)
        extra = dict(peer_base=peer.name, variant=variant, batch=batch)
        produce = peer.script("w13_produce_batch.sql")
        for clients in self.m.get("w13_clients", W13_CLIENTS):
            runs = []
            for _ in range(self.m["runs"]):
                self.setup_w13(peer, v)
                self.checkpoint()
                runs.append(self.server.pgbench(produce, clients, v,
                                                secs=self.m["produce_secs"],
                                                txns=self.m.get("w13_txns"),
                                                pgoptions=peer.pgoptions))
            self.record("w13", f"produce_batch, {batch} per call, {clients} client(s)", who,
                        runs, batch, dict(extra, kind="produce", clients=clients))
        size_sql = peer.script("w13_size.sql")
        if size_sql:
            # the backlog, a known number of records: disk and WAL bytes per record around it
            stor = []
            for run in range(self.m["runs"]):
                self.setup_w13(peer, v)
                self.checkpoint()
                s0 = int(self.server.psql_file(size_sql))
                d0 = int(self.server.sql("SELECT pg_database_size(current_database())"))
                lsn0 = self.server.sql("SELECT pg_current_wal_lsn()")
                t0 = time.time()
                self.server.pgbench(produce, 1, v, txns=calls, pgoptions=peer.pgoptions)
                secs = time.time() - t0
                wal = int(self.server.sql(
                    f"SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '{lsn0}')"))
                self.checkpoint()
                s1 = int(self.server.psql_file(size_sql))
                d1 = int(self.server.sql("SELECT pg_database_size(current_database())"))
                stor.append(((s1 - s0) / backlog, wal / backlog, (d1 - d0) / backlog, secs))
            row = dict(workload="w13", config=f"{backlog:,} records, {batch} per call",
                       peer=name, kind="storage", records=backlog,
                       disk_per_record=statistics.median(x[0] for x in stor),
                       wal_per_record=statistics.median(x[1] for x in stor),
                       db_per_record=statistics.median(x[2] for x in stor),
                       load_secs=round(statistics.median(x[3] for x in stor), 2), **extra)
            self.results.append(row)
            log(f"  w13 {name:<24} disk {row['disk_per_record']:8.1f} B/record   WAL "
                f"{row['wal_per_record']:8.1f} B/record   (database "
                f"{row['db_per_record']:.1f} B/record; load {row['load_secs']}s)")
            # what autovacuum would have done by now (untimed), as after workload 3's load
            self.vacuum_checkpoint()
        only = self.m.get("w13_reads")
        for key, script_name, label, second, per in W13_READS:
            script = peer.script(f"{script_name}.sql")
            if not script or (only is not None and key not in only):
                continue
            poll = script_name == "w13_poll"
            n = calls if per == "batch" else self.m["w13_scan_reps"]
            runs = []
            for _ in range(self.m["runs"]):
                if poll and peer.script("w13_poll_reset.sql"):
                    self.server.psql_file(peer.script("w13_poll_reset.sql"), v, peer.pgoptions)
                self.checkpoint()
                if second:
                    runs.append(self.server.pgbench_later_half(script, v, n,
                                                               pgoptions=peer.pgoptions))
                else:
                    runs.append(self.server.pgbench(script, 1, v, txns=n,
                                                    pgoptions=peer.pgoptions))
                if poll and peer.script("w13_poll_remaining.sql"):
                    self.expect_drained(peer.script("w13_poll_remaining.sql"), "w13_poll", n,
                                        batch)
            self.record("w13", label, who, runs, batch if per == "batch" else backlog,
                        dict(extra, kind="read", path=script_name, second_pass=second,
                             backlog=backlog))

    def w7(self, peers):
        secs = self.m["w7_secs"]
        log(f"workload 7: end-to-end latency at {W7_RATE} records/s (1 per transaction, "
            f"1 producer), 1 consumer, {secs} s")
        nrows = self.ensure_payload(DEFAULT_SIZE, self.payload_rows(DEFAULT_SIZE, 1000))
        for peer in peers:
            prod, cons = peer.script("latency_produce.sql"), peer.script("latency_consume.sql")
            if not (prod and cons):
                continue
            variables = dict(nrows=nrows, batch=W7_BATCH, maxlo=nrows - W7_BATCH + 1, pos=0)
            try:
                self.setup_peer(peer, variables)
                # the consumers report (offset, latency) pairs as NOTICEs: they write nothing
                self.server.sql(
                    "CREATE OR REPLACE FUNCTION w7_note(t text) RETURNS int LANGUAGE plpgsql "
                    "AS $$BEGIN IF t IS NOT NULL THEN RAISE NOTICE 'w7 %', t; END IF; "
                    "RETURN 1; END$$")
                self.checkpoint()
                ch = self.server.pgbench_start(cons, 1, variables, secs=secs + 2,
                                               pgoptions=peer.pgoptions)
                time.sleep(0.5)        # the consumer is connected and waiting
                try:
                    pr = self.server.pgbench(prod, 1, variables, secs=secs, rate=W7_RATE,
                                             pgoptions=peer.pgoptions)
                finally:
                    cr = self.server.pgbench_wait(ch, timeout=secs + 60)
                lat = {}
                got = 0
                for m in re.finditer(r"NOTICE:\s+w7 (.*)", cr["output"]):
                    for pair in m.group(1).split():
                        o, ms = pair.split(":")
                        lat[int(o)] = float(ms)
                        got += 1
                late_ms = W7_WAIT_S * 1000 * 0.9
                late = sorted((o, ms) for o, ms in lat.items() if ms >= late_ms)
                ms_sorted = sorted(lat.values())
                pct = [percentile(ms_sorted, q) for q in (0.5, 0.99, 0.999)]
                produced = pr["txns"]
                row = dict(workload="w7", config=f"{W7_RATE} records/s, {secs} s", peer=peer.name,
                           rate=W7_RATE, secs=secs, produced=produced, consumed=got,
                           duplicates=got - len(lat), missing=produced - len(lat),
                           achieved_rate=round(pr["tps"], 1), producer_lag_avg_ms=pr["lag_avg_ms"],
                           producer_lag_max_ms=pr["lag_max_ms"],
                           producer_latency_ms=pr["latency_ms"], consumer_calls=cr["txns"],
                           p50_ms=pct[0], p99_ms=pct[1], p999_ms=pct[2],
                           max_ms=ms_sorted[-1] if ms_sorted else None, late=len(late),
                           late_offsets=" ".join(f"{o}:{ms:.1f}" for o, ms in late[:20]) or None,
                           last_offset=max(lat) if lat else None,
                           wait_s=W7_WAIT_S)
                self.results.append(row)
                log(f"  w7 {peer.name:<10} p50 {fmt_ms(row['p50_ms'])} p99 {fmt_ms(row['p99_ms'])}"
                    f" p999 {fmt_ms(row['p999_ms'])} max {fmt_ms(row['max_ms'])} ms; "
                    f"{produced} produced ({pr['tps']:.0f}/s, schedule lag avg "
                    f"{pr['lag_avg_ms']} ms), {got} consumed in {cr['txns']} calls")
                if row["late"]:
                    log(f"  w7 {peer.name:<10} {row['late']} record(s) received only after "
                        f"≥ 90% of the {W7_WAIT_S:g} s wait (offset:ms): {row['late_offsets']}; "
                        f"last offset {row['last_offset']}")
                if row["missing"] or row["duplicates"]:
                    raise PeerError(f"latency consumer: {row['missing']} of {produced} records "
                                    f"not received, {row['duplicates']} received twice")
            except (PeerError, HarnessError) as e:
                self.fail(peer, "w7", e)
            finally:
                self.free_peer(peer, variables)

    # ---- main
    def environment(self):
        cpu = "unknown"
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("model name"):
                        cpu = line.split(":", 1)[1].strip()
                        break
        except OSError:
            pass
        s = self.server
        settings = {}
        for name in REPORT_SETTINGS:
            settings[name] = s.sql(f"SELECT current_setting('{name}')")
        return dict(
            date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            version=s.sql("SELECT version()"), cpu=cpu, ncpu=NCPU,
            kernel=platform.release(), mode=self.mode, runs=self.m["runs"], settings=settings,
            mode_params=self.m, w1_clients=W1_CLIENTS, w2_clients=W2_CLIENTS, w2_sizes=W2_SIZES,
            load_batch=LOAD_BATCH, w4_batch=W4_BATCH, w5_batch=W5_BATCH,
            w5_range_fraction=W5_RANGE_FRACTION, w7_rate=W7_RATE, w7_batch=W7_BATCH,
            w7_wait_s=W7_WAIT_S, w10_latency_rate=W10_LATENCY_RATE, w10_goals=W10_GOALS,
            w12_per_txn=W12_PER_TXN, w13_clients=W13_CLIENTS,
            loadavg=loadavg())

    def run(self):
        t_start = time.time()
        peers = load_peers(self.args.peers)
        preload = []
        for p in peers:
            if p.preload:
                if preloadable(p.preload):
                    if p.preload not in preload:
                        preload.append(p.preload)
                else:
                    p.skip_reason = "skipped (not installed)"
        wanted = set((self.args.workloads or ",".join(ALL_WORKLOADS)).split(","))
        unknown = wanted - set(ALL_WORKLOADS)
        if unknown:
            raise HarnessError(f"unknown workload(s) {sorted(unknown)}; known: {ALL_WORKLOADS}")
        self.server.init(preload, kafka=bool(wanted & KAFKA_WORKLOADS))
        try:
            self.server.start()
        except HarnessError as e:
            if not preload:
                raise
            # a half-built preload library must not take the baseline peers down with it
            log(f"server did not start with shared_preload_libraries={preload}; "
                f"retrying without them\n{e}")
            for p in peers:
                if p.preload in preload:
                    p.skip_reason = "skipped (server does not start with it preloaded)"
            self.server.write_conf([])
            self.server.start()
        self.server.sql(f"CREATE DATABASE {DB}", db="postgres")
        available = set(self.server.sql(
            "SELECT name FROM pg_available_extensions").split("\n"))
        active = []
        for p in peers:
            if not p.skip_reason and p.extension and p.extension not in available:
                p.skip_reason = "skipped (not installed)"
            if p.skip_reason:
                log(f"peer {p.name}: {p.skip_reason}")
            else:
                active.append(p)
        env = self.environment()
        log(f"PostgreSQL: {env['version']}\nCPU: {env['cpu']} x {NCPU}\nmode: {self.mode}, "
            f"runs per point: {self.m['runs']}, peers: {[p.name for p in active]}")
        timings = {}
        for name, run, when in (("w1", self.w1, {"w1"}), ("w3", self.w3_w6, {"w3", "w6"}),
                                ("w2", self.w2, {"w2"}), ("w4", self.w4, {"w4"}),
                                ("w5", self.w5, {"w5"}), ("w7", self.w7, {"w7"}),
                                ("w8", self.w8, {"w8"}), ("w9", self.w9, {"w9"}),
                                ("w10", self.w10, {"w10"}), ("w11", self.w11, {"w11"}),
                                ("w12", self.w12, {"w12"}), ("w13", self.w13, {"w13"})):
            if wanted & when:
                t0 = time.time()
                run(active)
                timings[name] = round(time.time() - t0, 1)
        log("seconds per workload: " + ", ".join(f"{k} {v}" for k, v in timings.items()))
        env["workload_secs"] = timings
        env["elapsed_s"] = round(time.time() - t_start, 1)
        env["notes"] = self.notes
        doc = dict(environment=env, results=self.results, errors=self.errors,
                   peers=[dict(name=p.name, description=p.conf.get("description", ""),
                               skipped=p.skip_reason) for p in peers],
                   todo_workloads=TODO_WORKLOADS)
        os.makedirs(self.args.out, exist_ok=True)
        jpath = os.path.join(self.args.out, "results.json")
        with open(jpath, "w") as f:
            json.dump(doc, f, indent=1)
        import report
        md = report.write_report(doc, self.args.out)
        log(f"wrote {md} and {jpath} in {env['elapsed_s']}s")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--smoke", dest="mode", action="store_const", const="smoke",
                   help="tiny sizes, 1 run: checks the harness works (< 2 minutes)")
    g.add_argument("--quick", dest="mode", action="store_const", const="quick",
                   help="scaled-down sizes, 1 run per point")
    g.add_argument("--full", dest="mode", action="store_const", const="full",
                   help="full sizes, median of 3 runs per point (default)")
    ap.add_argument("--peers", help="comma-separated peers to run (null is always run)")
    ap.add_argument("--workloads", help="comma-separated subset of w1,w2,w3,w4,w5,w7,w8,w9,w10,w11,w12,w13 "
                    "(default all; w3 includes w6)")
    ap.add_argument("--allow-fail", default="",
                    help="comma-separated peers whose script failures are reported but do not "
                    "make the exit status 1 (e.g. pg_topics while its API is incomplete)")
    ap.add_argument("--runs", type=int, help="override runs per point")
    ap.add_argument("--out", help="report directory (default bench/results, "
                    "or bench/.work/smoke for --smoke)")
    ap.add_argument("--workdir", default=os.environ.get("BENCH_WORKDIR",
                                                        os.path.join(BENCH, ".work")))
    ap.set_defaults(mode="full")
    args = ap.parse_args()
    if not args.out:
        args.out = os.path.join(BENCH, ".work", "smoke") if args.mode == "smoke" \
            else os.path.join(BENCH, "results")
    args.workdir = os.path.abspath(args.workdir)
    sys.path.insert(0, BENCH)

    bench = Bench(args)

    def on_signal(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    try:
        bench.run()
    except KeyboardInterrupt:
        log("interrupted")
        return 2
    except (HarnessError, PeerError, subprocess.CalledProcessError, OSError) as e:
        log(f"HARNESS FAILURE: {e}")
        return 2
    finally:
        bench.server.stop()
    if bench.errors:
        log(f"{len(bench.errors)} peer script failure(s): see the report")
        allowed = set(args.allow_fail.split(","))
        if any(e["peer"] not in allowed for e in bench.errors):
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
