#!/usr/bin/python3
"""deploy/kubernetes and deploy/slurm: parsed and their shard arithmetic checked.

Usage: deploy_manifests_test.py DEPLOY_DIR

Kubernetes: the YAML is parsed (python3-yaml); the Indexed Job's completions,
parallelism and SHARDS agree; its container script is run by /bin/sh with a
stand-in `arena` for every completion index and must ask for shard I/N, the
shard's own records folder on the shared volume and the secret file where the
Secret is mounted; the volume is the ReadWriteMany claim; the merge Job's
script (run the same way) verifies every shard and merges them all with
--out. Slurm: the array range is 0-(N-1) for SHARDS=N; each task asks for its
shard; submit.sh (with a stand-in sbatch) queues the merge with
--dependency=afterok:<the array job's id>. Nothing here talks to a cluster.
"""
import os
import re
import shlex
import stat
import subprocess
import sys
import tempfile

import yaml

DEPLOY = os.path.abspath(sys.argv[1])
K8S = os.path.join(DEPLOY, "kubernetes")
SLURM = os.path.join(DEPLOY, "slurm")
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def stub(dir_, name, body):
    path = os.path.join(dir_, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, stat.S_IRWXU)
    return path


def calls(log):
    """The stand-in's invocations: one argument list per line."""
    if not os.path.exists(log):
        return []
    return [shlex.split(line) for line in open(log) if line.strip()]


def flag(args, name):
    for i, a in enumerate(args):
        if a == name and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(name + "="):
            return a[len(name) + 1:]
    return None


def run_sh(script, env, cwd):
    full = dict(os.environ)
    full.update(env)
    return subprocess.run(["/bin/sh", "-c", script], env=full, cwd=cwd,
                          capture_output=True, text=True, timeout=30)


# A stand-in for arena (and sbatch) that logs its arguments, shell-quoted.
LOGGER = 'for a in "$@"; do printf "%s " "$(printf %s "$a" | sed "s/\'/\'\\\\\\\\\'\'/g; s/^/\'/; s/$/\'/")"; done >> "$STUB_LOG"; echo >> "$STUB_LOG"\n'

# ---- Kubernetes -------------------------------------------------------------
docs = {}
for name in sorted(os.listdir(K8S)):
    if name.endswith(".yaml"):
        with open(os.path.join(K8S, name)) as f:
            for d in yaml.safe_load_all(f):
                if d:
                    docs[(d["kind"], d["metadata"]["name"])] = d
job = docs.get(("Job", "arena-tournament"))
merge = docs.get(("Job", "arena-merge"))
pvc = docs.get(("PersistentVolumeClaim", "arena-records"))
check(job is not None and merge is not None and pvc is not None,
      f"expected Job arena-tournament, Job arena-merge, PVC arena-records: {sorted(docs)}")
