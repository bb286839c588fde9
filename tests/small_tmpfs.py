"""A size-limited tmpfs for the tests that fill a disk (full_disk_test.py,
chaos/soak.py): mounted for the length of a `with` block, mode 0700, and
unmounted (lazily, so that a process still in it cannot keep it) at the
end. Mounting needs root: where it fails, `error` says why and the block
runs with nothing mounted (the caller skips). fill() fills it to the last
byte with a ballast file (removing the file frees it).

    with SmallTmpfs(path, "300k") as fs:
        if fs.error:
            ...  # skip
"""
import os
import subprocess


class SmallTmpfs:
    def __init__(self, path, size):
        self.path = path
        self.size = size
        self.error = None

    def __enter__(self):
        os.makedirs(self.path, exist_ok=True)
        m = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={self.size},mode=0700", "tmpfs",
                            self.path], capture_output=True, text=True)
        if m.returncode != 0:
            self.error = m.stderr.strip() or f"mount exited {m.returncode}"
        return self

    def __exit__(self, *exc):
        if self.error is None:
            subprocess.run(["umount", "-l", self.path], check=False)
        return False


def fill(path, chunk_bytes=65536):
    """Writes the ballast file `path` until its filesystem is full, down to
    single bytes so that not a byte is left; returns `path`."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    chunk = b"\0" * chunk_bytes
    try:
        while True:
            try:
                if os.write(fd, chunk) <= 0:
                    break
            except OSError:
                try:
                    while os.write(fd, b"\0") > 0:
                        pass
                except OSError:
                    pass
                break
    finally:
        os.close(fd)
    return path
