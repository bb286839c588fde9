#!/usr/bin/env python3
"""The memory of a whole run, bots included (docs/benchmarks.md).

Runs COMMAND under /usr/bin/time -v and samples, every SAMPLE_S seconds
(0.5 unless set in the environment), every process under it: the summed RSS
(shared pages counted once per process) and the summed PSS (shared pages
split among their users, from /proc/PID/smaps_rollup; 0 for processes that
cannot be read), and the number of child processes of its direct child
(arena's bot processes, each a sandbox or a shell). Prints the peaks when it
ends; time's report goes to LOG (stderr of the command included).

  tests/bench/process_tree_peak.py LOG COMMAND [ARGS...]
  tests/bench/process_tree_peak.py /tmp/run.log build/bin/arena tournament ...

A sample of hundreds of processes takes a second or more; the peaks are of
the samples, so a peak shorter than that can be missed.
"""
import os
import subprocess
import sys
import time


def parents():
    out = {}
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            with open(f'/proc/{d}/stat') as f:
                s = f.read()
            out[int(d)] = int(s[s.rfind(')') + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            pass
    return out


def kib(pid, name, key):
    try:
        with open(f'/proc/{pid}/{name}') as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    every = float(os.environ.get('SAMPLE_S', '0.5'))
    with open(sys.argv[1], 'w') as log:
        p = subprocess.Popen(['/usr/bin/time', '-v'] + sys.argv[2:], stderr=log)
        rss = pss = children = samples = 0
        while p.poll() is None:
            kids = {}
            for pid, ppid in parents().items():
                kids.setdefault(ppid, []).append(pid)
            tree, todo = [], [p.pid]
            while todo:
                x = todo.pop()
                tree.append(x)
                todo.extend(kids.get(x, []))
            children = max(children, sum(len(kids.get(c, [])) for c in kids.get(p.pid, [])))
            rss = max(rss, sum(kib(x, 'status', 'VmRSS:') for x in tree))
            pss = max(pss, sum(kib(x, 'smaps_rollup', 'Pss:') for x in tree))
            samples += 1
            time.sleep(every)
    print(f'exit {p.returncode}; {samples} samples; peak RSS of the tree {rss / 1024:.0f} MiB, '
          f'peak PSS {pss / 1024:.0f} MiB; most child processes of arena {children}')
    sys.exit(p.returncode)


if __name__ == '__main__':
    main()
