"""The referee's lag rule with real processes: a decision whose deadline came
while the referee itself was stalled is not charged to the bot.

A tournament of two instant random bots runs while this script stops the
arena process (SIGSTOP) for 3 decision times, again and again: the bots'
answers arrive while the referee cannot read them. Every decision's clock
that came due during a stall must restart (docs/protocol.md, "The clock, and
the referee's lag"), so the run ends with no timeout, the records say how
much time was given back (SeatAction.referee_lag_us), and every record
verifies. Without the rule the timer fires as soon as the process resumes,
before the answers waiting in its sockets are read, and bots time out.

Usage: referee_lag_test.py BIN_DIR
"""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

DECISION_MS = 200
STALL_S = 3 * DECISION_MS / 1000
RUN_S = 0.25  # between stalls


def main():
    bin_dir = sys.argv[1]
    arena = os.path.join(bin_dir, "arena")
    bot = os.path.join(bin_dir, "random_bot")
    work = tempfile.mkdtemp(prefix="referee_lag_")
    records = os.path.join(work, "records")
    cmd = [arena, "tournament", "--game", "quasenbo", "--seats", "2",
           "--bot", "a=" + bot, "--bot", "b=" + bot, "--games", "800",
           "--jobs", "2", "--decision_ms", str(DECISION_MS),
           "--sandbox", "none", "--record_format", "jsonl",
           "--fresh_bots_per_rotation=false",
           "--progress=false", "--records", records,
           "--secret_file", os.path.join(work, "secret")]
    err_path = os.path.join(work, "arena.err")
    with open(err_path, "w") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
    stalls = 0
    done = threading.Event()

    def stall_loop():
        nonlocal stalls
        # Let the bots start and connect first.
        deadline = time.time() + 30
        while not done.is_set() and time.time() < deadline:
            if glob.glob(os.path.join(records, "*.jsonl")):
                break
            time.sleep(0.05)
        while not done.is_set():
            try:
                os.kill(proc.pid, signal.SIGSTOP)
            except ProcessLookupError:
                return
            time.sleep(STALL_S)
            try:
                os.kill(proc.pid, signal.SIGCONT)
            except ProcessLookupError:
                return
            stalls += 1
            time.sleep(RUN_S)

    t = threading.Thread(target=stall_loop)
    t.start()
    try:
        rc = proc.wait(timeout=600)
    finally:
        done.set()
        try:
            os.kill(proc.pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
        t.join()
    err_text = open(err_path).read()
    failures = []
    if rc != 0:
        failures.append(f"arena exited {rc}")
    if stalls < 5:
        failures.append(f"only {stalls} stalls happened during the run")
    timeouts = restarted = lag_us = 0
    files = sorted(glob.glob(os.path.join(records, "*.jsonl")))
    if len(files) != 800:
        failures.append(f"{len(files)} records, expected 800")
    for path in files:
        with open(path) as f:
            for line in f:
                rec = json.loads(line)
                if rec.get("forfeit", {}).get("fault") == "FAULT_KIND_TIMEOUT":
                    timeouts += 1
                for a in rec.get("decision", {}).get("actions", []):
                    if a.get("fault") == "FAULT_KIND_TIMEOUT":
                        timeouts += 1
                    lag = int(a.get("refereeLagUs", a.get("referee_lag_us", 0)))
                    if lag > 0:
                        restarted += 1
                        lag_us += lag
    if timeouts:
        failures.append(f"{timeouts} decisions timed out; the bots answer at once")
    if restarted == 0:
        failures.append("no record shows a restarted clock: the stalls never "
                        "met a deadline, so the test proved nothing")
    if "decision clocks restarted" not in err_text:
        failures.append("arena did not report the restarted clocks")
    verify = subprocess.run([arena, "verify", records], capture_output=True,
                            text=True)
    if verify.returncode != 0:
        failures.append("arena verify failed: " + verify.stdout[-500:] +
                        verify.stderr[-500:])
    print(f"{stalls} stalls of {STALL_S:.1f} s; {restarted} decisions had their "
          f"clock restarted, {lag_us / 1000:.0f} ms given back; "
          f"{timeouts} timeouts")
    if failures:
        print("FAIL:\n  " + "\n  ".join(failures))
        print("arena's log (last 40 lines):")
        print("\n".join(err_text.splitlines()[-40:]))
        sys.exit(1)
    if not os.environ.get("ARENA_KEEP_TEST_DIRS"):
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
