#!/usr/bin/env python3
"""A chaos soak: contests that run on while their machine fails under them.

Two lanes of contests run at once, each contest a tournament among
deterministic bots (random_bot chooses by match id and decision id, so a
match played again is the same match) with a secret of its own:

  arena lane    `arena tournament`, which starts its bots itself;
  referee lane  the standalone `referee`, whose bots this harness starts
                and which connect over a Unix socket.

Both write their records to a size-limited tmpfs this harness mounts. A
fault injector, from --seed, at random times (exponential gaps, mean
--mean_gap seconds), injects one of five kinds, the kind injected least so
far first:

  arena_kill        kill -9 of arena, then `arena tournament --resume`;
  bot_kill          kill -9 of a bot process (arena restarts its own; this
                    harness restarts the referee lane's, as an operator would);
  bot_stop          SIGSTOP of a bot process, SIGCONT 0.05 to 2.5 s later
                    (the decision time is 1 s: some freezes time out);
  disk_fill         a ballast file fills the tmpfs: every lane that is
                    writing must stop with exit 5 and say how to resume; the
                    ballast is removed and each lane resumes;
  referee_restart   the standalone referee is killed (SIGTERM or SIGKILL)
                    and started again with --resume; its bots reconnect.

When a contest completes, the same contest is played again without faults
(same program, config and secret) into a folder on the ordinary disk, and
the two are compared:

  - every scheduled match is recorded exactly once (the records' match ids
    are the schedule's, 1..N, each once), and `arena verify` passes on the
    chaos folder (every record, and its standings against its records);
  - nothing partial is left outside .inprogress/ (no .part, no temp file);
  - every match that no bot fault touched (no fault, no forfeit, every
    decision the bot's or a forced move, in either run) has the same
    record in both runs, but for wall-clock fields (started_at, think_us,
    header_digest).

At the end it prints the counts (faults by kind, contests, matches,
compared, touched by a fault) and, with --report FILE, writes them as JSON.
Exit 0 if every check held, 1 if one failed (each failure said), 77 if it
cannot mount a tmpfs (it needs root).

Usage: soak.py --bin BUILD/bin [--seconds 180] [--seed 1] [--mean_gap 2.0]
               [--work DIR] [--report FILE] [--keep]
"""
import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from small_tmpfs import SmallTmpfs, fill  # noqa: E402

SKIP = 77
KINDS = ["arena_kill", "bot_kill", "bot_stop", "disk_fill", "referee_restart"]
FS_SIZE = "16m"
ARENA_MATCHES = 240   # 3 bots, 2 seats: whole cycles of duplicate deals
REFEREE_MATCHES = 1200  # 2 bots: a contest long enough to restart its referee
DECISION_MS = 1000


