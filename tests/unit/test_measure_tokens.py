"""Token counting in bulk: the forked counter gives the in-process numbers, whatever happens."""

from __future__ import annotations

import os
import signal
import sys

import pytest

from toolcat import tokens

TEXTS = ["", "hello world", "\u00e9t\u00e9 \u2603 " * 50, '{"a":[1,2,3]}' * 2000,
         "x" * 70_000, "<|endoftext|> is ordinary text here"]

needs_fork = pytest.mark.skipif(not hasattr(os, "fork") or not sys.platform.startswith("linux"),
                                reason="the forked counter is Linux-only")


def expected(name="o200k_base"):
    return [tokens.count(t, name) for t in TEXTS]


@needs_fork
@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_forked_counter_matches_in_process(name):
    c = tokens.ForkedCounter(name)
    for t in TEXTS:
        c.submit(t)
    assert c.results() == expected(name)
    c.close(kill=True)  # harmless after results()


@needs_fork
def test_a_dead_child_falls_back_to_counting_here():
    c = tokens.ForkedCounter("o200k_base")
    os.kill(c._pid, signal.SIGKILL)
    for t in TEXTS:
        c.submit(t.encode("utf-8"))
    assert c.results() == expected()


@needs_fork
def test_kill_releases_the_child():
    c = tokens.ForkedCounter("o200k_base")
    pid = c._pid
    c.submit("abc")
    c.close(kill=True)
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def test_in_process_counter_and_opt_out(monkeypatch):
    monkeypatch.setenv("TOOLCAT_NO_FORK", "1")
    c = tokens.counter("o200k_base")
    assert type(c) is tokens.Counter
    for t in TEXTS:
        c.submit(t)
    assert c.results() == expected()