if job and merge and pvc:
    spec = job["spec"]
    pod = spec["template"]["spec"]
    (c,) = pod["containers"]
    env = {e["name"]: e["value"] for e in c.get("env", [])}
    n = int(env.get("SHARDS", "0"))
    check(spec.get("completionMode") == "Indexed", "the tournament Job is not Indexed")
    check(n >= 1 and spec.get("completions") == n and spec.get("parallelism") == n,
          f"completions {spec.get('completions')}, parallelism {spec.get('parallelism')}, SHARDS {n}: must agree")
    check(pvc["spec"]["accessModes"] == ["ReadWriteMany"], "the records claim is not ReadWriteMany")
    vols = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
    records_mount = [p for p, v in mounts.items() if "persistentVolumeClaim" in vols[v]]
    check(len(records_mount) == 1 and
          vols[mounts[records_mount[0]]]["persistentVolumeClaim"]["claimName"] == "arena-records",
          "the shard pods do not mount the arena-records claim")
    secret_paths = []
    for path, v in mounts.items():
        s = vols[v].get("secret")
        if s:
            for item in s.get("items", []):
                secret_paths.append((s["secretName"], os.path.join(path, item["path"])))
    check(len(secret_paths) == 1, f"one secret file expected in the shard pods: {secret_paths}")
    run_sh_text = open(os.path.join(K8S, "run.sh")).read()
    if secret_paths:
        secret_name, secret_path = secret_paths[0]
        check(f"create secret generic {secret_name} --from-file=secret=" in run_sh_text,
              f"run.sh does not create the Secret {secret_name} with key 'secret'")
    script = c["command"][-1] if not c.get("args") else c["args"][-1]
    check("JOB_COMPLETION_INDEX" in script, "the shard script does not read JOB_COMPLETION_INDEX")
    with tempfile.TemporaryDirectory() as t:
        stub(t, "arena", LOGGER)
        root = os.path.join(t, "records")
        os.makedirs(root)
        log = os.path.join(t, "log")
        shards = []
        for i in range(n):
            r = run_sh(script.replace("/records", root),
                       {"JOB_COMPLETION_INDEX": str(i), "PATH": t + ":" + os.environ["PATH"],
                        "STUB_LOG": log, **env}, t)
            check(r.returncode == 0, f"shard script {i}: exit {r.returncode} {r.stderr}")
            args = calls(log)[-1]
            shards.append(flag(args, "--shard"))
            check(args[0] == "tournament", f"shard {i}: {args}")
            check(flag(args, "--records") == f"{root}/shard-{i}", f"shard {i} writes to {flag(args, '--records')}")
            if secret_paths:
                check(flag(args, "--secret_file") == secret_paths[0][1],
                      f"shard {i}: --secret_file {flag(args, '--secret_file')}, the Secret is at {secret_paths[0][1]}")
        check(shards == [f"{i}/{n}" for i in range(n)], f"the pods play shards {shards}")
        # A retried pod resumes its own shard.
        os.makedirs(f"{root}/shard-1")
        open(f"{root}/shard-1/manifest.json", "w").close()
        r = run_sh(script.replace("/records", root),
                   {"JOB_COMPLETION_INDEX": "1", "PATH": t + ":" + os.environ["PATH"],
                    "STUB_LOG": log, **env}, t)
        args = calls(log)[-1]
        check(flag(args, "--resume") == f"{root}/shard-1" and flag(args, "--shard") == f"1/{n}",
              f"a retried pod does not resume its shard: {args}")
        # The merge Job: every shard verified, all merged with --out.
        for i in range(n):
            os.makedirs(f"{root}/shard-{i}", exist_ok=True)
        mpod = merge["spec"]["template"]["spec"]
        (mc,) = mpod["containers"]
        mvols = {v["name"]: v for v in mpod["volumes"]}
        check(any(m["mountPath"] == "/records" and
                  mvols[m["name"]].get("persistentVolumeClaim", {}).get("claimName") == "arena-records"
                  for m in mc["volumeMounts"]), "the merge Job does not mount arena-records at /records")
        open(log, "w").close()
        r = run_sh(mc["args"][-1].replace("/records", root),
                   {"PATH": t + ":" + os.environ["PATH"], "STUB_LOG": log}, t)
        check(r.returncode == 0, f"merge script: exit {r.returncode} {r.stderr}")
        got = calls(log)
        verified = sorted(a[1] for a in got if a[0] == "verify")
        check(verified == [f"{root}/shard-{i}" for i in range(n)], f"merge verifies {verified}")
        merges = [a for a in got if a[0] == "standings"]
        check(len(merges) == 1 and sorted(merges[0][1:1 + n]) == [f"{root}/shard-{i}" for i in range(n)]
              and flag(merges[0], "--out") == f"{root}/merged", f"merge runs {merges}")
    check(run_sh_text.find("job/arena-tournament") < run_sh_text.find("merge-job.yaml")
          and "--for=condition=complete job/arena-tournament" in run_sh_text,
          "run.sh does not wait for the shards before the merge Job")

