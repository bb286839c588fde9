#!/usr/bin/env python3
"""A full disk under a running tournament (docs/operations.md, "A full disk").

The records folder is on a real 300 KiB tmpfs this test mounts (it needs
root; elsewhere it prints SKIP and exits 77, which ctest reports as
skipped). Once the first records are written, a ballast file fills the
filesystem to the last byte while the tournament runs. Then, for `arena
tournament` and for the standalone `referee` (its bots connecting over a
Unix socket):

- it exits 5 (a storage fault) soon, naming what it could not write ("No
  space left on device") and saying how to resume (`--resume`);
- it starts no match after the fault: at most a few matches (those live
  then) fail to be written;
- every record outside .inprogress/ verifies (`arena verify` on each), no
  empty or partial file is left outside .inprogress/ (no temp file of the
  standings, no .part), no empty .part inside it, and the standings and
  manifest still parse;
- with the ballast removed, `--resume` exits 0 and every scheduled match
  is recorded exactly once (the records' match ids are the manifest's
  schedule, 1..N), and `arena verify` passes on the whole folder.

And a disk full before the first record: exit 5, saying to run the same
command again (there is no manifest to resume), which then plays it all.

Usage: full_disk_test.py BIN_DIR. Exit 0 pass, 1 fail, 77 skip.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from small_tmpfs import SmallTmpfs, fill

SKIP = 77
FS_SIZE = "300k"
MATCHES = 48  # a tmpfs page (4 KiB) a record: the whole tournament fits once freed


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


def records_in(folder):
    """The finished records of a folder (not those in .inprogress/)."""
    return sorted(glob.glob(os.path.join(folder, "*.rec")))


def wait_for_records(folder, proc, n, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        if len(records_in(folder)) >= n:
            return
        if proc.poll() is not None:
            raise Fail(f"it ended (exit {proc.returncode}) before {n} records were written: "
                       "the test could not fill the disk under it")
        time.sleep(0.01)
    raise Fail(f"fewer than {n} records after {timeout} s")


def fill_disk(mnt):
    """Fills the filesystem with a ballast file; returns its path."""
    return fill(os.path.join(mnt, "ballast"), 4096)


def check_after_fault(name, bin_dir, rc, out, records, jobs, program):
    check(rc == 5, f"{name}: exit {rc}, expected 5 (a storage fault); output:\n{out[-3000:]}")
    check("No space left on device" in out,
          f"{name}: the message does not say what failed:\n{out[-3000:]}")
    check("--resume" in out, f"{name}: the message does not say how to resume:\n{out[-3000:]}")
    check("record not written whole" in out or "cannot write" in out,
          f"{name}: the message does not name what could not be written:\n{out[-3000:]}")
    # No match started after the fault: only those live then failed.
    failed = out.count("record not written whole")
    check(failed <= 2 * jobs,
          f"{name}: {failed} matches failed to be written; with {jobs} jobs at most "
          f"{2 * jobs} were live when the disk filled: it went on starting matches")
    recs = records_in(records)
    check(len(recs) < MATCHES, f"{name}: all {MATCHES} records written: the disk never filled")
    # Nothing partial outside .inprogress/: every record verifies, no temp
    # file or .part beside them, and the summaries parse.
    for root, dirs, files in os.walk(records):
        for f in files:
            p = os.path.join(root, f)
            inside = os.path.relpath(p, records).startswith(".inprogress")
            if f.endswith(".part"):
                check(inside, f"{name}: {p}: a .part outside .inprogress/")
                check(os.path.getsize(p) > 0, f"{name}: {p}: an empty .part left behind")
            if not inside:
                check(".tmp-" not in f, f"{name}: {p}: a temporary file left behind")
    for rec in recs:  # (one by one: the folder's standings are an older version)
        v = subprocess.run([os.path.join(bin_dir, "arena"), "verify", rec],
                           capture_output=True, text=True)
        check(v.returncode == 0, f"{name}: {rec} does not verify:\n{v.stdout}{v.stderr}")
    with open(os.path.join(records, "manifest.json")) as f:
        json.load(f)
    st = os.path.join(records, "standings.json")
    if os.path.exists(st):
        with open(st) as f:
            json.load(f)  # an earlier version, whole
    print(f"{name}: exit 5 with {len(recs)} of {MATCHES} records, {failed} unwritten "
          f"({program} stopped starting matches)")


def check_resumed(name, bin_dir, rc, out, records):
    check(rc == 0, f"{name}: --resume exited {rc}:\n{out[-3000:]}")
    with open(os.path.join(records, "manifest.json")) as f:
        manifest = json.load(f)
    planned = manifest["matches_planned"]
    check(planned == MATCHES, f"{name}: manifest plans {planned}, expected {MATCHES}")
    tid = manifest["tournament_id"]
    recs = records_in(records)
    got = sorted(os.path.basename(r)[: -len(".rec")] for r in recs)
    want = sorted(f"quasenbo-{tid}-{i:06d}" for i in range(1, planned + 1))
    check(got == want, f"{name}: the records are not the schedule once each: "
          f"{len(got)} records, missing {sorted(set(want) - set(got))[:5]}, "
          f"extra {sorted(set(got) - set(want))[:5]}")
    v = subprocess.run([os.path.join(bin_dir, "arena"), "verify", records],
                       capture_output=True, text=True)
    check(v.returncode == 0, f"{name}: verify after resume:\n{v.stdout[-2000:]}{v.stderr[-2000:]}")
    with open(os.path.join(records, "standings.json")) as f:
        st = json.load(f)
    check(st.get("matches_played") == planned and not st.get("matches_unrecorded"),
          f"{name}: standings after resume: {st.get('matches_played')} played, "
          f"{st.get('matches_unrecorded')} unrecorded")
    print(f"{name}: --resume completed, {planned} of {planned} matches recorded once, verified")


def arena_case(bin_dir, t, mnt):
    records = os.path.join(mnt, "arena")
    jobs = 2
    cmd = [os.path.join(bin_dir, "arena"), "tournament", "--game", "quasenbo", "--seats", "2",
           "--games", str(MATCHES), "--jobs", str(jobs), "--progress=false", "--sandbox", "none",
           "--standings_every", "5", "--secret_file", os.path.join(t, "arena.secret"),
           "--records", records, "--log_file", os.path.join(t, "arena.log")]
    for b in "abc":
        cmd += ["--bot", f"{b}={os.path.join(bin_dir, 'random_bot')}"]
    log = open(os.path.join(t, "arena.out"), "w+")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for_records(records, proc, 8)
        ballast = fill_disk(mnt)
        rc = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    log.seek(0)
    check_after_fault("arena", bin_dir, rc, log.read(), records, jobs, "arena")
    os.remove(ballast)
    r = subprocess.run([os.path.join(bin_dir, "arena"), "tournament", "--resume", records,
                        "--progress=false", "--sandbox", "none"],
                       capture_output=True, text=True, timeout=300)
    check_resumed("arena", bin_dir, r.returncode, r.stdout + r.stderr, records)
    shutil.rmtree(records)  # room for the referee's case on the same filesystem


def full_at_start_case(bin_dir, t, mnt):
    """A disk full before the first record: nothing to resume, so arena says
    to run the same command again, and that command then plays it all."""
    records = os.path.join(mnt, "early")
    cmd = [os.path.join(bin_dir, "arena"), "tournament", "--game", "quasenbo", "--seats", "2",
           "--games", str(MATCHES), "--progress=false", "--sandbox", "none",
           "--secret_file", os.path.join(t, "early.secret"), "--records", records,
           "--bot", f"a={os.path.join(bin_dir, 'random_bot')}",
           "--bot", f"b={os.path.join(bin_dir, 'random_bot')}"]
    ballast = fill_disk(mnt)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    out = r.stdout + r.stderr
    check(r.returncode == 5, f"full at start: exit {r.returncode}, expected 5:\n{out[-2000:]}")
    check("No space left on device" in out and "run the same command again" in out
          and "tournament --resume" not in out,
          f"full at start: the message does not say to run the command again:\n{out[-2000:]}")
    os.remove(ballast)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, f"full at start: run again: exit {r.returncode}:\n"
          f"{(r.stdout + r.stderr)[-2000:]}")
    check(len(records_in(records)) == MATCHES,
          f"full at start: {len(records_in(records))} records after running again")
    print(f"full at start: exit 5, said to run again; run again, {MATCHES} records")
    shutil.rmtree(records)


def referee_case(bin_dir, t, mnt):
    records = os.path.join(mnt, "referee")
    sock = os.path.join(t, "referee.sock")
    jobs = 2
    config = os.path.join(t, "referee.textproto")
    with open(config, "w") as f:
        f.write(f'game: "quasenbo"\nseats: 2\nmatches: {MATCHES}\njobs: {jobs}\n'
                f'records_dir: "{records}"\nsecret_file: "{os.path.join(t, "ref.secret")}"\n'
                'standings_every: 5\nconnect_timeout_ms: 30000\n'
                'bots { name: "a" token: "token-a" }\nbots { name: "b" token: "token-b" }\n')

    def run(extra):
        log = open(os.path.join(t, "referee.out"), "w+")
        ref = subprocess.Popen([os.path.join(bin_dir, "referee"), "--listen", f"unix:{sock}",
                                "--config", config] + extra,
                               stdout=log, stderr=subprocess.STDOUT)
        end = time.time() + 30
        while not os.path.exists(sock) and time.time() < end and ref.poll() is None:
            time.sleep(0.01)
        bots = [subprocess.Popen([os.path.join(bin_dir, "random_bot"), "--address",
                                  f"unix:{sock}", "--token", f"token-{b}"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                for b in "ab"]
        return ref, bots, log

    def stop(ref, bots):
        for p in [ref] + bots:
            if p.poll() is None:
                p.kill()
            p.wait()

    ref, bots, log = run([])
    try:
        wait_for_records(records, ref, 8)
        ballast = fill_disk(mnt)
        rc = ref.wait(timeout=120)
    finally:
        stop(ref, bots)
    log.seek(0)
    out = log.read()
    # The address it names is the socket (not "unix:1", the port gRPC gives
    # a Unix socket, which the referee once put in place of the path).
    check(f"referee listening on unix:{sock}\n" in out,
          f"referee: does not say it listens on unix:{sock}:\n{out[:1500]}")
    check_after_fault("referee", bin_dir, rc, out, records, jobs, "referee")
    os.remove(ballast)
    ref, bots, log = run(["--resume"])
    try:
        rc = ref.wait(timeout=300)
    finally:
        stop(ref, bots)
    log.seek(0)
    check_resumed("referee", bin_dir, rc, log.read(), records)


def main(bin_dir):
    t = tempfile.mkdtemp(prefix="full-disk-")
    os.chmod(t, 0o755)
    mnt = os.path.join(t, "mnt")
    try:
        with SmallTmpfs(mnt, FS_SIZE) as fs:
            if fs.error:
                print(f"SKIP: cannot mount a {FS_SIZE} tmpfs (this test needs root): {fs.error}")
                return SKIP
            for case in (arena_case, full_at_start_case, referee_case):
                try:
                    case(bin_dir, t, mnt)
                except Fail as e:
                    print(f"FAIL: {e}")
                    return 1
            return 0
    finally:
        if os.environ.get("ARENA_KEEP_TEST_DIRS"):
            print(f"kept {t}", file=sys.stderr)
        else:
            shutil.rmtree(t, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
