"""Ray: starting a local Ray or joining a cluster, and running jobs on it (``RayExecutor``).

This is the only module that imports Ray. ``--workers N > 1`` starts a local Ray with N CPUs
(loopback only, no dashboard); ``address=`` joins an existing cluster and ships ``bots/`` and
the ``mallows`` package with the job in a runtime environment (staged in a temporary folder),
with the snapshots of the pinned bots in the job's working directory, so the workers need no
file of the organiser's machine. Environment variables named ``MALLOWS_*`` are forwarded to Ray
workers; the roster of pinned bots travels in every job (``worker.Job.roster``). A join that
fails is diagnosed
(unreachable address, token authentication, versions) in one message, never a traceback.

Flow control: jobs go out in batches sized from the measured match time (about
``BATCH_SECONDS`` of play per Ray task, so the per-task overhead stays small; batches shrink
towards the end so the CPUs finish together), two tasks per CPU in flight (one running, one
queued, so no worker waits on the coordinator), and each task streams its finished outcomes
back every ``worker.FLUSH_SECONDS`` (a Ray streaming generator over ``worker.play_stream``), so
matches are counted as they finish and the object store holds only what is in flight. On a
local Ray each worker slot has the CPU the executor assigned it from this process's own CPUs
(``agents.affinity.assign``; a Ray resource per slot, so no two tasks share one); a cluster's
nodes run their tasks unpinned. A batch
lost with its worker (the process or the node died) has its unreturned matches submitted
again, one match a task; a match whose worker dies more than ``RETRIES`` times comes back as an
``Outcome`` with ``error`` naming the bots at its table, and the other matches go on.

Through Ray Client (``--address ray://host:10001``, how KubeRay and many remote clusters are
reached), which has no streaming generators, each task hands back its whole batch at once
(``worker.play_batch``); batches are the same, so are the records and ratings, only the count
moves in steps of a batch.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import math
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from mallows.agents import affinity
from mallows.errors import ClusterError, ExecutorError, Terminated
from mallows.runner.executor import Executor
from mallows.runner.worker import FLUSH_SECONDS, Job, Outcome, play_batch, play_stream

RETRIES = 3  # times a lost batch is submitted again
MAX_BATCH = 512  # matches per Ray task, at most
BATCH_SECONDS = 2.0  # a batch is sized to take about this long (from measured match times)
FIRST_BATCH = 4  # matches per task until a match time has been measured
BATCHES_PER_WORKER = 3  # next batch ~ remaining / (CPUs * this): shrinks towards the end
IN_FLIGHT_PER_WORKER = 2  # tasks per CPU in flight: one running, one queued behind it


def batch_size_for(jobs: int | None, workers: int, match_seconds: float | None = None) -> int:
    """The size of the next batch when ``jobs`` are still to be sent (None: unknown, many).
    Sized from the measured ``match_seconds`` to last about ``BATCH_SECONDS`` (so Ray's
    per-task overhead is small and a worker always has a queued batch while the coordinator
    refills), at most ``MAX_BATCH``, and shrinking towards the end (guided self-scheduling:
    about 1/``BATCHES_PER_WORKER`` of each CPU's share of what is left) so that no worker is
    left with a long last batch while the others idle."""
    if match_seconds is None:
        size = FIRST_BATCH
    else:
        size = math.ceil(BATCH_SECONDS / max(match_seconds, 1e-4))
    if jobs is not None:
        size = min(size, math.ceil(jobs / max(1, workers * BATCHES_PER_WORKER)))
    return max(1, min(MAX_BATCH, size))


def _slot(i: int) -> str:
    """The Ray resource of worker slot ``i`` (``RayExecutor._slots``)."""
    return f"mallows_cpu_slot_{i}"


def _import_ray() -> Any:
    # Ray reads this when it is imported: with 0 a Ray started here uses the loopback address
    # (a local Ray needs no network); a cluster joined by address is unaffected.
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    import ray

    return ray


def _forwarded_env() -> dict:
    return {k: v for k, v in os.environ.items() if k.startswith("MALLOWS_")}


def _ship_snapshots(staging: Path, snapshots: Sequence[str]) -> dict:
    """Copy the pinned snapshots (``snapshots``: their digests, ``Roster.snapshots()``) into
    the job's working directory (``snapshots/<digest>/``), so a cluster that shares no files
    with this machine runs the same bytes."""
    from mallows.agents.submissions import materialised

    if not snapshots:
        return {}
    for digest in snapshots:
        folder = materialised(digest) if digest else None
        if folder is None:
            continue
        for src in folder.rglob("*"):
            if src.is_file():
                dst = staging / "snapshots" / digest / src.relative_to(folder)
                dst.parent.mkdir(parents=True, exist_ok=True)
                data = src.read_bytes()
                dst.write_bytes(data)  # writable copies: the staging is removed
                if data.startswith((b"#!", b"\x7fELF")):
                    dst.chmod(0o755)
    return {"MALLOWS_SNAPSHOTS": "snapshots"}  # relative to the job's working_dir


def _chain_text(exc: BaseException | None) -> str:
    parts, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        parts.append(f"{type(exc).__name__}: {exc}")
        exc = exc.__cause__ or exc.__context__
    return "\n".join(parts)


def _auth_problem(text: str) -> bool:
    text = text.lower()
    return any(w in text for w in ("authenticat", "auth_token", "invalidauthtoken"))


@contextlib.contextmanager
def _captured_stderr() -> Iterator[Callable[[], str]]:
    """Collect what Ray's C++ core writes on file descriptor 2 while joining a cluster (it
    retries for a while and logs every attempt); yields a callable returning the text."""
    buffer = tempfile.TemporaryFile()
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):
        yield lambda: ""
        return
    os.dup2(buffer.fileno(), 2)
    try:
        yield lambda: (buffer.seek(0), buffer.read().decode("utf-8", "replace"))[1]
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


class RayExecutor(Executor):
    kind = "ray"

    def __init__(
        self,
        workers: int | None = None,
        address: str | None = None,
        batch_size: int | None = None,
        snapshots: Sequence[str] = (),
    ) -> None:
        from mallows.agents.registry import bots_dir, search_dirs, trusted_shipped
        from mallows.agents.submissions import cache_root

        self.address = address
        self.client = is_client_address(address)  # Ray Client: no streaming generators
        self.batch_size = batch_size
        self._staging: str | None = None
        self._reaper = None
        self._scratch: str | None = None  # the workers' scratch folder (a local Ray)
        self.lost_batches = 0
        #: each worker's CPUs (``affinity.assign``), one Ray resource per slot so that two
        #: tasks never run on one slot at once; a cluster's nodes pin nothing (their CPUs are
        #: not this run's to know)
        self._slots: list[frozenset] = []
        ray = self.ray = _import_ray()
        if ray.is_initialized():
            ray.shutdown()
        env = _forwarded_env()
        join_log = ""  # what Ray's core wrote while joining, for the diagnosis of a failure
        try:
            if address:
                self._staging = tempfile.mkdtemp(prefix="mallows-job-")
                # every bots directory, the first one found winning (as the registry looks)
                for src in reversed(search_dirs()):
                    shutil.copytree(
                        src,
                        Path(self._staging) / "bots",
                        dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
                    )
                import mallows

                env["MALLOWS_BOTS_DIR"] = "bots"  # relative to the job's working_dir
                env.update(_ship_snapshots(Path(self._staging), snapshots))
                # the shipped bots trusted here stay in-process on the workers too
                env.setdefault("MALLOWS_TRUSTED_SHIPPED", ",".join(trusted_shipped()))
                runtime_env = {
                    "working_dir": self._staging,
                    "py_modules": [str(Path(mallows.__file__).parent)],
                    "env_vars": env,
                }
                with _captured_stderr() as captured:
                    try:
                        join(ray, address, runtime_env, tries=CLIENT_ATTEMPTS if self.client else 1)
                    finally:
                        join_log = captured()
            else:
                # a local Ray is ours alone, on loopback, for one run: no token needed
                os.environ.setdefault("RAY_AUTH_MODE", "disabled")
                from mallows.runner.reaper import Reaper

                self._reaper = Reaper()  # nothing of it outlives this process
                from mallows.agents.sandbox.command import SCRATCH_ENV

                # the workers' scratch (their sandboxes' /proc copies) in a folder this
                # process removes when the run ends: a Ray worker never reaches atexit
                self._scratch = tempfile.mkdtemp(prefix="mallows-run-")
                os.chmod(self._scratch, 0o755)
                env[SCRATCH_ENV] = self._scratch
                env["MALLOWS_BOTS_DIR"] = str(bots_dir().resolve())
                env.setdefault("MALLOWS_SNAPSHOTS", str(cache_root()))  # this machine's
                self._slots = affinity.assign(affinity.current(), workers or os.cpu_count() or 1)
                # address="local": always a new Ray of our own, never one already running here
                with _no_dashboard_server():
                    ray.init(
                        address="local",
                        num_cpus=workers or os.cpu_count() or 1,
                        resources={_slot(i): 1.0 for i in range(len(self._slots))},
                        include_dashboard=False,
                        _node_ip_address="127.0.0.1",
                        runtime_env={"env_vars": env},
                        logging_level="ERROR",
                        log_to_driver=False,
                    )
        except KeyboardInterrupt:  # a signal while Ray was starting: as it came (a
            self.close()  # SIGTERM or SIGHUP keeps its exit status)
            raise
        except SystemExit as exc:  # Ray's own SIGTERM handler exits with the signal's number
            self.close()
            if exc.code == signal.SIGTERM:
                raise Terminated(signal.SIGTERM) from None
            raise KeyboardInterrupt("stopped while Ray was starting") from None
        except Exception as exc:
            self.close()
            if address and _auth_problem(_chain_text(exc) + join_log):
                raise ClusterError(
                    f"could not join the Ray cluster at {address}: it refused this process "
                    f"because of token authentication ({_first_line(exc)}). Give this process "
                    f"the cluster's token (RAY_AUTH_MODE=token with RAY_AUTH_TOKEN or "
                    f"RAY_AUTH_TOKEN_PATH; `ray get-auth-token` on the head prints it), or start "
                    f"the cluster with RAY_AUTH_MODE=disabled on a trusted network"
                ) from None
            where = f"join the Ray cluster at {address}" if address else "start a local Ray"
            hint = (
                "check the address (the head's host:port, as `ray start --head` printed "
                "it) and that this machine runs the same Ray and Python versions"
                if address
                else "try --workers 1 to run in this process"
            )
            log = [ln for ln in join_log.splitlines() if " E " in ln]
            detail = f" (Ray: {log[-1].strip()[:300]})" if log else ""
            error = ClusterError if address else ExecutorError  # a join: the address given
            raise error(f"could not {where}: {_first_line(exc)}{detail}. Fix: {hint}") from None
        self.workers = max(1, int(ray.cluster_resources().get("CPU", workers or 1)))
        if self.client:
            self._batch = ray.remote(num_cpus=1, max_retries=0)(play_batch)
        else:
            self._stream = ray.remote(num_cpus=1, max_retries=0, num_returns="streaming")(
                play_stream
            )

    def run_batches(
        self, jobs: Iterable[Job], expected: int | None = None
    ) -> Iterator[list[Outcome]]:
        """``_run_batches``; a Ray that dies under the run (its raylet) is an ``ExecutorError``
        saying so, never a traceback: what finished is stored and a rerun resumes."""
        dead = (self.ray.exceptions.LocalRayletDiedError, self.ray.exceptions.RaySystemError)
        try:
            yield from self._run_batches(jobs, expected)
        except (*dead, OSError) as exc:
            # Ray's core reports a raylet gone under ray.wait as a bare OSError ("Connection
            # reset by peer"); any other OSError is not Ray's and goes on
            if isinstance(exc, OSError) and not _connection_lost(exc):
                raise
            where = f"the Ray cluster at {self.address}" if self.address else "the local Ray"
            raise ExecutorError(
                f"{where} stopped under this run ({_first_line(exc)}): the finished matches "
                f"are stored; rerun the same command to resume"
            ) from None

    def _run_batches(
        self, jobs: Iterable[Job], expected: int | None = None
    ) -> Iterator[list[Outcome]]:
        """Flow control: at most ``IN_FLIGHT_PER_WORKER`` tasks per CPU, each a batch sized
        from the measured match time (``batch_size_for``); jobs are read from ``jobs`` only
        when a task is sent, and results are consumed as they stream back (``play_stream``;
        through Ray Client a task's whole batch at once, ``play_batch``), so neither the
        coordinator's memory nor Ray's object store grows with the tournament. Every
        ``ray.wait`` hands back all that has arrived, as one group."""
        ray = self.ray
        source = iter(jobs)
        left = expected
        exhausted = False
        mean: float | None = None  # measured seconds per match (moving average)
        lost_errors = (
            ray.exceptions.WorkerCrashedError,
            ray.exceptions.RayActorError,
            ray.exceptions.ObjectLostError,
            ray.exceptions.NodeDiedError,
            ray.exceptions.OwnerDiedError,
        )
        in_flight: dict = {}  # generator (or ref) -> [batch, indices to come back, attempt]
        window = max(1, self.workers * IN_FLIGHT_PER_WORKER)

        def submit(batch: list, attempt: int) -> None:
            if self.client:
                gen = self._batch.remote(batch, frozenset())
            elif not self._slots:
                gen = self._stream.remote(batch, FLUSH_SECONDS, frozenset())
            else:  # to the slot with the fewest tasks, on its worker's CPU
                busy = collections.Counter(entry[3] for entry in in_flight.values())
                slot = min(range(len(self._slots)), key=lambda i: (busy[i], i))
                task = self._stream.options(resources={_slot(slot): 1.0})
                gen = task.remote(batch, FLUSH_SECONDS, self._slots[slot])
                in_flight[gen] = [batch, {j.index for j in batch}, attempt, slot]
                return
            in_flight[gen] = [batch, {j.index for j in batch}, attempt, None]

        while True:
            while not exhausted and len(in_flight) < window:
                size = self.batch_size or batch_size_for(left, self.workers, mean)
                batch = list(itertools.islice(source, size))
                if not batch:
                    exhausted = True
                    break
                if left is not None:
                    left = max(0, left - len(batch))
                submit(batch, 1)
            if not in_flight:
                return
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            ready, _ = (
                ray.wait(list(in_flight), num_returns=len(in_flight), timeout=0)
                if len(in_flight) > 1
                else (ready, None)
            )
            arrived: list[Outcome] = []
            for gen in ready:
                batch, waiting, attempt, _ = in_flight[gen]
                if self.client:  # one reply, the whole batch
                    ref = gen
                    del in_flight[gen]
                else:
                    try:
                        ref = next(gen)
                    except StopIteration:
                        del in_flight[gen]
                        continue
                try:
                    outcomes = ray.get(ref)
                except lost_errors as exc:
                    in_flight.pop(gen, None)
                    self.lost_batches += 1
                    rest = [j for j in batch if j.index in waiting]
                    if len(rest) > 1:  # again, one match a task: find the one that kills
                        for job in rest:
                            submit([job], attempt + 1)
                    elif rest and attempt > RETRIES:  # it kills its worker: report it, go on
                        job = rest[0]
                        arrived.append(
                            Outcome(
                                job.index,
                                None,
                                None,
                                None,
                                0,
                                0.0,
                                attempts=attempt,
                                error=f"the Ray worker playing it died {attempt} times "
                                f"({_first_line(exc)}); the bots at the table: "
                                f"{', '.join(job.seats)}",
                            )
                        )
                    elif rest:
                        submit(rest, attempt + 1)
                    continue
                except ray.exceptions.RayTaskError as exc:
                    raise ExecutorError(
                        f"a Ray task failed outside any match (is mallows importable on "
                        f"the workers?): {_first_line(exc)}"
                    ) from None
                for outcome in outcomes:
                    waiting.discard(outcome.index)
                    outcome.attempts = attempt
                    mean = outcome.seconds if mean is None else 0.9 * mean + 0.1 * outcome.seconds
                arrived.extend(outcomes)
            if arrived:
                yield arrived

    def close(self) -> None:
        try:
            if self.ray.is_initialized():
                self.ray.shutdown()
        except Exception:
            pass
        if self._staging:
            shutil.rmtree(self._staging, ignore_errors=True)
            self._staging = None
        scratch, self._scratch = self._scratch, None
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
        if self._reaper is not None:
            self._reaper.close()
            self._reaper = None


@contextlib.contextmanager
def _no_dashboard_server() -> Iterator[None]:
    """Ray starts its dashboard's web server (``dashboard.py``) even with
    ``include_dashboard=False``; a local Ray for one run serves nobody, so it is not started.
    (Ray's private hook: if a Ray version lacks it, Ray starts the server as before.)"""
    try:
        from ray._private import node

        original = node.Node.start_api_server
    except (ImportError, AttributeError):
        yield
        return
    node.Node.start_api_server = lambda self, **kwargs: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        node.Node.start_api_server = original  # type: ignore[method-assign]


def _connection_lost(exc: OSError) -> bool:
    """Whether ``exc`` says a connection to a Ray process went away."""
    text = str(exc).lower()
    return isinstance(exc, ConnectionError) or any(
        w in text
        for w in (
            "connection reset",
            "connection refused",
            "broken pipe",
            "socket closed",
            "end of file",
        )
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return (lines[0] if lines else text)[:400]


#: Tries at joining through Ray Client: the head's proxy starts a server process for each client
#: session, and that start now and then fails on its own ("Initialization failure from server",
#: the proxy's log saying "SpecificServer startup failed": gRPC state its fork inherited, seen
#: once in a CI run), where a second try a moment later gets a fresh one.
CLIENT_ATTEMPTS = 2


def _client_start_failed(text: str) -> bool:
    """Whether an error's ``text`` is Ray Client's failure to start this client's session."""
    return "Initialization failure from server" in text


def join(ray: Any, address: str, runtime_env: dict, tries: int = 1, pause: float = 1.0) -> None:
    """``ray.init`` joining the cluster at ``address``, tried again (up to ``tries`` in all,
    ``pause`` seconds apart) when the head failed to start this client's session
    (``CLIENT_ATTEMPTS``); any other failure is raised at once."""
    for attempt in range(tries):
        try:
            ray.init(
                address=address,
                runtime_env=runtime_env,
                logging_level="ERROR",
                log_to_driver=False,
            )
            return
        except Exception as exc:
            if attempt + 1 >= tries or not _client_start_failed(_chain_text(exc)):
                raise
            ray.shutdown()
            time.sleep(pause)


def is_client_address(address: str | None) -> bool:
    """Whether ``address`` is a Ray Client address (``ray://host:port``)."""
    return address is not None and address.strip().lower().startswith("ray://")


REACH_SECONDS = 5.0  # how long to wait for a cluster's address to accept a connection


def check_reachable(address: str, timeout: float = REACH_SECONDS) -> None:
    """Fail fast when nothing listens at a cluster ``address`` (``host:port`` or
    ``ray://host:port``): ``ray.init`` would otherwise keep retrying for minutes."""
    from mallows.runner.executor import check_address_form

    check_address_form(address)
    if address.strip().lower() in ("auto", "local"):
        return
    host, _, port = address.split("://", 1)[-1].rpartition(":")
    try:
        with socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout):
            pass
    except OSError as exc:
        raise ClusterError(
            f"could not reach a Ray cluster at {address} ({exc.strerror or exc}): is its head "
            f"running (`ray start --head` prints the address to join) and is the port open "
            f"from this machine?"
        ) from None