# ---- Slurm ------------------------------------------------------------------
sb = open(os.path.join(SLURM, "tournament.sbatch")).read()
m = re.search(r"^#SBATCH --array=(\d+)-(\d+)\s*$", sb, re.M)
s = re.search(r"^SHARDS=(\d+)\s*$", sb, re.M)
check(m is not None and s is not None, "tournament.sbatch: no #SBATCH --array=A-B or SHARDS=N")
if m and s:
    lo, hi, n = int(m.group(1)), int(m.group(2)), int(s.group(1))
    check(lo == 0 and hi == n - 1, f"--array={lo}-{hi} for SHARDS={n}: must be 0-{n - 1}")
    with tempfile.TemporaryDirectory() as t:
        stub(t, "arena", LOGGER)
        log = os.path.join(t, "log")
        env = {"ARENA_BIN": t, "ARENA_RECORDS": f"{t}/rec", "ARENA_SECRET": f"{t}/secret",
               "STUB_LOG": log, "SLURM_ARRAY_TASK_COUNT": str(n)}
        shards = []
        for i in range(lo, hi + 1):
            r = run_sh(f"sh {shlex.quote(os.path.join(SLURM, 'tournament.sbatch'))}",
                       {**env, "SLURM_ARRAY_TASK_ID": str(i)}, t)
            check(r.returncode == 0, f"array task {i}: exit {r.returncode} {r.stderr}")
            args = calls(log)[-1]
            shards.append(flag(args, "--shard"))
            check(flag(args, "--secret_file") == f"{t}/secret", f"task {i}: {args}")
            check(flag(args, "--records") == f"{t}/rec/shard-{i}", f"task {i}: {args}")
        check(shards == [f"{i}/{n}" for i in range(n)], f"the array tasks play shards {shards}")
        r = run_sh(f"sh {shlex.quote(os.path.join(SLURM, 'tournament.sbatch'))}",
                   {**env, "SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": str(n + 1)}, t)
        check(r.returncode == 2, "a task of an array of the wrong size is not refused")
        # merge.sbatch: every shard verified, all merged.
        for i in range(n):
            os.makedirs(f"{t}/rec/shard-{i}", exist_ok=True)
        open(log, "w").close()
        r = run_sh(f"sh {shlex.quote(os.path.join(SLURM, 'merge.sbatch'))}", env, t)
        check(r.returncode == 0, f"merge.sbatch: exit {r.returncode} {r.stderr}")
        got = calls(log)
        check(sorted(a[1] for a in got if a[0] == "verify") == [f"{t}/rec/shard-{i}" for i in range(n)],
              f"merge.sbatch verifies {got}")
        merges = [a for a in got if a[0] == "standings"]
        check(len(merges) == 1 and flag(merges[0], "--out") == f"{t}/rec/merged"
              and sorted(merges[0][1:1 + n]) == [f"{t}/rec/shard-{i}" for i in range(n)],
              f"merge.sbatch runs {merges}")
        # submit.sh with a stand-in sbatch: array first, merge after it.
        stub(t, "sbatch", LOGGER + 'n=$(wc -l < "$STUB_LOG"); echo "$((4000 + n));cluster1"\n')
        open(log, "w").close()
        r = run_sh(f"sh {shlex.quote(os.path.join(SLURM, 'submit.sh'))}",
                   {"PATH": t + ":" + os.environ["PATH"], "STUB_LOG": log,
                    "ARENA_SECRET": f"{t}/secret2"}, t)
        check(r.returncode == 0, f"submit.sh: exit {r.returncode} {r.stderr}")
        got = calls(log)
        check(len(got) == 2, f"submit.sh runs sbatch {len(got)} times")
        if len(got) == 2:
            check("--parsable" in got[0] and got[0][-1].endswith("tournament.sbatch"),
                  f"first: {got[0]}")
            check("--parsable" in got[1] and "--dependency=afterok:4001" in got[1]
                  and got[1][-1].endswith("merge.sbatch"), f"second: {got[1]}")
        secret = open(f"{t}/secret2").read()
        check(re.fullmatch(r"[0-9a-f]{64}\n", secret) is not None, f"submit.sh secret: {secret!r}")
        check(stat.S_IMODE(os.stat(f"{t}/secret2").st_mode) == 0o600, "submit.sh secret is not 0600")

if failures:
    print(f"{len(failures)} FAILED")
    sys.exit(1)
print("PASS")
