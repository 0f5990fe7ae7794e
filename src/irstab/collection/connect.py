"""Connecting to a Dask scheduler: the address, what answers at it, and how long irstab waits.

Addresses
---------
``tcp://HOST:PORT`` (or ``HOST:PORT``), ``tls://HOST:PORT`` and, inside the process that
started the scheduler, ``inproc://...``. The address is checked before a client is made:

* the scheme is one of these and the port an integer in 1..65535 (never wrapped around);
* ``tls://`` needs this client's TLS files in Dask's configuration
  (``distributed.comm.tls.ca-file``, ``.client.cert``, ``.client.key``);
* at a ``tcp://`` address something must answer as Dask does. A Dask server speaks first
  on a new connection: a handshake message whose 8-byte little-endian length header is
  small and whose body names ``pickle-protocol``. A server that closes the connection,
  resets it, says nothing or sends other bytes is refused, and the message says which
  (an HTTP server waits for a request: it says nothing);
* it must be the *scheduler*: a Dask worker or nanny answers the handshake too, but asked
  who it is (Dask's ``identity`` request) it says so, and the error names its scheduler.

Deadlines
---------
Every wait on a cluster ends. Three deadlines, in seconds, from the environment (or a
:class:`Deadlines` given to :func:`get_client` and
:func:`irstab.collection.cluster.map_jobs`):

``IRSTAB_CONNECT_TIMEOUT`` (default 30)
    one exchange with the scheduler: connecting (the handshake gets at most 10 s of it),
    asking who answers and how many workers it has, cancelling, closing; sending the qrels
    index to a worker gets this plus the worker deadline plus a second per MiB.
``IRSTAB_WORKER_TIMEOUT`` (default 60)
    a cluster without a worker: a nanny restarts a killed worker within seconds; when no
    worker is back within this time the run fails ("no worker left").
``IRSTAB_JOB_TIMEOUT`` (default 3600)
    no job finishing while there are workers: a job may run long, but when none of the
    run's jobs finished for this long the run fails (also for local worker processes,
    :mod:`irstab._workers`). Raise it for very large batches.

Each failure is an :class:`~irstab.errors.IRStabError` naming the scheduler, what was
waited for, and the variable that sets the deadline.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import struct
from dataclasses import dataclass

from .._workers import DEFAULT_JOB_TIMEOUT, JOB_TIMEOUT_ENV, call_within, seconds_from_env
from ..errors import IRStabError

__all__ = ["SCHEDULER_ENV", "Deadlines", "check_address", "close_client", "get_client",
           "scheduler_client"]

SCHEDULER_ENV = "IRSTAB_SCHEDULER"
CONNECT_TIMEOUT_ENV = "IRSTAB_CONNECT_TIMEOUT"
WORKER_TIMEOUT_ENV = "IRSTAB_WORKER_TIMEOUT"
_GREETING_SECONDS = 10.0  # at most this long for a scheduler's first bytes (it sends them at once)
_FRAME_LIMIT = 2**20  # a Dask handshake frame is a few hundred bytes


@dataclass(frozen=True)
class Deadlines:
    """Seconds irstab waits on a Dask cluster (module docstring): ``connect``, ``workers``,
    ``job``. :meth:`from_env` reads them from the environment."""

    connect: float = 30.0
    workers: float = 60.0
    job: float = DEFAULT_JOB_TIMEOUT

    @classmethod
    def from_env(cls) -> Deadlines:
        """``IRSTAB_CONNECT_TIMEOUT``, ``IRSTAB_WORKER_TIMEOUT``, ``IRSTAB_JOB_TIMEOUT`` (each
        a number of seconds > 0; unset: the defaults)."""
        return cls(connect=seconds_from_env(CONNECT_TIMEOUT_ENV, cls.connect),
                   workers=seconds_from_env(WORKER_TIMEOUT_ENV, cls.workers),
                   job=seconds_from_env(JOB_TIMEOUT_ENV, cls.job))


# ---------------------------------------------------------------- the address


def _host_port(address: str, rest: str, scheme: str) -> tuple[str, int]:
    host, sep, port = rest.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not (port.isascii() and port.isdigit()):
        raise IRStabError(f"--scheduler {address}: expected {scheme}://HOST:PORT, e.g. "
                          f"{scheme}://host:8786")
    number = int(port) if len(port) <= 6 else None  # int() of 5,000 digits would raise
    if number is None or not 1 <= number <= 65535:
        shown = port if number is not None else f"{port[:6]}... ({len(port)} digits)"
        raise IRStabError(f"--scheduler {address if number is not None else address[:40] + '...'}"
                          f": port {shown} is outside 1..65535")
    return host, number


def _tcp(address: str, rest: str, connect: float) -> dict:
    host, port = _host_port(address, rest, "tcp")
    try:  # the probe's socket has its deadlines; resolving the host name is bounded here
        call_within(2 * connect + _GREETING_SECONDS, _probe, address, host, port, connect)
    except TimeoutError:
        raise IRStabError(f"cannot reach the Dask scheduler at {address}: no connection within "
                          f"{2 * connect:g} s (resolving {host!r}?; {CONNECT_TIMEOUT_ENV} sets "
                          "the deadline)") from None
    _require_scheduler(address, connect, {})
    return {}


def _tls(address: str, rest: str, connect: float) -> dict:
    _host_port(address, rest, "tls")
    from distributed.security import Security

    try:
        security = Security()
        args = security.get_connection_args("client")
    except Exception as exc:  # noqa: BLE001 - a TLS file Dask's configuration names is unusable
        raise IRStabError(f"--scheduler {address}: Dask's TLS configuration cannot be used: "
                          f"{exc}") from None
    if args.get("ssl_context") is None:
        raise IRStabError(
            f"--scheduler {address}: a tls:// scheduler needs this client's TLS files in "
            "Dask's configuration (distributed.comm.tls.ca-file, distributed.comm.tls.client."
            "cert and .key, e.g. DASK_DISTRIBUTED__COMM__TLS__CA_FILE=...), and none is set"
        )
    _require_scheduler(address, connect, args)
    return {"security": security}


def _inproc(address: str, rest: str, connect: float) -> dict:
    parts = rest.split("/")
    if len(parts) != 3 or not parts[1].isdigit() or int(parts[1]) != os.getpid():
        raise IRStabError(
            f"--scheduler {address}: an inproc:// address reaches a scheduler only inside the "
            f"process that started it (this is process {os.getpid()}); give the scheduler's "
            "tcp:// address"
        )
    return {}


_SCHEMES = {"tcp": _tcp, "tls": _tls, "inproc": _inproc}


def check_address(address: str) -> tuple[str, str]:
    """``(scheme, rest)`` of a scheduler address, or :class:`IRStabError` naming what is wrong
    with it (an unsupported scheme; the host and port are checked with the scheme)."""
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    if scheme not in _SCHEMES:
        raise IRStabError(f"--scheduler {address}: irstab connects to a Dask scheduler at "
                          f"tcp://HOST:PORT or tls://HOST:PORT, not {scheme}://")
    return scheme, rest


def _probe(address: str, host: str, port: int, connect: float) -> None:
    """Check that something at ``host:port`` speaks first as Dask does (module docstring)."""
    wait = min(connect, _GREETING_SECONDS)
    greeting, ending = b"", "silent"
    try:
        with socket.create_connection((host, port), timeout=connect) as conn:
            conn.settimeout(wait)
            try:
                while len(greeting) < 512:
                    chunk = conn.recv(512 - len(greeting))
                    if not chunk:
                        ending = "closed"
                        break
                    greeting += chunk
                    if b"pickle-protocol" in greeting or len(greeting) >= 8 and (
                            struct.unpack("<Q", greeting[:8])[0] > _FRAME_LIMIT
                            or len(greeting) >= 8 + struct.unpack("<Q", greeting[:8])[0]):
                        break  # a Dask greeting, or a whole first message that is none
            except socket.timeout:
                pass
            except ConnectionError:
                ending = "reset"
    except (ConnectionResetError, ConnectionAbortedError):
        ending = "reset"  # before connect() returned: a connect with a timeout polls SO_ERROR
    except OSError as exc:
        raise IRStabError(
            f"cannot reach the Dask scheduler at {address}: {exc.strerror or exc}"
        ) from None
    if not greeting:
        said = {
            "silent": f"accepted the connection but sent nothing within {wait:g} s",
            "closed": "accepted the connection and closed it at once without sending anything",
            "reset": "accepted the connection and reset it without sending anything",
        }[ending]
        raise IRStabError(
            f"{address} {said}: it is not a Dask scheduler speaking tcp:// (an HTTP server "
            "waits silently, and so does a TLS scheduler, which needs tls://; a tcp:// "
            "scheduler greets every connection at once); give the scheduler's address, e.g. "
            "tcp://host:8786"
        )
    if len(greeting) < 8 or struct.unpack("<Q", greeting[:8])[0] > _FRAME_LIMIT \
            or b"pickle-protocol" not in greeting:
        raise IRStabError(
            f"{address} answered with bytes that are not the Dask protocol "
            f"({greeting[:24]!r}...): it is not a Dask scheduler; give the scheduler's address, "
            "e.g. tcp://host:8786"
        )


def _identity(address: str, connect: float, connection_args: dict) -> dict:
    """What the Dask server at ``address`` says it is (its ``identity`` reply)."""
    import asyncio

    from distributed.core import rpc

    async def ask():
        async with rpc(address, timeout=connect, connection_args=connection_args) as server:
            return await asyncio.wait_for(server.identity(), connect)

    return call_within(connect + 1.0, asyncio.run, ask())


def _require_scheduler(address: str, connect: float, connection_args: dict) -> None:
    try:
        info = _identity(address, connect, connection_args)
    except TimeoutError:
        raise IRStabError(f"{address} did not say what it is within {connect:g} s (Dask's "
                          f"identity request; {CONNECT_TIMEOUT_ENV} sets the deadline)") from None
    except Exception as exc:  # noqa: BLE001 - whatever failed, it is no usable scheduler
        raise IRStabError(f"cannot ask {address} what it is (Dask's identity request): "
                          f"{type(exc).__name__}: {exc}") from None
    kind = info.get("type") if isinstance(info, dict) else None
    if kind == "Scheduler":
        return
    scheduler = info.get("scheduler") if isinstance(info, dict) else None
    hint = f"its scheduler is at {scheduler}" if scheduler else "e.g. tcp://host:8786"
    what = {"Worker": "a Dask worker", "Nanny": "a Dask nanny (it supervises a worker)"}.get(
        kind, f"a Dask server of type {kind!r}")
    raise IRStabError(f"{address} is {what}, not the scheduler: give the scheduler's address "
                      f"({hint})")


# ---------------------------------------------------------------- the client


def get_client(scheduler: str | None = None, timeout: float | None = None,
               deadlines: Deadlines | None = None):
    """A ``distributed.Client`` for ``scheduler`` (or ``$IRSTAB_SCHEDULER``); None if neither.

    ``timeout`` (seconds) overrides ``deadlines.connect`` (default
    :meth:`Deadlines.from_env`). The address is checked first (module docstring).

    Raises
    ------
    IRStabError
        dask.distributed is not installed; the address is malformed, names an unsupported
        scheme, a port outside 1..65535, a server that is not a Dask scheduler (the message
        says what answered), or a scheduler that does not complete the connection within
        the connect deadline.
    """
    address = (scheduler or os.environ.get(SCHEDULER_ENV) or "").strip() or None
    if address is None:
        return None
    deadlines = deadlines or Deadlines.from_env()
    if timeout is not None:
        if not (isinstance(timeout, (int, float)) and 0 < timeout < float("inf")):
            raise IRStabError(f"timeout: must be a number of seconds > 0, got {timeout!r}")
        deadlines = dataclasses.replace(deadlines, connect=float(timeout))
    try:
        from distributed import Client
    except ImportError:
        raise IRStabError(
            f"--scheduler {address}: needs dask.distributed (pip install 'irstab[dask]')"
        ) from None
    scheme, rest = check_address(address)
    options = _SCHEMES[scheme](address, rest, deadlines.connect)
    level = os.environ.get("DASK_LOGGING__DISTRIBUTED")
    if level:  # the CLI sets it: a lost worker is reported in one line, not logged with tracebacks
        import logging

        for name in [n for n in logging.root.manager.loggerDict if n.startswith("distributed")]:
            logging.getLogger(name).setLevel(level.upper())
    try:
        return call_within(2 * deadlines.connect + 5.0, Client, address,
                           timeout=f"{deadlines.connect}s", **options)
    except TimeoutError:
        raise IRStabError(
            f"the Dask scheduler at {address} did not complete the connection within "
            f"{deadlines.connect:g} s ({CONNECT_TIMEOUT_ENV} sets the deadline)"
        ) from None
    except Exception as exc:  # noqa: BLE001 - Dask raises OSError, TypeError, ValueError, ...
        raise IRStabError(f"cannot reach the Dask scheduler at {address}: "
                          f"{exc.strerror if isinstance(exc, OSError) and exc.strerror else exc}"
                          ) from None


def close_client(client, seconds: float | None = None) -> None:
    """Close ``client`` within ``seconds`` (default the connect deadline); a scheduler that is
    gone or does not answer leaves nothing to wait for."""
    if client is None:
        return
    if seconds is None:
        seconds = Deadlines.from_env().connect
    try:
        call_within(seconds + 5.0, client.close, timeout=seconds)
    except Exception:  # noqa: BLE001 - the command's work is done; the connection is dropped
        pass


class scheduler_client:
    """``with scheduler_client(address) as client:`` -- None without a scheduler; closed after
    (within the connect deadline)."""

    def __init__(self, scheduler: str | None, deadlines: Deadlines | None = None):
        self.scheduler = scheduler
        self.deadlines = deadlines
        self.client = None

    def __enter__(self):
        self.client = get_client(self.scheduler, deadlines=self.deadlines)
        return self.client

    def __exit__(self, *exc) -> None:
        close_client(self.client, self.deadlines.connect if self.deadlines else None)
