"""Long commands stop on Ctrl-C in one line with exit status 130; a missing optional
dependency names the extra that brings it; a broken run summary names its file."""

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from poolgym.agents.tools.cli import INTERRUPTED, main


def _stop_once_started(process: subprocess.Popen, started: str, stop) -> str:
    """Calls ``stop`` once ``process``'s stderr shows ``started`` (its progress display: the
    command is at work) and a second has passed; the stderr it wrote, once it has ended."""
    err: list[str] = []
    reader = threading.Thread(target=lambda: err.extend(iter(lambda: process.stderr.read(1), "")), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 120
        while started not in "".join(err):
            assert process.poll() is None, "".join(err)
            assert time.monotonic() < deadline, f"no {started!r} on stderr in 120 s"
            time.sleep(0.2)
        time.sleep(1.0)
        stop()
        process.wait(timeout=60)
        reader.join(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
    return "".join(err)


def test_ctrl_c_during_eval_exits_130_in_one_line(tmp_path):
    process = subprocess.Popen([sys.executable, "-m", "poolgym.agents.tools.cli", "eval", "-a", "bot:fast",
                                "-b", "bot:fast", "--games", "1000"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                               start_new_session=True,
                               # As a terminal's job: a shell that started these tests in the
                               # background would have the child inherit an ignored SIGINT.
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # SIGINT to the process group, as Ctrl-C in a terminal, once the racks are being played.
    text = _stop_once_started(process, "eval", lambda: os.killpg(process.pid, signal.SIGINT))
    assert process.returncode == INTERRUPTED, text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text
    # Beside the progress display (redrawn with carriage returns), one line.
    lines = [line.rsplit("\r", 1)[-1] for line in text.splitlines()]
    lines = [line for line in lines if line.strip() and not line.startswith("eval:")]
    assert lines == ["poolgym eval: interrupted"], text


@pytest.mark.parametrize("command", [
    ["eval", "-a", "random", "-b", "random", "--games", "1", "--ray", "--no-progress"],
    ["baselines", "--racks", "1", "--ray", "--no-progress"],
])
def test_ray_commands_without_ray_name_the_extra(command, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed: its import fails
    assert main(command) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"poolgym {command[0]}: error: spreading over Ray (--ray, --address) needs Ray: "
                   "pip install 'poolgym[distributed]'")


@pytest.mark.parametrize("text", ['{"steps": 5,', "[1, 2]", "\xff\xfe", "[" * 100_000])
def test_a_broken_run_summary_is_refused_naming_the_file(tmp_path, text):
    from poolgym.agents.evaluation.baselines import training_run
    from poolgym.agents.training import run_folder

    (tmp_path / "model.zip").write_bytes(b"PK")
    summary = tmp_path / "summary.json"
    summary.write_bytes(text.encode("latin-1"))
    for read in (lambda: run_folder.prepare(tmp_path, tmp_path / "model.zip", replace=False),
                 lambda: training_run(str(tmp_path / "model.zip"))):
        with pytest.raises(ValueError, match=rf"^{summary}: not a run summary") as err:
            read()
        assert "\n" not in str(err.value) and len(str(err.value)) < 500
    assert summary.read_bytes() == text.encode("latin-1")  # left as it was


def test_sigterm_stops_any_long_command_as_ctrl_c_does(tmp_path):
    """SIGTERM (``kill``, a job's time limit) ended ``soak``, ``eval``, ``baselines`` and the
    other long commands at once (killed by the signal, status -15); it stops them as Ctrl-C
    does: one line, exit status 130."""
    process = subprocess.Popen([sys.executable, "-m", "poolgym.agents.tools.cli", "soak", "--shots", "100000000",
                                "--games", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    text = _stop_once_started(process, "soak:", lambda: process.send_signal(signal.SIGTERM))
    assert process.returncode == INTERRUPTED, text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text
    lines = [line.rsplit("\r", 1)[-1] for line in text.splitlines()]
    assert [line for line in lines if line.strip()][-1] == "poolgym soak: interrupted", text
