"""The audit hook (PEP 578): a last Python-level lock that also sees what library code does.

Installed once in the worker after pandas and numpy are imported and warmed up (their imports
open files); it does nothing in the worker itself and is *armed* in each forked child just before
generated code runs. Armed, it refuses file opens, sockets, processes, signals to other processes,
ctypes, code-object construction, further ``exec`` and frame walking, whoever asks: the generated
code or pandas on its behalf (``df.to_csv('/tmp/x')`` gets past no lock).

Hooks cannot be removed, and this one is tiny: a set lookup per event.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["arm", "install", "trusted"]

_BLOCKED_EVENTS = frozenset(
    {
        "open", "os.system", "os.exec", "os.spawn", "os.posix_spawn", "os.fork", "os.forkpty",
        "os.kill", "os.killpg", "os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.chmod",
        "os.chown", "os.chdir", "os.listdir", "os.scandir", "os.truncate", "os.link",
        "os.symlink", "os.utime", "os.putenv", "os.unsetenv", "os.startfile", "os.mkfifo",
        "os.mknod", "os.setxattr", "os.removexattr", "os.listxattr", "os.getxattr",
        "subprocess.Popen", "pty.spawn", "shutil.copyfile", "shutil.copymode", "shutil.copystat",
        "shutil.copytree", "shutil.move", "shutil.rmtree", "shutil.make_archive",
        "shutil.unpack_archive", "tempfile.mkstemp", "tempfile.mkdtemp", "mmap.__new__",
        "code.__new__", "function.__new__", "marshal.loads", "marshal.load", "marshal.dumps",
        "pickle.find_class", "sys.addaudithook", "sys.settrace", "sys.setprofile",
        "sys._current_frames", "sys.setrecursionlimit", "resource.setrlimit", "resource.prlimit",
        "gc.get_objects", "gc.get_referrers", "gc.get_referents", "builtins.input",
        "cpython.run_command", "cpython.run_file", "cpython.run_module", "cpython.run_startup",
        "import", "sqlite3.connect", "urllib.Request", "http.client.connect", "ftplib.connect",
        "smtplib.connect", "webbrowser.open", "os.add_dll_directory", "fcntl.ioctl",
        "fcntl.fcntl", "fcntl.flock", "fcntl.lockf", "signal.pthread_kill",
        "object.__setattr__", "object.__delattr__",
    }
)  # fmt: skip
_BLOCKED_PREFIXES = ("socket.", "ctypes.", "winreg.", "_winapi.", "msvcrt.", "syslog.")
_FRAME_ATTRS = frozenset({"gi_frame", "cr_frame", "ag_frame", "tb_frame", "f_back", "f_globals", "f_builtins"})


class _State:
    installed = False
    armed = False
    trusted = False
    allowed_code: Any = None


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if not _State.armed:
        return
    if event == "exec":
        if args and args[0] is _State.allowed_code:
            _State.allowed_code = None  # one run, once
            return
        raise PermissionError("sandbox: running hidden code (exec/eval) is blocked")
    if event == "object.__getattr__":
        if not _State.trusted and len(args) > 1 and args[1] in _FRAME_ATTRS:
            raise PermissionError(f"sandbox: attribute {args[1]!r} is blocked")
        return
    if event in _BLOCKED_EVENTS or event.startswith(_BLOCKED_PREFIXES):
        detail = f" {args[0]!r}" if args and isinstance(args[0], str | bytes | int) else ""
        raise PermissionError(f"sandbox: {event}{detail} is blocked (no files, network or processes)")


def install() -> None:
    """Add the hook to this process (once; inactive until :func:`arm`)."""
    if not _State.installed:
        sys.addaudithook(_hook)
        _State.installed = True


def arm(code_object: Any) -> None:
    """Enforce from now on; ``code_object`` is the one code object allowed to ``exec``."""
    _State.allowed_code = code_object
    _State.armed = True


class trusted:
    """A short window in which *our* code (never generated code) may walk frames of a traceback."""

    def __enter__(self) -> None:
        _State.trusted = True

    def __exit__(self, *exc: object) -> None:
        _State.trusted = False
