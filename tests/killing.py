"""Real kills at seeded random moments, cheaply: ``Forked(args)`` runs a mallows command in a
child forked from the test process (everything already imported, so a child costs
milliseconds, not an interpreter's start-up), in its own session, and ``kill_at`` sends it
SIGKILL after a delay. The child is a real process doing the command's real work; what it
leaves behind after ``kill -9`` is what a user's killed command leaves."""

from __future__ import annotations

import os
import signal
import time


class Forked:
    """``mallows ARGS`` in a forked child (stdout and stderr to ``log``)."""

    def __init__(self, args: list[str], log: str = os.devnull, cwd: str | None = None):
        from mallows.cli import app

        self.started = time.monotonic()
        pid = os.fork()
        if pid == 0:  # the child: a session of its own, then the command
            code = 70
            try:
                os.setsid()
                if cwd:
                    os.chdir(cwd)
                fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
                os.dup2(fd, 1)
                os.dup2(fd, 2)
                try:
                    app(args, prog_name="mallows", standalone_mode=False)
                    code = 0
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else 1
                except BaseException:
                    import traceback

                    traceback.print_exc()
                    code = 1
            finally:
                os._exit(code)
        self.pid = pid
        self.status: int | None = None

    def wait(self, timeout: float = 120) -> int:
        deadline = time.monotonic() + timeout
        while self.status is None:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.status = os.waitstatus_to_exitcode(status)
                break
            if time.monotonic() > deadline:
                self.kill()
                raise AssertionError(f"mallows pid {self.pid} did not end in {timeout} s")
            time.sleep(0.01)
        return self.status

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def kill_at(self, delay: float) -> bool:
        """SIGKILL ``delay`` seconds after the start; True if it was still running then."""
        while time.monotonic() < self.started + delay:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.status = os.waitstatus_to_exitcode(status)
                return False
            time.sleep(0.002)
        self.kill()
        self.wait()
        return True
