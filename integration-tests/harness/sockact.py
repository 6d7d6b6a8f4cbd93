"""Socket activation without systemd: the harness holds the ingest sockets,
as PID 1 does for arclamp-log.socket, and passes them to each arclamp-log it
starts (LISTEN_FDS, LISTEN_PID, LISTEN_FDNAMES). The sockets outlive the
daemon: datagrams sent while it is down (killed, restarting) wait in the
socket's receive queue for the next one.

`systemd-socket-activate --datagram -l ...` does not do here: without
--accept it execs the daemon in its own process, so a SIGKILL of the daemon
closes the sockets too; only a holder that is not the daemon keeps them.

    holder = SocketHolder(ns, udp=("10.77.0.12", 7761), unix="/tmp/.../ingest.sock")
    argv = holder.wrap([arclamp_log, config])   # pass_fds=holder.fds()

The UDP socket is created inside the namespace (a short-lived thread enters
it with setns(2); a socket belongs to the namespace it was created in, for
good). The unix socket is a path, which no network namespace owns.

The wrapper (this file run as a script) moves the given descriptors to
3, 4, ..., sets LISTEN_PID to its own pid and execs the command, which
keeps that pid — sd_listen_fds() checks it.
"""

import ctypes
import os
import socket
import sys
import threading

CLONE_NEWNET = 0x40000000
SD_LISTEN_FDS_START = 3
NETNS_DIR = "/var/run/netns"


def socket_in_netns(ns_name, family, type_, bind=None):
    """A socket created inside the named network namespace (and bound there)."""
    libc = ctypes.CDLL(None, use_errno=True)
    out = {}

    def run():
        try:
            fd = os.open(os.path.join(NETNS_DIR, ns_name), os.O_RDONLY | os.O_CLOEXEC)
            try:
                if libc.setns(fd, CLONE_NEWNET) != 0:
                    err = ctypes.get_errno()
                    raise OSError(err, "setns(%s): %s" % (ns_name, os.strerror(err)))
            finally:
                os.close(fd)
            s = socket.socket(family, type_)
            if bind is not None:
                s.bind(bind)
            out["sock"] = s
        except BaseException as exc:     # re-raised in the caller
            out["error"] = exc

    # This thread ends inside the namespace; the caller's threads never enter it.
    t = threading.Thread(target=run, name="setns-" + ns_name)
    t.start()
    t.join()
    if "error" in out:
        raise out["error"]
    return out["sock"]


class SocketHolder:
    """The ingest sockets of one tier2 host, held by the test process."""

    def __init__(self, ns, udp=None, unix=None, name="excimer"):
        self.socks = []
        self.names = []
        try:
            if udp is not None:
                self.socks.append(socket_in_netns(ns.name, socket.AF_INET, socket.SOCK_DGRAM, bind=udp))
                self.names.append(name)
            if unix is not None:
                try:
                    os.unlink(str(unix))
                except FileNotFoundError:
                    pass
                s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                s.bind(str(unix))
                os.chmod(str(unix), 0o666)
                self.socks.append(s)
                self.names.append(name)
                self.unix_path = str(unix)
            else:
                self.unix_path = None
        except BaseException:
            self.close()
            raise

    def fds(self):
        return tuple(s.fileno() for s in self.socks)

    def env(self):
        return {"LISTEN_FDNAMES": ":".join(self.names)}

    def wrap(self, argv):
        """argv run with the held sockets as descriptors 3.. (socket activation)."""
        fds = ",".join(str(fd) for fd in self.fds())
        return [sys.executable, os.path.abspath(__file__), "--fds", fds, "--"] + list(argv)

    def queued(self):
        """Bytes waiting in the sockets' receive queues (SIOCINQ)."""
        import fcntl
        import struct
        import termios
        total = 0
        for s in self.socks:
            buf = fcntl.ioctl(s.fileno(), termios.FIONREAD, struct.pack("i", 0))
            total += struct.unpack("i", buf)[0]
        return total

    def close(self):
        for s in self.socks:
            s.close()
        self.socks = []
        if self.unix_path:
            try:
                os.unlink(self.unix_path)
            except FileNotFoundError:
                pass


def _exec(argv):
    """--fds A,B,... -- COMMAND...: the descriptors become 3, 4, ..."""
    if len(argv) < 4 or argv[0] != "--fds" or argv[2] != "--":
        print("usage: sockact.py --fds A,B -- COMMAND...", file=sys.stderr)
        return 64
    fds = [int(x) for x in argv[1].split(",") if x]
    # first out of the way of 3.., then into place (dup2 clears FD_CLOEXEC)
    high = [os.dup(fd) for fd in fds]
    base = max(high + [SD_LISTEN_FDS_START + len(fds)]) + 1
    moved = []
    for fd in high:
        os.dup2(fd, base)
        os.close(fd)
        moved.append(base)
        base += 1
    for fd in fds:
        if fd not in moved:
            try:
                os.close(fd)
            except OSError:
                pass
    for i, fd in enumerate(moved):
        os.dup2(fd, SD_LISTEN_FDS_START + i)
        os.close(fd)
    os.environ["LISTEN_FDS"] = str(len(fds))
    os.environ["LISTEN_PID"] = str(os.getpid())
    os.execvp(argv[3], argv[3:])


if __name__ == "__main__":
    sys.exit(_exec(sys.argv[1:]))
