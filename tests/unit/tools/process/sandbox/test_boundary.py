"""The sandbox's pure parts: the policy, bubblewrap's argv, the Seatbelt profile (its text
only: no Mac here), the probe's messages and how denials are read and said."""

from __future__ import annotations

import dataclasses
import socket
from pathlib import Path

from lull.tools.process.sandbox.bwrap import bound_sockets, bwrap_argv
from lull.tools.process.sandbox.denials import denied_reads, denied_writes, explain
from lull.tools.process.sandbox.policy import SandboxPolicy, hidden_paths, reopened
from lull.tools.process.sandbox.probe import probe
from lull.tools.process.sandbox.proxy import target_of
from lull.tools.process.sandbox.seatbelt import seatbelt_profile

WS = Path("/work/project")
POLICY = SandboxPolicy(
    workspace=WS,
    writable=(WS, Path("/home/u/.cache")),
    read_only=(WS / ".git" / "hooks",),
    hidden=(Path("/home/u/.ssh"), Path('/home/u/we"ird')),
    allowed_domains=("pypi.org", "*.github.com"),
    excluded_commands=("docker", "git push *"),
)


def test_excluded_commands_match_a_prefix_or_a_pattern() -> None:
    assert POLICY.excludes("docker ps") and POLICY.excludes("docker")
    assert POLICY.excludes("git push origin main")
    assert not POLICY.excludes("dockerd") and not POLICY.excludes("git status")


def test_domains_match_exactly_or_by_wildcard() -> None:
    assert POLICY.admits("pypi.org") and POLICY.admits("PyPI.org.")
    assert POLICY.admits("api.github.com") and not POLICY.admits("github.com.evil")
    assert not POLICY.admits("example.org")


def test_hidden_paths_never_hide_the_workspace(tmp_path: Path) -> None:
    home = tmp_path / "home"
    hidden = hidden_paths(home, [home / "work"], ["~/notes"], home / "work" / "project")
    assert home / ".ssh" in hidden and home / ".aws" in hidden
    assert home / "work" not in hidden


def test_bwrap_binds_the_boundary_in_order(tmp_path: Path) -> None:
    ws, ssh = tmp_path / "ws", tmp_path / ".ssh"
    (ws / ".git").mkdir(parents=True)
    ssh.mkdir()
    (tmp_path / "netrc").touch()
    policy = SandboxPolicy(ws, (ws, tmp_path / "gone"), (ws / ".git",), (ssh, tmp_path / "netrc"))
    argv = bwrap_argv(
        policy, ["bash", "-c", "true"], socket=tmp_path / "s", unreadable_file=Path("/u")
    )
    joined = " ".join(argv)
    assert argv[:5] == ["bwrap", "--ro-bind", "/", "/", "--dev"]
    assert "--unshare-net" in argv and "--cap-drop ALL" in joined
    assert f"--bind {ws} {ws}" in joined and "gone" not in joined  # missing paths skipped
    assert joined.index(f"--bind {ws}") < joined.index(f"--ro-bind {ws / '.git'}")
    assert f"--perms 0000 --tmpfs {ssh} --remount-ro {ssh}" in joined
    assert f"--ro-bind /u {tmp_path / 'netrc'}" in joined
    assert argv[-3:] == ["bash", "-c", "true"]


def test_the_seatbelt_profile_has_the_same_boundary() -> None:
    profile = seatbelt_profile(POLICY, 41234, Path("/tmp/lull-sandbox-x/tmp"))
    assert profile.startswith("(version 1)\n(deny default)\n")
    assert '(deny file-read* (subpath "/home/u/.ssh") (subpath "/home/u/we\\"ird"))' in profile
    assert '(allow file-write* (subpath "/work/project") (subpath "/home/u/.cache")' in profile
    assert '(subpath "/tmp/lull-sandbox-x/tmp")' in profile
    assert '(deny file-write* (subpath "/work/project/.git/hooks"))' in profile
    assert '(allow network-outbound (remote ip "localhost:41234"))' in profile
    assert "network*" not in profile and "(allow default)" not in profile
    lines = profile.splitlines()
    assert lines.index("(allow file-read*)") < next(
        i for i, line in enumerate(lines) if line.startswith("(deny file-read*")
    )  # a later rule wins in Seatbelt


def test_the_probe_says_what_is_missing() -> None:
    none = probe("linux", which=lambda name: None)
    assert not none.ready
    assert none.missing == "bubblewrap is not installed: apt-get install bubblewrap socat"
    no_socat = probe("linux", which=lambda name: "/usr/bin/bwrap" if name == "bwrap" else None)
    assert no_socat.missing.startswith("socat is not installed")
    broken = probe("linux", which=lambda name: f"/usr/bin/{name}", works=lambda _: "EPERM")
    assert "cannot create namespaces" in broken.missing
    assert probe("linux", which=lambda name: f"/usr/bin/{name}", works=lambda _: "").ready
    assert probe("other").missing.startswith("no sandbox")


