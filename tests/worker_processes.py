"""A check the worker-process envs share: a worker outlives no parent."""

import os
import signal
import subprocess
import sys
import time


def worker_ends_with_its_parent(tmp_path, setup: str) -> bool:
    """Run ``setup`` (Python lines that bind ``worker``, a started worker process) in a child
    process that prints the worker's pid and kills itself; whether the worker has ended
    within 30 s. A worker that held on would keep the child's output open: the run times
    out after 60 s."""
    script = tmp_path / "parent.py"
    script.write_text(f"import os\n{setup}\nprint(worker.pid, flush=True)\nos.kill(os.getpid(), 9)\n")
    parent = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert parent.returncode == -signal.SIGKILL, parent.stderr
    pid = int(parent.stdout.split()[0])
    deadline = time.monotonic() + 30
    while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
        time.sleep(0.1)
    return not os.path.exists(f"/proc/{pid}")
