"""Results in object storage: a results folder at an fsspec URL.

``output: s3://bucket/run`` (or ``gs://``, ``az://``, ``file:///shared/run``:
any protocol fsspec knows, with its package installed, ``pip install
'ttrsim[s3]'`` for S3) puts the results folder there, laid out as on disk
(:mod:`ttrsim.results.folder`):

* **the workers write the part files** of the chunks they play
  (:func:`store_parts`, called by :func:`ttrsim.experiment.worker.run_chunk`)
  and send back only their rows, sizes and SHA-256. A part is written once,
  whole, at its final key (one PUT on an object store, where an object is
  whole or absent; a temporary name and a rename on a file system). A chunk
  played twice (a lost worker, a resume) writes the same bytes: a game
  depends only on its seed and number. The manifest lists a chunk only once
  its parts are written, with their SHA-256: a part the manifest does not
  list is a stray the next run deletes, and one that does not match its
  record is found by :func:`~ttrsim.results.folder.check_part`;
* **the run's process writes the rest** (:class:`UrlFolder`, the methods of
  :class:`~ttrsim.results.folder.Folder`): the manifest, ``map.json``,
  ``rules.json``, ``dims/``, and the parts of a point with a stop rule (its
  last chunk is cut there);
* **the lock is an object** (:class:`ObjectLock`): an object store has no
  ``flock``.

Storage options (endpoint, credentials) come from the file system's own
environment variables (``AWS_ENDPOINT_URL``, ``AWS_ACCESS_KEY_ID``,
``AWS_SECRET_ACCESS_KEY`` for S3) or the experiment's ``storage_options``,
which travel with the chunks to the workers and are recorded in the manifest
with their secrets hidden (:func:`ttrsim.experiment.schema.redacted`).

>>> is_url("s3://bucket/run"), is_url("results/run")
(True, False)
"""
from __future__ import annotations

import errno
import json
import os
import re
import socket
import threading
import uuid
from contextlib import contextmanager, suppress
from datetime import UTC, datetime

from .errors import ExperimentError
from .folder import LOCK, MANIFEST, MAP_FILE, RULES_FILE, TABLES, Folder, _owner, digest, now

URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://(.*)$")
ENV_HINT = "storage_options, or the file system's variables: AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, ... for S3"


def is_url(path) -> bool:
    """Whether ``path`` is a URL (``PROTOCOL://...``), not a folder path."""
    return isinstance(path, str) and URL.match(path) is not None


def filesystem(url: str, storage_options: dict | None = None):
    """``(fs, path)``: the fsspec file system of ``url`` and the folder's path
    in it. ValueError (one line, naming the URL) for an unknown protocol, a
    missing package, options the file system refuses or no path."""
    proto = URL.match(url).group(1).lower()
    try:
        import fsspec
        cls = fsspec.get_filesystem_class(proto)
    except ValueError:
        raise ValueError(f"{url!r} has an unknown protocol {proto + '://'!r}; expected a folder path or an fsspec "
                         "URL such as s3://BUCKET/FOLDER") from None
    except ImportError as e:
        text = str(e).strip().splitlines()
        raise ValueError(f"{url} needs an optional dependency ({text[0] if text else e.name}); expected it "
                         "installed: pip install 'ttrsim[s3]' for s3://, gcsfs for gs://, adlfs for az://") from None
    path = cls._strip_protocol(url).rstrip("/")
    if not path.strip("/"):
        raise ValueError(f"{url!r} names no bucket or folder; expected {proto}://BUCKET/FOLDER")
    try:
        fs = cls(**(storage_options or {}))
    except Exception as e:  # noqa: BLE001 (whatever the file system refuses its options with: one line)
        raise ValueError(f"{url}: the file system refuses storage_options ({type(e).__name__}: {_first(e)})") \
            from None
    return fs, path


def results_folder(output, storage_options: dict | None = None) -> Folder:
    """The results folder ``output``: a :class:`UrlFolder` for a URL, else a local :class:`Folder`."""
    return UrlFolder(output, storage_options) if is_url(output) else Folder(output)


