#!/usr/bin/python3
"""The README's "Using it" section, command by command, as written.

Every program the README runs from build/bin/ is built by the demo
(ci/demo.sh's TARGETS) or by the command the README gives for the rest; then
each command of the section's code block runs in a fresh folder, with its
bots in place (./my_bot: the Quasenbo bot; ./old_bot: the random bot;
my_bot.py: the stdio example), and must succeed. Adapted, and only these:
build/bin/ is a link to this build's programs, the placeholders <tournament
id> and <match id> are a record and a bundle that exist (a bundle of a bot
named "me" comes from a crashing bot's short tournament, since the section's
own tournaments have no fault), `arena play` reads "1" lines as a person
would type them, and `referee`, a server that runs until stopped, passes if
it still runs after a few seconds.

Usage: readme_using_it_test.py BIN_DIR SOURCE_DIR
"""
import glob
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def section_commands(readme):
    text = open(readme, encoding="utf-8").read()
    at = text.find("\n## Using it\n")
    if at < 0:
        fail("no 'Using it' section in the README")
    block = re.search(r"```sh\n(.*?)```", text[at:], flags=re.S)
    if block is None:
        fail("no sh block in 'Using it'")
    commands, current = [], ""
    for line in block.group(1).splitlines():
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        current += line.rstrip("\\").rstrip() + " " if line.endswith("\\") else line
        if not line.endswith("\\"):
            commands.append(re.sub(r"\s+#[^\"']*$", "", current).strip())
            current = ""
    return text, commands


def check_builds(readme_text, src):
    """Each build/bin/NAME of the README is built by the demo or by the
    command the README names for the rest."""
    demo = open(os.path.join(src, "ci/demo.sh"), encoding="utf-8").read()
    targets = set()
    for m in re.finditer(r'TARGETS="([^"]*)"', demo):
        targets |= set(m.group(1).split())
    for m in re.finditer(r'TARGETS="([^"]*)"[^\n`]*bash ci/build\.sh', readme_text):
        targets |= set(m.group(1).split())
    # A target that writes a program of another name.
    made = {"python_bot": "python_random_bot"}
    programs = {made.get(t, t) for t in targets}
    named = set(re.findall(r"build/bin/([A-Za-z0-9_]+)", readme_text))
    missing = sorted(named - programs)
    if missing:
        fail(f"the README runs {missing} from build/bin/, which neither the demo builds "
             f"nor a command the README gives (TARGETS=\"...\" bash ci/build.sh)")
    print("ok: every program the README names is built:", sorted(named))


def main():
    bin_dir, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    readme, commands = section_commands(os.path.join(src, "README.md"))
    check_builds(readme, src)
    keep = os.environ.get("ARENA_KEEP_TEST_DIRS") == "1"
    work = tempfile.mkdtemp(prefix="readme-")
    os.chmod(work, 0o755)  # the sandboxed bots run in it, as another user
    try:
        run_all(commands, bin_dir, src, work)
    finally:
        if keep:
            print("kept:", work, file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print("PASS")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def check_serves(command, work, env, port):
    """Runs a server command until GET / on `port` answers 200 (at most
    30 s), then stops it. Returns what went wrong, or None."""
    proc = subprocess.Popen(["/bin/bash", "-c", "exec " + command], cwd=work, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.time() + 30
        while time.time() < deadline:
            if proc.poll() is not None:
                return f"exited {proc.returncode} before serving: {proc.stdout.read()[-2000:]}"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
                    if r.status == 200 and b"<html" in r.read(4096).lower():
                        return None
            except OSError:
                pass
            time.sleep(0.2)
        return "no page on its port within 30 s"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run_all(commands, bin_dir, src, work):
    os.makedirs(os.path.join(work, "build"))
    os.symlink(bin_dir, os.path.join(work, "build/bin"))
    os.makedirs(os.path.join(work, "docs"))
    shutil.copy(os.path.join(src, "docs/example_tournament.textproto"), os.path.join(work, "docs"))
    os.symlink(os.path.join(bin_dir, "quasenbo_bot"), os.path.join(work, "my_bot"))
    os.symlink(os.path.join(bin_dir, "random_bot"), os.path.join(work, "old_bot"))
    shutil.copy(os.path.join(src, "bots/stdio/example_bot.py"), os.path.join(work, "my_bot.py"))
    env = dict(os.environ, GITHUB_STEP_SUMMARY=os.path.join(work, "summary.md"))
    # A bundle of a bot named "me": a bot that crashes at its third decision.
    fixture = subprocess.run(
        ["build/bin/arena", "tournament", "--game", "quasenbo", "--games", "2", "--progress=false",
         "--records", "fixture", "--bot",
         f"me={bin_dir}/crash_hang_flood_bot --mode=crash_after --n=2", "--bot", "rnd=build/bin/random_bot"],
        cwd=work, capture_output=True, text=True, timeout=300)
    bundles = sorted(glob.glob(os.path.join(work, "fixture/repro/me/*.json")))
    if not bundles:
        fail("no bundle of 'me' for replay-bot: " + fixture.stdout[-2000:] + fixture.stderr[-2000:])
    failed = []
    for command in commands:
        if "<tournament id>" in command:
            recs = sorted(glob.glob(os.path.join(work, "out/quasenbo-*-000001.rec")))
            if not recs:
                fail(f"{command}: no record out/quasenbo-*-000001.rec")
            tid = re.match(r"quasenbo-(.*)-000001\.rec$", os.path.basename(recs[0])).group(1)
            command = command.replace("<tournament id>", tid)
        if "out/repro/me/<match id>-seat1.json" in command:
            command = command.replace("out/repro/me/<match id>-seat1.json",
                                      os.path.relpath(bundles[0], work))
        if "<" in command.replace("<<", "") and re.search(r"<[a-z ]+>", command):
            fail(f"{command}: a placeholder this test does not know")
        if command.startswith("build/bin/arena serve "):
            # A live site: it must answer its index page, then it is stopped.
            # The README's port may be taken here: a free one stands in.
            port = free_port()
            command = command.replace("127.0.0.1:8080", f"127.0.0.1:{port}")
            print("$", command, flush=True)
            problem = check_serves(command, work, env, port)
            if problem:
                failed.append(f"{command}: {problem}")
                print("FAILED:", failed[-1])
            else:
                print("ok: the live site answered its index page")
            continue
        server = command.startswith("build/bin/referee ")
        stdin = "1\n" * 5000 if command.startswith("build/bin/arena play ") else ""
        print("$", command, flush=True)
        try:
            r = subprocess.run(["/bin/bash", "-c", command], cwd=work, env=env,
                               input=stdin, capture_output=True, text=True,
                               timeout=5 if server else 600)
        except subprocess.TimeoutExpired:
            if server:
                print("ok: the referee runs (stopped after 5 s)")
                continue
            failed.append(f"{command}: still running after 600 s")
            continue
        if server or r.returncode != 0:
            failed.append(f"{command}: exit {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
            print("FAILED:", failed[-1])
            continue
        print(f"ok: exit 0, {len(r.stdout.splitlines())} lines on stdout")
    if failed:
        fail(f"{len(failed)} of {len(commands)} commands failed:\n" + "\n".join(failed))


if __name__ == "__main__":
    main()
