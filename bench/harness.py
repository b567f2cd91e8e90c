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
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
PEERS_DIR = os.path.join(BENCH, "peers")
PGBIN = os.environ.get("PGBIN", "/usr/lib/postgresql/15/bin")
PORT = int(os.environ.get("BENCH_PORT", "55432"))
SERVER_USER = os.environ.get("BENCH_OS_USER", "pgbench")   # only used when running as root
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
REPORT_SETTINGS = ["server_version", "shared_buffers", "fsync", "synchronous_commit",
                   "full_page_writes", "wal_level", "wal_buffers", "wal_compression",
                   "max_wal_size", "checkpoint_timeout", "autovacuum", "jit", "work_mem",
                   "huge_pages", "shared_preload_libraries"]

# Sizes per mode. produce_secs=None means "use produce_txns transactions per client".
MODES = {
    "smoke": dict(runs=1, produce_secs=None, produce_txns_1=100, produce_txns_batch=2,
                  batch_w2=100, batch_w3=1000, backlog=20000, payload_rows_max=5000,
                  payload_bytes_max=20_000_000),
    "quick": dict(runs=1, produce_secs=2, batch_w2=1000, batch_w3=1000, backlog=200_000,
                  payload_rows_max=100_000, payload_bytes_max=200_000_000),
    "full": dict(runs=3, produce_secs=5, batch_w2=1000, batch_w3=1000, backlog=1_000_000,
                 payload_rows_max=100_000, payload_bytes_max=200_000_000),
}
W1_CLIENTS = 4
W2_CLIENTS = [1, 2]
W2_SIZES = [100, 10, 1000, 10_000, 100_000]   # 100 B first: its payload is shared with W1/W3
DEFAULT_SIZE = 100

# Workloads 4, 5, 7, 8 are pg_topics-specific and not defined yet: see README "TODO workloads".
TODO_WORKLOADS = {
    "w4": "TODO (pg_topics-specific, not implemented)",
    "w5": "TODO (pg_topics-specific, not implemented)",
    "w7": "TODO (pg_topics-specific, not implemented)",
    "w8": "TODO (pg_topics-specific, not implemented)",
}


def log(msg):
    print(msg, flush=True)


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

    def init(self, preload):
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
        self.write_conf(preload)

    def write_conf(self, preload):
        conf = dict(SETTINGS)
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

    def pgbench(self, script, clients, variables, secs=None, txns=None, pgoptions=None):
        cmd = [f"{PGBIN}/pgbench", "-n", "-M", "prepared", "-c", str(clients),
               "-j", str(min(clients, NCPU)), "-f", script]
        cmd += ["-T", str(secs)] if secs else ["-t", str(txns)]
        for k, v in variables.items():
            cmd += ["-D", f"{k}={v}"]
        cmd += ["-h", self.sockdir, "-p", str(PORT), "-U", DBUSER, DB]
        env = dict(os.environ)
        if pgoptions:
            env["PGOPTIONS"] = pgoptions
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        out = r.stdout + r.stderr
        tps = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", out)
        done = re.search(r"number of transactions actually processed: (\d+)", out)
        failed = re.search(r"number of failed transactions: (\d+)", out)
        lat = re.search(r"latency average = ([0-9.]+) ms", out)
        if r.returncode != 0 or not tps or not done or (failed and int(failed.group(1)) > 0) \
                or int(done.group(1)) == 0:
            errs = "\n".join(l for l in out.splitlines()
                             if "ERROR" in l or "error" in l or "FATAL" in l)[:2000]
            raise PeerError(f"pgbench {os.path.relpath(script, BENCH)} failed "
                            f"(rc={r.returncode}):\n{errs or out[-2000:]}")
        return dict(tps=float(tps.group(1)), txns=int(done.group(1)),
                    latency_ms=float(lat.group(1)) if lat else None)


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
    first = ["null", "heap", "pgq", "pg_topics"]
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

    # ---- helpers
    def payload_rows(self, size, batch):
        rows = min(self.m["payload_rows_max"], max(1, self.m["payload_bytes_max"] // size))
        return max(rows, 2 * batch)

    def ensure_payload(self, size, nrows):
        if self.payload and self.payload[0] == size and self.payload[1] >= nrows:
            return self.payload[1]
        t0 = time.time()
        self.server.psql_file(os.path.join(BENCH, "common", "payload.sql"),
                              {"value_size": size, "nrows": nrows})
        self.server.sql("CHECKPOINT")
        self.payload = (size, nrows)
        log(f"  payload: {nrows} rows x {size} B generated in {time.time() - t0:.1f}s (untimed)")
        return nrows

    def checkpoint(self):
        self.server.sql("CHECKPOINT")

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
                if not script:
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
        nrows = self.ensure_payload(DEFAULT_SIZE, self.payload_rows(DEFAULT_SIZE, batch))
        variables = dict(nrows=nrows, batch=batch, maxlo=nrows - batch + 1, pos=0)
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
            for where in ("server", "client"):
                script = peer.script(f"consume_{where}.sql")
                if not script:
                    continue
                try:
                    runs = []
                    for _ in range(self.m["runs"]):
                        if peer.script("consume_reset.sql"):
                            self.server.psql_file(peer.script("consume_reset.sql"), variables,
                                                  peer.pgoptions)
                        self.checkpoint()
                        runs.append(self.server.pgbench(script, 1, variables, txns=calls,
                                                        pgoptions=peer.pgoptions))
                        if peer.script("consume_remaining.sql"):
                            left = self.server.psql_file(peer.script("consume_remaining.sql"))
                            if left not in ("0", ""):
                                raise PeerError(f"consume_{where}: {left} records left after "
                                                f"{calls} calls of {batch} (expected 0)")
                    label = "server side (count(*))" if where == "server" else "to the client"
                    self.record("w3", label, peer, runs, batch,
                                dict(batch=batch, backlog=backlog, value_size=DEFAULT_SIZE))
                except PeerError as e:
                    self.fail(peer, "w3", e)
            try:
                self.setup_peer(peer, variables)   # free the backlog
            except PeerError:
                pass

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
            mode_params=self.m, w1_clients=W1_CLIENTS, w2_clients=W2_CLIENTS, w2_sizes=W2_SIZES)

    def run(self):
        t_start = time.time()
        peers = load_peers(self.args.peers)
        preload = []
        for p in peers:
            if p.preload:
                if preloadable(p.preload):
                    preload.append(p.preload)
                else:
                    p.skip_reason = "skipped (not installed)"
        self.server.init(preload)
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
        wanted = set((self.args.workloads or "w1,w2,w3").split(","))
        if "w1" in wanted:
            self.w1(active)
        if "w3" in wanted or "w6" in wanted:
            self.w3_w6(active)
        if "w2" in wanted:
            self.w2(active)
        env["elapsed_s"] = round(time.time() - t_start, 1)
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
    ap.add_argument("--workloads", help="comma-separated subset of w1,w2,w3 (w3 includes w6)")
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
