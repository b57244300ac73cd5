"""A scheduler's address that cannot work is one error line, exit 2, with nothing written:
an address Dask cannot read, one without a port, a host unknown, a port nothing listens on,
a listener that never answers, and a scheduler that wants TLS reached over plain tcp://."""

from __future__ import annotations

import re
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.cli import arena
from tests.helpers.dask import dask
from tests.helpers.paths import GREEDY, RANDOM
from tests.helpers.tournaments import path_bot, write_tournament

HEAD = "error: cannot reach the Dask scheduler at {}: "


def refused(tmp_path: Path, address: str, *more: str) -> str:
    """The one line `arena tournament --cluster ADDRESS` prints (exit 2, nothing written)."""
    file = write_tournament(tmp_path, [path_bot(RANDOM), path_bot(GREEDY)], sandbox="off")
    results = tmp_path / "results"
    done = subprocess.run(
        arena("tournament", file, "--results", results, "--cluster", address, *more),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == "" and len(done.stdout.splitlines()) == 1, done.stdout
    assert not results.exists()
    line = done.stdout.rstrip("\n")
    assert line.startswith(HEAD.format(address)), line
    return line[len(HEAD.format(address)) :]


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # (nothing listens there once it is closed)


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that takes connections and never says a word."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield int(sock.getsockname()[1])


def test_an_address_dask_cannot_read_is_refused_in_words(tmp_path: Path) -> None:
    assert refused(tmp_path, "bogus://x") == (
        "'bogus' is not a scheme Dask knows; a scheduler's address is tcp://HOST:PORT "
        "(tls://, ws:// and wss:// are the others)"
    )
    assert refused(tmp_path, "tcp://127.0.0.1") == (
        "it names no port; a scheduler's address is tcp://HOST:PORT (8786 unless "
        "`dask scheduler --port` said otherwise)"
    )


def test_a_host_unknown_and_a_port_nothing_listens_on_are_said_at_once(
    tmp_path: Path, closed_port: int
) -> None:
    started = time.monotonic()
    assert refused(tmp_path, "tcp://no-such-host.invalid:8786") == (
        "no host is known by the name 'no-such-host.invalid'"
    )
    assert refused(tmp_path, f"tcp://127.0.0.1:{closed_port}") == (
        f"nothing listens on port {closed_port} of 127.0.0.1 (the connection was refused): "
        "start the scheduler there (`dask scheduler`), or check the address"
    )
    assert time.monotonic() - started < 20  # (Dask itself would retry until its timeout)


def test_a_listener_that_never_answers_is_given_up_after_the_wait(
    tmp_path: Path, silent_port: int
) -> None:
    assert refused(tmp_path, f"tcp://127.0.0.1:{silent_port}", "--wait-timeout", "1") == (
        "something listens there but did not answer as a Dask scheduler within 1 s"
    )


@pytest.mark.slow  # (a scheduler process)
def test_a_tls_scheduler_reached_over_plain_tcp_says_to_use_tls(tmp_path: Path) -> None:
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-keyout", str(key), "-out", str(cert), "-subj", "/CN=arena-test"),
        ],
        check=True,
        capture_output=True,
    )
    tls = {
        "DASK_DISTRIBUTED__COMM__TLS__CA_FILE": str(cert),
        "DASK_DISTRIBUTED__COMM__TLS__SCHEDULER__CERT": str(cert),
        "DASK_DISTRIBUTED__COMM__TLS__SCHEDULER__KEY": str(key),
    }
    args = ["--protocol", "tls", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"]
    with dask(tmp_path, "scheduler", *args, env=tls) as (proc, log):
        deadline = time.monotonic() + 20
        while not (found := re.search(rb"Scheduler at:\s+tls://(\S+)", log.read_bytes())):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        plain = f"tcp://{found.group(1).decode()}"
        assert refused(tmp_path, plain) == (
            "what listens there closed the connection without answering as a Dask scheduler; "
            "a scheduler that wants TLS does that to a plain tcp:// connection: give its "
            "tls:// address, with Dask's TLS configuration (distributed.comm.tls)"
        )