def test_proxy_request_lines() -> None:
    assert target_of("CONNECT pypi.org:443 HTTP/1.1") == ("CONNECT", "pypi.org", 443, "")
    assert target_of("GET http://h:8080/a?b=1 HTTP/1.1") == ("GET", "h", 8080, "/a?b=1")
    assert target_of("GET /relative HTTP/1.1") is None
    assert target_of("CONNECT nohost HTTP/1.1") is None


def test_denials_name_the_path_and_the_setting() -> None:
    out = (
        "rm: cannot remove '/etc/x': Read-only file system\ncat: /home/u/.ssh/id: Permission denied"
    )
    writes = denied_writes(out, "rm -rf /etc/x", POLICY)
    reads = denied_reads(out, "cat ~/.ssh/id", POLICY)
    assert writes is not None and writes.named == [Path("/etc/x")] and not writes.guessed
    assert reads.named == [Path("/home/u/.ssh/id")]
    said = explain(writes, reads, ["evil.example"], POLICY)
    assert said[0] == (
        "the sandbox denied writing /etc/x (outside the workspace; "
        "sandbox.filesystem.allowWrite can allow it)"
    )
    assert "denied access to /home/u/.ssh/id" in said[1]
    assert "network access to evil.example" in said[2]
    assert denied_writes("all fine", "ls", POLICY) is None
    unnamed = denied_writes("Errno 30 Read-only file system: 'f'", "python x.py", POLICY)
    assert unnamed is not None and not unnamed
    assert "the error does not say where" in explain(unnamed, reads, [], POLICY)[0]


def test_seatbelt_reopens_allow_read_and_opens_listed_sockets_and_local_binding() -> None:
    policy = dataclasses.replace(
        POLICY,
        readable=(Path("/home/u/.ssh/known_hosts"),),
        unix_sockets=(Path("/tmp/agent.sock"),),
        local_binding=True,
    )
    lines = seatbelt_profile(policy, 41234, Path("/tmp/t")).splitlines()
    reopened = '(allow file-read* (subpath "/home/u/.ssh/known_hosts"))'
    denied = next(i for i, line in enumerate(lines) if line.startswith("(deny file-read*"))
    assert lines.index(reopened) > denied  # a later rule wins
    socket = '(allow network-outbound (remote unix-socket (path-literal "/tmp/agent.sock")))'
    assert socket in lines
    assert '(allow network-bind (local ip "localhost:*"))' in lines
    plain = seatbelt_profile(POLICY, 41234, Path("/tmp/t"))
    assert "network-bind" not in plain and "unix-socket" not in plain


def test_bwrap_binds_allow_read_into_a_passable_folder_and_covers_other_sockets(
    tmp_path: Path,
) -> None:
    ws, ssh = tmp_path / "ws", tmp_path / ".ssh"
    ws.mkdir()
    ssh.mkdir()
    (ssh / "known_hosts").touch()
    policy = SandboxPolicy(
        ws, (ws,), hidden=(ssh,), readable=(ssh / "known_hosts",),
        unix_sockets=(Path("/run/user/1/ssh"),),
    )  # fmt: skip
    on_machine = [
        Path("/run/docker.sock"), Path("/run/user/1/ssh/agent"), ws / "dev.sock",
        ssh / "agent", tmp_path / "proxy.sock",
    ]  # fmt: skip
    argv = bwrap_argv(
        policy, ["true"], socket=tmp_path / "proxy.sock", unreadable_file=Path("/u"),
        sockets=on_machine,
    )  # fmt: skip
    joined = " ".join(argv)
    known = ssh / "known_hosts"
    assert f"--perms 0111 --tmpfs {ssh} --ro-bind {known} {known} --remount-ro {ssh}" in joined
    assert "--ro-bind /u /run/docker.sock" in joined  # the only socket covered:
    assert joined.count("--ro-bind /u ") == 1  # listed, in the workspace, hidden, the proxy's


def test_bound_sockets_are_read_from_the_kernels_table(tmp_path: Path) -> None:
    real = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(real))
    try:
        table = tmp_path / "unix"
        table.write_text(
            "Num       RefCount Protocol Flags    Type St Inode Path\n"
            "0000: 00000002 00000000 00010000 0001 01 1 " + str(real) + "\n"
            "0000: 00000002 00000000 00010000 0001 01 2 @abstract\n"
            "0000: 00000002 00000000 00010000 0001 01 3 /gone/socket\n"
            "0000: 00000003 00000000 00000000 0001 03 4\n"
        )
        assert bound_sockets(table) == [real.resolve()]
        assert bound_sockets(tmp_path / "missing") == []
    finally:
        server.close()


def test_allow_read_reopens_whole_places_or_paths_inside_them() -> None:
    hidden = (Path("/h/.ssh"), Path("/h/.aws"), Path("/h/secret"))
    kept, inside = reopened(hidden, [Path("/h/.aws"), Path("/h/secret/shared.txt"), Path("/x")])
    assert kept == (Path("/h/.ssh"), Path("/h/secret"))
    assert inside == (Path("/h/secret/shared.txt"),)