def _first(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


@contextmanager
def translated(where):
    """Any error of a file system call as an ``OSError`` (a connection
    refused, missing credentials: botocore's own exceptions are not), so that
    the run says it in one line as for a local folder."""
    try:
        yield
    except (OSError, ExperimentError):
        raise
    except Exception as e:
        raise OSError(errno.EIO, f"{type(e).__name__}: {_first(e)}", str(where)) from e


def is_local(fs) -> bool:
    """Whether fsspec file system ``fs`` is this machine's (``file://``: a folder, maybe a shared one)."""
    return "file" in (fs.protocol if isinstance(fs.protocol, tuple) else (fs.protocol,))


def put(fs, path: str, data: bytes):
    """Write ``data`` whole at ``path``: one PUT on an object store (an object
    is whole or absent), a temporary name and a rename on a file system."""
    if not is_local(fs):
        fs.pipe_file(path, data)
        return
    tmp = f"{path}.{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp"
    try:
        fs.pipe_file(tmp, data)
        fs.mv(tmp, path)
    except BaseException:
        with suppress(OSError):
            fs.rm_file(tmp)
        raise


def store_parts(writer: dict, key: str, data: dict) -> dict:
    """Write the part files ``data`` (table -> Parquet bytes) of chunk ``key``
    into the folder at ``writer["url"]``, from the worker that played it;
    returns their sizes and SHA-256 (``bytes``, ``sha256``) for the manifest."""
    folder = UrlFolder(writer["url"], writer["storage_options"])
    for name, raw in data.items():
        folder.write_atomic(folder.part(name, key), raw)
    return {"bytes": {k: len(v) for k, v in data.items()}, "sha256": {k: digest(v) for k, v in data.items()}}


class UrlFolder(Folder):
    """A results folder at a URL (``root``), through its fsspec file system:
    the methods of :class:`Folder`. ``writer`` tells the workers where to
    write the part files (:func:`store_parts`)."""

    def __init__(self, url: str, storage_options: dict | None = None):
        self.root = url.rstrip("/")
        self.options = dict(storage_options or {})
        self.fs, self.path = filesystem(self.root, self.options)
        self.writer = {"url": self.root, "storage_options": self.options}
        self._lock = None

    @property
    def manifest_path(self) -> str:
        return self.file(MANIFEST)

    def file(self, *parts: str) -> str:
        return "/".join([self.path, *parts])

    def _listing(self) -> list[str]:
        """Every file under the folder, as paths relative to it (fresh: other processes write here)."""
        with translated(self.root):
            self.fs.invalidate_cache()
            try:
                found = self.fs.find(self.path)
            except FileNotFoundError:
                return []
        base = self.path.rstrip("/") + "/"
        return [f[len(base):] for f in found if f.startswith(base)]

    def exists(self, *parts: str) -> bool:
        with translated(self.root):
            self.fs.invalidate_cache()
            return self.fs.exists(self.file(*parts))

    def has_manifest(self) -> bool:
        return self.exists(MANIFEST)

    def has_other_files(self) -> bool:
        return any(f != LOCK for f in self._listing())

    def foreign(self) -> bool:
        return not self.has_manifest() and not self.leftovers_only()

    def create(self):
        """A file system's folder is made; an object store has no folders (a
        missing bucket is found by the lock's first write)."""
        if is_local(self.fs):
            with translated(self.root):
                self.fs.makedirs(self.path, exist_ok=True)

    def lock(self) -> ObjectLock:
        self._lock = ObjectLock(self)
        return self._lock

    def read_bytes(self, path) -> bytes:
        with translated(path):
            return self.fs.cat_file(path)

    def write_atomic(self, path, data: bytes):
        with translated(path):
            put(self.fs, path, data)

    def write_manifest(self, manifest: dict):
        lost = self._lock.lost if self._lock is not None else None
        if lost is not None:
            raise ExperimentError(f"output: {self.root}: another run took this run's lock over ({_owner(lost)}) after "
                                  f"it was not renewed for {ObjectLock.STALE:g} s; expected one run at a time per "
                                  "folder (the manifest was left as that run writes it)")
        super().write_manifest(manifest)

    def write_manifest_last(self, manifest: dict):
        self.write_manifest(manifest)

    def check(self, *args, **kwargs):
        with translated(self.root):
            return super().check(*args, **kwargs)

    def digest(self, table: str, key: str) -> str:
        with translated(self.root):
            return super().digest(table, key)

    def unreadable(self, table: str, key: str) -> str | None:
        with translated(self.root):
            return super().unreadable(table, key)

    def prepare(self, tables):
        if is_local(self.fs):
            with translated(self.root):
                for t in (*tables, "dims"):
                    self.fs.makedirs(self.file(t), exist_ok=True)

    def leftovers_only(self) -> bool:
        for f in self._listing():
            top, _, rest = f.partition("/")
            if not rest:
                if f not in (LOCK, MAP_FILE, RULES_FILE) and not f.endswith(".tmp"):
                    return False
            elif top not in self.TABLE_DIRS or "/" in rest or not rest.endswith((".parquet", ".tmp")):
                return False
        return True

    def clean_strays(self, keep: set[str]):
        gone = []
        for f in self._listing():
            top, _, name = f.partition("/")
            if f.endswith(".tmp") and (not name or top in self.TABLE_DIRS):
                gone.append(f)
            elif top in TABLES and name.startswith("part-") and name.endswith(".parquet") and name[5:-8] not in keep:
                gone.append(f)
        self._remove(gone)

    def remove_results(self):
        self._remove([f for f in self._listing() if f.partition("/")[0] in self.TABLE_DIRS
                      or f in (MANIFEST, MAP_FILE, RULES_FILE) or ("/" not in f and f.endswith(".tmp"))])

    def _remove(self, names: list[str]):
        if names:
            with translated(self.root):
                self.fs.rm([self.file(f) for f in names])


class ObjectLock:
    """The lock of a results folder at a URL: the object ``ttrsim.lock``,
    holding its owner's pid, host, start, a token of its own and when it was
    last renewed (``renewed``, every ``RENEW`` seconds by a thread).

    It is taken by a conditional put that succeeds only where no lock object
    is (S3's ``If-None-Match: *``; an exclusive create on a file system). One
    that is there belongs to a live run, and the run is refused in one line
    naming it, unless it is stale: not renewed for ``STALE`` seconds (by this
    machine's clock against its owner's), or written from this host by a
    process that is gone. A stale lock is taken over (with a note: the run
    before was killed), by a put conditional on the ETag read (S3's
    ``If-Match``) and read back. Its limits (docs/cluster.md): a run whose
    process stalls for ``STALE`` seconds (a suspended machine) may have its lock
    taken over; it then stops at its next manifest write. Clocks more than
    ``STALE`` seconds apart break it, and a file system without conditional
    writes leaves a window of one read between two runs starting at once."""
    RENEW = 10.0
    STALE = 60.0

    def __init__(self, folder: UrlFolder):
        self.fs, self.path, self.root = folder.fs, folder.file(LOCK), folder.root
        self.token = uuid.uuid4().hex
        self.started = None
        self.lost = None               # what the lock said when another run was found holding it
        self._stop = threading.Event()
        self._thread = None

    def _record(self) -> bytes:
        return json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started": self.started,
                           "renewed": now(), "token": self.token}).encode()

    def read(self) -> tuple[dict | None, str | None]:
        """What the lock object says ({} when damaged) and its ETag; (None, None) without one."""
        self.fs.invalidate_cache()
        try:
            etag = self.fs.info(self.path).get("ETag")       # (first: the data read next is at least as new)
            data = json.loads(self.fs.cat_file(self.path) or b"null")
        except FileNotFoundError:
            return None, None
        except ValueError:
            return {}, None
        return (data if isinstance(data, dict) else {}), etag

    def _put(self, etag: str | None) -> bool:
        """Write this run's record over the lock read with ``etag`` (only if
        it is unchanged, where the store can say); whether it is ours after."""
        conditional = {"IfMatch": etag} if etag and "s3" in self.fs.protocol else {}
        try:
            self.fs.pipe_file(self.path, self._record(), **conditional)
        except OSError:                  # (the precondition failed: another run wrote it meanwhile)
            pass
        return (self.read()[0] or {}).get("token") == self.token

    def acquire(self, source: str = "<dict>") -> dict | None:
        """Take the lock, or ExperimentError naming its owner when a live run
        holds it. Returns what a stale lock said of its owner (a run that
        died holding it), else None."""
        self.started = now()
        previous = None
        with translated(self.path):
            while True:
                try:
                    if is_local(self.fs):
                        with self.fs.open(self.path, "xb") as f:
                            f.write(self._record())
                    else:
                        self.fs.pipe_file(self.path, self._record(), mode="create")
                    break
                except FileExistsError:
                    pass
                info, etag = self.read()
                if info is None:           # released meanwhile
                    continue
                if not stale(info, self.STALE):
                    raise ExperimentError(f"{source}: output: {self.root} is in use by another ttrsim run "
                                          f"({_owner(info)}); expected one run at a time per folder: wait for it "
                                          f"to end or stop it (a lock not renewed for {self.STALE:g} s is taken "
                                          "over)")
                if self._put(etag):
                    previous = info
                    break
        self._thread = threading.Thread(target=self._renew, name="ttrsim-lock", daemon=True)
        self._thread.start()
        return previous

    def _renew(self):
        while not self._stop.wait(self.RENEW):
            try:
                info, etag = self.read()
                if (info or {}).get("token") != self.token or not self._put(etag):
                    self.lost = self.read()[0] or {}
                    return
            except Exception:  # noqa: BLE001 (a network hiccup: the next renewal tries again)
                continue

    def release(self):
        """Stop renewing; delete the lock object if it is still this run's."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
            with suppress(Exception):
                if self.lost is None and (self.read()[0] or {}).get("token") == self.token:
                    self.fs.rm_file(self.path)


def stale(info: dict, after: float) -> bool:
    """Whether the lock record ``info`` belongs to a run that is gone: not
    renewed for ``after`` seconds, or written on this host by a process that
    no longer runs."""
    if info.get("host") == socket.gethostname() and isinstance(info.get("pid"), int):
        try:
            os.kill(info["pid"], 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            pass
    try:
        renewed = datetime.fromisoformat(info["renewed"])
    except (KeyError, TypeError, ValueError):
        return True
    return (datetime.now(UTC) - renewed).total_seconds() > after


def live_owner(folder: UrlFolder) -> int | None:
    """The pid of the run holding the folder's lock, if it is live."""
    with suppress(Exception):
        info = ObjectLock(folder).read()[0]
        if info and not stale(info, ObjectLock.STALE):
            return info.get("pid")
    return None


__all__ = ["is_url", "filesystem", "results_folder", "UrlFolder", "ObjectLock", "store_parts", "put"]