def log(msg):
    print(f"[soak {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def pid_alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def children(pid):
    """Pids of the live processes whose parent is `pid`."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        rest = stat[stat.rfind(")") + 2:].split()
        if len(rest) > 1 and int(rest[1]) == pid and rest[0] != "Z":
            out.append(int(d))
    return out


class Soak:
    def __init__(self, args):
        self.a = args
        self.bin = os.path.abspath(args.bin)
        self.rng = random.Random(args.seed)
        self.counts = collections.Counter()   # faults injected, by kind
        self.failures = []
        self.stats = collections.Counter()
        self.work = args.work
        self.mnt = os.path.join(self.work, "fs")
        self.ballast = os.path.join(self.mnt, "ballast")
        self.stopped = {}       # pid -> time to SIGCONT
        self.pending_refs = []  # (lane, contest, Popen, extra Popen list)
        self.procs = []         # every process started, to end at exit
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        self.comparing = []     # futures of the comparisons
        self.lock = threading.Lock()  # stats and failures, shared with the pool

    # ---- processes -------------------------------------------------------
    def popen(self, cmd, out_path, **kw):
        f = open(out_path, "a")
        start = f.tell()
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, **kw)
        p.out_path = out_path
        p.out_start = start  # this run's output begins here
        f.close()
        self.procs.append(p)
        return p

    def fail(self, what):
        log(f"FAIL: {what}")
        with self.lock:
            self.failures.append(what)

    def count(self, key, n=1):
        with self.lock:
            self.stats[key] += n

    # ---- contests ----------------------------------------------------------
    def secret(self, lane, k):
        h = hashlib.sha256(f"soak-{self.a.seed}-{lane}-{k}".encode()).hexdigest()
        path = os.path.join(self.work, f"{lane}-{k}.secret")
        with open(path, "w") as f:
            f.write(h + "\n")
        os.chmod(path, 0o600)
        return path

    def arena_cmd(self, records, secret):
        cmd = [os.path.join(self.bin, "arena"), "tournament", "--game", "quasenbo",
               "--seats", "2", "--games", str(ARENA_MATCHES), "--jobs", "2",
               "--progress=false", "--sandbox", "none", "--decision_ms", str(DECISION_MS),
               "--max_restarts", "100", "--standings_every", "10",
               "--secret_file", secret, "--records", records]
        for b in "abc":
            cmd += ["--bot", f"{b}={os.path.join(self.bin, 'random_bot')}"]
        return cmd

    def referee_config(self, lane_dir, records, secret, name="config.textproto"):
        path = os.path.join(lane_dir, name)
        with open(path, "w") as f:
            f.write(f'game: "quasenbo"\nseats: 2\nmatches: {REFEREE_MATCHES}\njobs: 2\n'
                    f'records_dir: "{records}"\nsecret_file: "{secret}"\n'
                    f'time_control {{ decision_ms: {DECISION_MS} }}\n'
                    'standings_every: 10\nconnect_timeout_ms: 60000\n'
                    'bots { name: "a" token: "soak-token-a" }\n'
                    'bots { name: "b" token: "soak-token-b" }\n')
        return path

    def start_referee(self, lane, resume):
        sock = lane["sock"]
        if os.path.exists(sock):
            os.remove(sock)  # the last referee's, dead by now
        cmd = [os.path.join(self.bin, "referee"), "--listen", f"unix:{sock}",
               "--config", lane["config"], "--reconnect_grace_ms", "2000"]
        if resume:
            cmd.append("--resume")
        lane["proc"] = self.popen(cmd, lane["out"])
        lane["started"] = time.time()

    def start_referee_bots(self, lane):
        for name in "ab":
            p = lane["bots"].get(name)
            if p is None or p.poll() is not None:
                lane["bots"][name] = self.popen(
                    [os.path.join(self.bin, "random_bot"), "--address", f"unix:{lane['sock']}",
                     "--token", f"soak-token-{name}"],
                    os.path.join(lane["dir"], f"bot-{name}.out"))

    def new_contest(self, lane):
        lane["k"] += 1
        k = lane["k"]
        lane["dir"] = os.path.join(self.work, f"{lane['name']}-{k}")
        os.makedirs(lane["dir"])
        lane["records"] = os.path.join(self.mnt, f"{lane['name']}-{k}")
        lane["secret"] = self.secret(lane["name"], k)
        lane["out"] = os.path.join(lane["dir"], "run.out")
        lane["resumes"] = 0
        if lane["name"] == "arena":
            lane["proc"] = self.popen(self.arena_cmd(lane["records"], lane["secret"]), lane["out"])
            lane["started"] = time.time()
        else:
            lane["sock"] = os.path.join(self.work, f"ref-{k}.sock")
            lane["config"] = self.referee_config(lane["dir"], lane["records"], lane["secret"])
            self.start_referee(lane, resume=False)
            # Its bots once it listens (else gRPC's own back-off delays them).
            end = time.time() + 10
            while not os.path.exists(lane["sock"]) and time.time() < end and self.running(lane):
                time.sleep(0.01)
            lane["bots"] = {}
            self.start_referee_bots(lane)
        lane["waiting_space"] = False

    def resume(self, lane):
        lane["resumes"] += 1
        if not self.has_manifest(lane):
            # Stopped before its manifest was written (a full disk at its
            # start): nothing is recorded, it starts again as it first did.
            self.count("restarted_before_manifest")
            if lane["name"] == "arena":
                lane["proc"] = self.popen(self.arena_cmd(lane["records"], lane["secret"]),
                                          lane["out"])
                lane["started"] = time.time()
            else:
                self.start_referee(lane, resume=False)
                self.start_referee_bots(lane)
            return
        if lane["name"] == "arena":
            lane["proc"] = self.popen(
                [os.path.join(self.bin, "arena"), "tournament", "--resume", lane["records"],
                 "--progress=false", "--sandbox", "none"], lane["out"])
            lane["started"] = time.time()
        else:
            self.start_referee(lane, resume=True)
            self.start_referee_bots(lane)

    def has_manifest(self, lane):
        return os.path.exists(os.path.join(lane["records"], "manifest.json"))

    def running(self, lane):
        return lane["proc"] is not None and lane["proc"].poll() is None

    # ---- the end of a run ----------------------------------------------------
    def on_exit(self, lane):
        p = lane["proc"]
        rc = p.returncode
        lane["proc"] = None
        if lane.get("killed"):
            lane["killed"] = False
            if os.path.exists(self.ballast):
                lane["waiting_space"] = True  # resumed when the disk is freed
                return
            return self.resume(lane)
        if rc == 5:
            with open(p.out_path) as f:
                f.seek(p.out_start)
                text = f.read()
            if "--resume" not in text or "cannot" not in text:
                self.fail(f"{lane['name']} contest {lane['k']}: exit 5 without saying what "
                          f"failed and how to resume (see {p.out_path})")
            self.count("storage_stops")
            if not os.path.exists(self.ballast):
                # The fill was over before it stopped: resume at once.
                return self.resume(lane)
            lane["waiting_space"] = True
            return
        if rc in (0, 1):
            return self.finish_contest(lane, ok=True)
        self.fail(f"{lane['name']} contest {lane['k']}: exit {rc} (see {p.out_path})")
        self.finish_contest(lane, ok=False)

    def finish_contest(self, lane, ok):
        if lane["name"] == "referee":
            for b in lane["bots"].values():
                if b.poll() is None:
                    b.kill()
                b.wait()
        self.count(f"{lane['name']}_contests")
        if ok:
            # Off the tmpfs (space for the next contest), then the fault-free run.
            chaos = os.path.join(lane["dir"], "chaos")
            shutil.move(lane["records"], chaos)
            self.start_reference(lane, chaos)
        if time.time() < self.end:
            self.new_contest(lane)
        else:
            lane["done"] = True

    def start_reference(self, lane, chaos):
        ref = os.path.join(lane["dir"], "reference")
        out = os.path.join(lane["dir"], "reference.out")
        extra = []
        if lane["name"] == "arena":
            p = self.popen(self.arena_cmd(ref, lane["secret"]), out)
        else:
            sock = os.path.join(self.work, f"refx-{lane['k']}.sock")
            cfg = self.referee_config(lane["dir"], ref, lane["secret"], "reference.textproto")
            p = self.popen([os.path.join(self.bin, "referee"), "--listen", f"unix:{sock}",
                            "--config", cfg], out)
            for name in "ab":
                extra.append(self.popen(
                    [os.path.join(self.bin, "random_bot"), "--address", f"unix:{sock}",
                     "--token", f"soak-token-{name}"], os.path.join(lane["dir"], "refbots.out")))
        self.pending_refs.append((lane["name"], lane["k"], chaos, ref, p, extra))

    # ---- comparing ----------------------------------------------------------
    def compare_and_clean(self, lane, k, chaos, ref):
        try:
            self.compare(lane, k, chaos, ref)
        except Exception as e:  # a record that does not read, say
            self.fail(f"{lane} contest {k}: cannot compare: {e!r}")
        if not self.a.keep:
            shutil.rmtree(os.path.join(self.work, f"{lane}-{k}"), ignore_errors=True)

    def records_of(self, folder):
        """{match_id: [stripped lines]} of the records in `folder`."""
        files = sorted(f for f in os.listdir(folder) if f.endswith(".rec"))
        out = {}
        for i in range(0, len(files), 200):
            chunk = [os.path.join(folder, f) for f in files[i:i + 200]]
            r = subprocess.run([os.path.join(self.bin, "arena"), "cat"] + chunk,
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError(f"arena cat {folder}: {r.stderr[-500:]}")
            cur = None
            for line in r.stdout.splitlines():
                d = json.loads(line)
                if "header" in d:
                    d["header"].pop("started_at", None)
                    cur = d["header"]["match_id"]
                    out[cur] = []
                if "result" in d:
                    d["result"].pop("header_digest", None)
                out[cur].append(strip(d))
        return out, files

    def compare(self, lane, k, chaos, ref):
        name = f"{lane} contest {k}"
        with open(os.path.join(chaos, "manifest.json")) as f:
            manifest = json.load(f)
        planned = manifest["matches_planned"]
        tid = manifest["tournament_id"]
        want = {f"quasenbo-{tid}-{i:06d}" for i in range(1, planned + 1)}
        v = subprocess.run([os.path.join(self.bin, "arena"), "verify", chaos],
                           capture_output=True, text=True)
        if v.returncode != 0:
            self.fail(f"{name}: arena verify: {(v.stdout + v.stderr)[-800:]}")
        for root, _, files in os.walk(chaos):
            for f in files:
                rel = os.path.relpath(os.path.join(root, f), chaos)
                inside = rel.startswith(".inprogress") or rel.startswith(".rejected")
                if not inside and (f.endswith(".part") or ".tmp-" in f):
                    self.fail(f"{name}: {rel}: a partial file outside .inprogress/")
        got, files = self.records_of(chaos)
        if sorted(got) != sorted(want) or len(files) != planned:
            self.fail(f"{name}: {len(files)} records for {planned} scheduled matches; "
                      f"missing {sorted(want - set(got))[:3]}, extra {sorted(set(got) - want)[:3]}")
        refs, _ = self.records_of(ref)
        differ = 0
        for mid in sorted(want & set(got)):
            self.count("matches")
            c, r = got[mid], refs.get(mid)
            if r is None:
                self.fail(f"{name}: {mid}: no record in the fault-free run")
                continue
            if touched(c) or touched(r):
                self.count("touched_by_a_fault")
                continue
            self.count("compared")
            if c != r:
                self.count("differing")
                differ += 1
                if differ <= 5:  # the first few, with where they part
                    at = next((i for i, (x, y) in enumerate(zip(c, r)) if x != y),
                              min(len(c), len(r)))
                    self.fail(f"{name}: {mid}: untouched by any fault, but its record differs "
                              f"from the fault-free run's from line {at + 1}: "
                              f"{json.dumps(c[at] if at < len(c) else None)[:300]} vs "
                              f"{json.dumps(r[at] if at < len(r) else None)[:300]}")
        if differ > 5:
            self.fail(f"{name}: {differ - 5} more matches differ")
        self.count("contests_checked")

    # ---- faults ---------------------------------------------------------------
    def bots_of(self, lanes):
        out = []
        for lane in lanes:
            if not self.running(lane):
                continue
            if lane["name"] == "arena":
                out += children(lane["proc"].pid)
            else:
                out += [b.pid for b in lane["bots"].values() if b.poll() is None]
        return [p for p in out if p not in self.stopped]

    def inject(self, lanes):
        arena, ref = lanes
        eligible = []
        bots = self.bots_of(lanes)
        if self.running(arena) and self.has_manifest(arena):
            eligible.append("arena_kill")
        if bots:
            eligible += ["bot_kill", "bot_stop"]
        if not os.path.exists(self.ballast) and any(self.running(l) for l in lanes):
            eligible.append("disk_fill")
        if self.running(ref) and self.has_manifest(ref):
            eligible.append("referee_restart")
        # The kinds injected least so far; one that cannot be injected now
        # (its lane between runs) is waited for, up to 5 s, before another.
        least = min(self.counts[k] for k in KINDS)
        wanted = [k for k in KINDS if self.counts[k] == least and k in eligible]
        if not wanted:
            if time.time() - self.due < 5 or not eligible:
                return False
            least = min(self.counts[k] for k in eligible)
            wanted = [k for k in eligible if self.counts[k] == least]
        kind = self.rng.choice(wanted)
        self.counts[kind] += 1
        if self.a.verbose:
            log(f"inject {kind} (eligible {eligible}, {time.time() - self.due:.1f} s late)")
        if kind == "arena_kill":
            arena["killed"] = True
            arena["proc"].send_signal(signal.SIGKILL)
        elif kind == "referee_restart":
            ref["killed"] = True
            ref["proc"].send_signal(self.rng.choice([signal.SIGTERM, signal.SIGKILL]))
        elif kind == "bot_kill":
            try:
                os.kill(self.rng.choice(bots), signal.SIGKILL)
            except OSError:
                pass
        elif kind == "bot_stop":
            pid = self.rng.choice(bots)
            try:
                os.kill(pid, signal.SIGSTOP)
                self.stopped[pid] = time.time() + self.rng.uniform(0.05, 2.5)
            except OSError:
                pass
        elif kind == "disk_fill":
            self.fill_started = time.time()
            fill(self.ballast)
        return True

    def tick_disk(self, lanes):
        """Frees the ballast once every lane it stopped has stopped."""
        if not os.path.exists(self.ballast):
            return
        busy = [l for l in lanes if self.running(l) and not l.get("killed")]
        waited = time.time() - self.fill_started
        if busy and waited < 60:
            return
        for l in busy:
            self.fail(f"{l['name']} contest {l['k']}: still running {waited:.0f} s after the "
                      "disk filled")
        os.remove(self.ballast)
        self.count("disk_freed_after_ms_total", int(waited * 1000))
        for l in lanes:
            if l.get("waiting_space"):
                l["waiting_space"] = False
                self.resume(l)

    def run(self):
        self.end = time.time() + self.a.seconds
        lanes = [{"name": "arena", "k": 0, "proc": None},
                 {"name": "referee", "k": 0, "proc": None}]
        for lane in lanes:
            self.new_contest(lane)
        next_fault = time.time() + self.rng.expovariate(1 / self.a.mean_gap)
        while True:
            now = time.time()
            for pid, when in list(self.stopped.items()):
                if now >= when:
                    try:
                        os.kill(pid, signal.SIGCONT)
                    except OSError:
                        pass
                    del self.stopped[pid]
            for lane in lanes:
                if lane["proc"] is not None and lane["proc"].poll() is not None:
                    self.on_exit(lane)
                if lane["name"] == "referee" and self.running(lane):
                    # An operator restarts a bot that was killed or gave up.
                    self.start_referee_bots(lane)
            self.tick_disk(lanes)
            for item in list(self.pending_refs):
                lane, k, chaos, ref, p, extra = item
                if p.poll() is None:
                    continue
                for e in extra:
                    if e.poll() is None:
                        e.kill()
                    e.wait()
                self.pending_refs.remove(item)
                if p.returncode not in (0, 1):
                    self.fail(f"{lane} contest {k}: the fault-free run exited {p.returncode}")
                    continue
                # On a thread of its own: the injector does not wait for it.
                self.comparing.append(self.pool.submit(self.compare_and_clean, lane, k, chaos, ref))
            if now >= self.end:
                # No fault after the end; contests running then finish.
                for lane in lanes:
                    if not lane.get("done") and lane["proc"] is None and \
                            not lane.get("waiting_space"):
                        lane["done"] = True
                if all(l.get("done") for l in lanes) and not self.pending_refs:
                    for c in self.comparing:
                        c.result()
                    break
                if now > self.end + 600:
                    self.fail("contests still running 10 minutes after the end")
                    break
            elif now >= next_fault:
                self.due = next_fault
                if self.inject(lanes):
                    next_fault = now + self.rng.expovariate(1 / self.a.mean_gap)
            time.sleep(0.02)

    def cleanup(self):
        self.pool.shutdown(wait=False, cancel_futures=True)
        for pid in list(self.stopped):
            try:
                os.kill(pid, signal.SIGCONT)
            except OSError:
                pass
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k != "think_us"}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


def touched(lines):
    """Whether a bot fault touched this match (a fault, a forfeit, a move
    the referee made for a bot that was not its only one)."""
    for d in lines:
        if "forfeit" in d:
            return True
        res = d.get("result")
        if res is not None and res.get("forfeit_seat", -1) != -1:
            return True
        for a in d.get("decision", {}).get("actions", []):
            if "fault" in a or a.get("source", "SOURCE_BOT") not in (
                    "SOURCE_BOT", "SOURCE_REFEREE_ONLY_MOVE"):
                return True
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--seconds", type=float, default=180)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mean_gap", type=float, default=2.0)
    ap.add_argument("--work", default="")
    ap.add_argument("--report", default="")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--verbose", action="store_true", help="log each fault injected")
    a = ap.parse_args()
    own_work = not a.work
    if own_work:
        a.work = tempfile.mkdtemp(prefix="soak-")
    os.makedirs(a.work, exist_ok=True)
    os.chmod(a.work, 0o755)
    soak = Soak(a)
    t0 = time.time()
    try:
        with SmallTmpfs(soak.mnt, FS_SIZE) as fs:
            if fs.error:
                print(f"SKIP: cannot mount a tmpfs (the soak needs root): {fs.error}")
                return SKIP
            try:
                soak.run()
            except Exception as e:
                soak.fail(f"the harness itself failed: {e!r}")
            finally:
                soak.cleanup()
    finally:
        if own_work and not a.keep:
            shutil.rmtree(a.work, ignore_errors=True)
    report = {"seconds": round(time.time() - t0), "seed": a.seed, "mean_gap": a.mean_gap,
              "faults": {k: soak.counts[k] for k in KINDS}, **dict(soak.stats),
              "failures": soak.failures}
    print(json.dumps(report, indent=1))
    if a.report:
        with open(a.report, "w") as f:
            json.dump(report, f, indent=1)
    if soak.failures:
        print(f"FAIL: {len(soak.failures)} checks failed")
        return 1
    print("soak: every check held")
    return 0


if __name__ == "__main__":
    sys.exit(main())
