"""graphagents.isolation: a child per run, killed at its CPU, memory or wall limit; its own bounded
pool; every child killed on shutdown; answers are JSON, never objects."""

from __future__ import annotations

import os
import threading
import time

import pytest

from graphagents.errors import BusyError, InputError
from graphagents.isolation import IsolatedRunner, LimitExceeded, ProcessLimits

CATASTROPHIC = ("(a+)+$", "a" * 64 + "b")  # re.match backtracks for ages on one core, in a few KB


@pytest.fixture
def runner() -> IsolatedRunner:
    return IsolatedRunner("test-runs", workers=1, queue=0)


def test_a_run_happens_in_another_process_and_answers_json(runner: IsolatedRunner) -> None:
    assert runner.run("os:getpid") != os.getpid()
    assert runner.run("os.path:join", "a", "b") == "a/b"
    assert runner.started == 2 and runner.running == 0


def test_cpu_wall_and_memory_limits_stop_the_child(runner: IsolatedRunner) -> None:
    with pytest.raises(LimitExceeded, match="more than 1 s of CPU"):
        runner.run("re:match", *CATASTROPHIC, limits=ProcessLimits(seconds=60, cpu_seconds=1))
    with pytest.raises(LimitExceeded, match="longer than 1 s"):
        runner.run("time:sleep", 60, limits=ProcessLimits(seconds=1, cpu_seconds=60))
    with pytest.raises(LimitExceeded, match="memory"):
        runner.run("builtins:bytearray", 4_000_000_000, limits=ProcessLimits(memory_mb=256))
    assert runner.killed == 1 and runner.running == 0
    assert runner.run("os.path:basename", "/x/y.csv") == "y.csv"  # the runner still works


def test_a_child_error_is_one_line_without_its_internals(runner: IsolatedRunner) -> None:
    with pytest.raises(InputError, match="could not be read") as info:
        runner.run("json:loads", "{not json")
    assert "Expecting" not in str(info.value) and "Traceback" not in str(info.value)


def test_the_pool_is_bounded_and_shutdown_kills_every_child(runner: IsolatedRunner) -> None:
    outcome: list[BaseException | object] = []

    def slow() -> None:
        try:
            outcome.append(runner.run("time:sleep", 120, limits=ProcessLimits(seconds=300, cpu_seconds=300)))
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=slow)
    thread.start()
    for _ in range(600):
        if runner.running:
            break
        time.sleep(0.05)
    assert runner.running == 1
    with pytest.raises(BusyError, match="too many test-runs"):  # one worker, no queue: refused, not queued
        runner.run("os:getpid")
    assert runner.cancel_all() == 1
    thread.join(30)
    assert not thread.is_alive() and isinstance(outcome[0], BusyError) and "shutting down" in str(outcome[0])
    assert runner.running == 0
    with pytest.raises(BusyError, match="shutting down"):
        runner.run("os:getpid")
    runner.reopen()
    assert isinstance(runner.run("os:getpid"), int)
