"""SIGINT and SIGTERM to a running `arena tournament` (and `arena gate`).

Each case starts a tournament of two random bots, sandboxed (bubblewrap, the
default) or not (--sandbox none), with a TMPDIR of its own (0755), and sends
the signal once matches are being played. Then (docs/operations.md, "Stopped
by SIGINT or SIGTERM"):

- arena exits 128 + the signal (130, 143);
- its stderr names what was recorded ("N of M matches are recorded in DIR")
  and the exact command that finishes the run;
- TMPDIR is empty (no arena-run-* socket folder);
- no process of the run is left: none of the processes descended from arena
  just before the signal (bots, bwrap and what runs inside) is still there,
  and no process names the run's TMPDIR, records folder or marker in its
  command line or environment;
- the printed command, run as printed, completes the tournament; its
  progress starts at the matches already recorded; `arena verify` passes on
  the records; TMPDIR is empty again.

A gate stopped by SIGTERM: exit 143, no verdict said, TMPDIR empty, no
process left.

Usage: stop_signal_test.py BIN_DIR
"""
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

GAMES = 1000
JOBS = 2
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what, flush=True)
    return cond


def proc_stat(pid):
    """(ppid, state, starttime) of pid, or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except OSError:
        return None
    rest = stat[stat.rfind(")") + 2:].split()
    return int(rest[1]), rest[0], rest[19]


def all_pids():
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def descendants(root):
    """{pid: starttime} of every living process below root."""
    children = {}
    for pid in all_pids():
        st = proc_stat(pid)
        if st is not None:
            children.setdefault(st[0], []).append(pid)
    out, queue = {}, [root]
    while queue:
        for c in children.get(queue.pop(), []):
            st = proc_stat(c)
            if st is not None and st[1] != "Z":
                out[c] = st[2]
                queue.append(c)
    return out


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def leftovers(before, needles):
    """Processes of the run still there: from `before` (same start time),
    or naming one of `needles` in their command line or environment."""
    left = []
    for pid, start in before.items():
        st = proc_stat(pid)
        if st is not None and st[1] != "Z" and st[2] == start:
            left.append("%d %s" % (pid, read("/proc/%d/cmdline" % pid)))
    me = os.getpid()
    for pid in all_pids():
        if pid == me or pid in before:
            continue
        st = proc_stat(pid)
        if st is None or st[1] == "Z":
            continue
        text = read("/proc/%d/cmdline" % pid) + read("/proc/%d/environ" % pid)
        if any(n in text for n in needles):
            left.append("%d %s" % (pid, read("/proc/%d/cmdline" % pid)))
    return left


def wait_for(pattern, path, timeout, proc):
    deadline = time.time() + timeout
    while time.time() < deadline:
        m = re.search(pattern, read(path))
        if m:
            return m
        if proc.poll() is not None:
            return None
        time.sleep(0.05)
    return None


def record_count(records):
    return sum(1 for n in os.listdir(records)
               if n.endswith((".rec", ".jsonl", ".jsonl.zst"))
               and os.path.isfile(os.path.join(records, n)))


def play_case(arena, bot, sig, sandboxed, gate, tmp, work):
    name = "%s %s%s" % ("gate" if gate else "tournament", signal.Signals(sig).name,
                        "" if sandboxed else " --sandbox none")
    print("== " + name, flush=True)
    records = os.path.join(work, "out")
    marker = "ARENA_STOP_TEST_" + uuid.uuid4().hex
    env = dict(os.environ, TMPDIR=tmp, ARENA_STOP_TEST_MARKER=marker)
    if gate:
        # Random against random with a 1-Elo gap to decide: it runs long.
        cmd = [arena, "gate", "--game", "quasenbo", "--candidate", "a=" + bot,
               "--baseline", "b=" + bot, "--elo0", "0", "--elo1", "1",
               "--max_games", "100000", "--jobs", str(JOBS), "--records", records]
    else:
        cmd = [arena, "tournament", "--game", "quasenbo", "--games", str(GAMES),
               "--jobs", str(JOBS), "--records", records,
               "--secret_file", os.path.join(work, "secret"),
               "--bot", "a=" + bot, "--bot", "b=" + bot]
    if not sandboxed:
        cmd.append("--sandbox=none")
    err_path = os.path.join(work, "stderr")
    with open(err_path, "w") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=env)
    try:
        if gate:
            started = wait_for(r"started bot b", err_path, 120, proc)
            deadline = time.time() + 120
            while time.time() < deadline and proc.poll() is None and (
                    not os.path.isdir(records) or record_count(records) < 20):
                time.sleep(0.05)
            started = started and record_count(records) >= 20
        else:
            # Matches are being played: the first tenth is recorded.
            started = wait_for(r"\[quasenbo\] \d+/%d matches" % GAMES, err_path, 120, proc)
        if not check(started and proc.poll() is None, name + ": the run got going"):
            print(read(err_path)[-3000:])
            return
        before = descendants(proc.pid)
        check(sum("random_bot" in read("/proc/%d/cmdline" % p) for p in before) >= 2,
              name + ": two bot processes run before the signal")
        if sandboxed:
            check(any("bwrap" in read("/proc/%d/cmdline" % p) for p in before),
                  name + ": the bots run in bubblewrap")
        os.kill(proc.pid, sig)
        rc = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = read(err_path)
    check(rc == 128 + sig, "%s: exit %s, expected %d" % (name, rc, 128 + sig))
    check(os.listdir(tmp) == [], "%s: TMPDIR is left with %s" % (name, os.listdir(tmp)))
    left = leftovers(before, [marker, tmp, records])
    check(not left, "%s: processes left behind: %s" % (name, left))
    m = re.search(r"arena: stopped by %s: (\d+)(?: of (\d+))? matches are recorded in (\S+), "
                  % signal.Signals(sig).name, err)
    if not check(m is not None, name + ": says what was recorded"):
        print(err[-3000:])
        return
    said = int(m.group(1))
    on_disk = record_count(records)
    check(m.group(3) == records, name + ": names the records folder")
    # A match whose last answer was in flight may land as arena exits.
    check(said <= on_disk <= said + JOBS,
          "%s: said %d recorded, %d on disk" % (name, said, on_disk))
    if gate:
        check("no verdict; a gate is not resumed" in err, name + ": says no verdict")
        return
    check(m.group(2) == str(GAMES), name + ": of the matches planned")
    check(0 < on_disk < GAMES, "%s: stopped mid-run (%d recorded)" % (name, on_disk))
    r = re.search(r"arena: to finish the tournament, run: (.*) \(it plays only", err)
    if not check(r is not None, name + ": prints the --resume command"):
        print(err[-3000:])
        return
    resume = shlex.split(r.group(1))
    expected = [arena, "tournament", "--resume", records]
    if not sandboxed:
        expected.append("--sandbox=none")
    check(resume == expected, "%s: resume command %s, expected %s" % (name, resume, expected))
    resumed = subprocess.run(resume, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, timeout=600)
    check(resumed.returncode == 0, "%s: the resumed run exits %d: %s" %
          (name, resumed.returncode, resumed.stderr[-2000:]))
    progress = re.findall(r"\[quasenbo\] (\d+)/(\d+) matches", resumed.stderr)
    check(progress and progress[0] == (str(on_disk), str(GAMES)),
          "%s: the resumed run's progress starts at %s, expected %d/%d" %
          (name, progress[:1], on_disk, GAMES))
    check(record_count(records) == GAMES, name + ": every match recorded after the resume")
    verify = subprocess.run([arena, "verify", records], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=600)
    check(verify.returncode == 0, "%s: arena verify: %s" % (name, verify.stdout[-2000:]))
    check(os.listdir(tmp) == [], "%s: TMPDIR after the resume: %s" % (name, os.listdir(tmp)))


def run_case(arena, bot, sig, sandboxed, gate=False):
    tmp = tempfile.mkdtemp(prefix="stop_signal_tmp_")
    os.chmod(tmp, 0o755)
    work = tempfile.mkdtemp(prefix="stop_signal_")
    failed_before = len(failures)
    try:
        play_case(arena, bot, sig, sandboxed, gate, tmp, work)
    finally:
        if len(failures) == failed_before and not os.environ.get("ARENA_KEEP_TEST_DIRS"):
            shutil.rmtree(work, ignore_errors=True)
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("kept " + work + " and " + tmp, file=sys.stderr)


def main():
    bin_dir = sys.argv[1]
    arena = os.path.abspath(os.path.join(bin_dir, "arena"))
    bot = os.path.abspath(os.path.join(bin_dir, "random_bot"))
    sandbox = shutil.which("bwrap") is not None
    if not sandbox:
        print("bubblewrap is missing: only unsandboxed bots are tried")
    for sig in (signal.SIGINT, signal.SIGTERM):
        if sandbox:
            run_case(arena, bot, sig, sandboxed=True)
        run_case(arena, bot, sig, sandboxed=False)
    run_case(arena, bot, signal.SIGTERM, sandboxed=sandbox, gate=True)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
