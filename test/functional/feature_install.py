#!/usr/bin/env python3
"""`make install DESTDIR=...` installs the daemon as a package would: the three programs, a
man page each made from its -help, the example configuration with every option -help lists
(generated, so it cannot drift), bash completions that complete the options and the RPC
methods, and the systemd unit with Core's hardening (checked by systemd-analyze when systemd
is installed). The installed daemon runs from there."""

import os
import shutil
import subprocess

from framework import (BitnodeTestFramework, assert_equal, assert_in, assert_true, builddir)

PROGRAMS = ["bitnoded", "bitnode-cli", "bitnode-util"]


def help_options(binary):
    out = subprocess.run([binary, "-help"], capture_output=True, text=True, check=True).stdout
    return [l[3:].split("=")[0] for l in out.splitlines() if l.startswith("  -")]


class InstallTest(BitnodeTestFramework):
    num_nodes = 1
    start_nodes_at_setup = False

    def run_test(self):
        dest = os.path.join(self.tmpdir, "dest")
        self.log("make install DESTDIR=%s" % dest)
        r = subprocess.run(["make", "-C", builddir(), "install", "DESTDIR=" + dest],
                           capture_output=True, text=True)
        assert_equal(r.returncode, 0)
        prefix = os.path.join(dest, "usr", "local")
        files = sorted(os.path.relpath(os.path.join(d, f), prefix)
                       for d, _, fs in os.walk(dest) for f in fs)
        expected = sorted(["bin/" + p for p in PROGRAMS] +
                          ["share/man/man1/%s.1" % p for p in PROGRAMS] +
                          ["share/examples/bitnode.conf",
                           "share/bash-completion/completions/bitnoded",
                           "share/bash-completion/completions/bitnode-cli",
                           "lib/systemd/system/bitnoded.service"])
        assert_equal(files, expected)
        bitnoded = os.path.join(prefix, "bin", "bitnoded")
        for p in PROGRAMS:
            assert_true(os.access(os.path.join(prefix, "bin", p), os.X_OK), p + " executable")

        self.log("man pages: each program's -help")
        for p in PROGRAMS:
            with open(os.path.join(prefix, "share/man/man1/%s.1" % p)) as f:
                page = f.read()
            assert_true(page.startswith(".TH %s 1 " % p.upper()), "a man page header")
            for opt in help_options(os.path.join(prefix, "bin", p))[:50]:
                assert_in(opt, page)
        if shutil.which("man"):
            r = subprocess.run(["man", "-l", os.path.join(prefix, "share/man/man1/bitnoded.1")],
                               capture_output=True, text=True, env=dict(os.environ, MANWIDTH="80"))
            assert_in("-zmqpubrawtx=<address>", r.stdout)

        self.log("the example configuration: every option of -help, commented out")
        with open(os.path.join(prefix, "share/examples/bitnode.conf")) as f:
            conf = f.read()
        for opt in help_options(bitnoded):
            name = opt
            if name in ("help", "version", "conf"):
                assert_true("\n#%s" % name not in conf, name + " is command-line only")
            else:
                assert_true("\n#%s=" % name in conf, name + " in the example")
        assert_in("# Maximum database cache size <n> MiB (default: 450)\n#dbcache=<n>", conf)
        self.log("...and a daemon reads it as it is (every line a comment)")
        node = self.nodes[0]
        node.build = os.path.join(prefix, "bin")
        with open(os.path.join(node.datadir, "bitnode.conf"), "a") as f:
            f.write(conf)
        node.start()
        assert_equal(node.rpc("getblockcount"), 0)
        node.stop()

        self.log("bash completions: options from -help, methods from the node")
        script = ("source %s; COMP_WORDS=(%s -zmqpubraw); COMP_CWORD=1; _bitnoded; "
                  "printf '%%s\\n' \"${COMPREPLY[@]}\"" %
                  (os.path.join(prefix, "share/bash-completion/completions/bitnoded"), bitnoded))
        r = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
        assert_equal(sorted(r.stdout.split()), ["-zmqpubrawblock=", "-zmqpubrawblockhwm=",
                                                "-zmqpubrawtx=", "-zmqpubrawtxhwm="])

        self.log("the systemd unit: Core's hardening, verified by systemd-analyze")
        with open(os.path.join(prefix, "lib/systemd/system/bitnoded.service")) as f:
            unit = f.read()
        for line in ["Type=notify", "ProtectSystem=full", "ProtectHome=true",
                     "NoNewPrivileges=true", "PrivateDevices=true", "MemoryDenyWriteExecute=true",
                     "PrivateTmp=true", "SystemCallArchitectures=native",
                     "-startupnotify='systemd-notify --ready'"]:
            assert_in(line, unit)
        if shutil.which("systemd-analyze"):
            test_unit = os.path.join(self.tmpdir, "bitnoded.service")
            with open(test_unit, "w") as f:
                f.write(unit.replace("/usr/local/bin/bitnoded", bitnoded))
            r = subprocess.run(["systemd-analyze", "verify", "--man=no", test_unit],
                               capture_output=True, text=True)
            assert_equal((r.returncode, r.stderr), (0, ""))
        else:
            self.log("systemd-analyze not installed: the unit's lines checked only")


if __name__ == "__main__":
    InstallTest().main()
