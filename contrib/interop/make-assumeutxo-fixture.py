#!/usr/bin/env python3
# Makes test/data/regtest-assumeutxo/ with Bitcoin Core: the regtest chain that Core's
# test/functional/feature_assumeutxo.py builds (the one Core's regtest assumeutxo entry for height
# 299 was made from), its blocks, a stale block, Core's UTXO dumps at 299 and 298 and Core's
# answers about them. Not part of bitnode's suite (CI has no Core): run it by hand, with Core's
# bitcoind, from Core's functional test tree, set up the way run-core-tests.sh does it:
#
#   CORE_GIT=/work/.mirror/l0rinc+bitcoin/repo; OUT=/tmp/aufix
#   mkdir -p $OUT/src && git -C $CORE_GIT archive HEAD test/functional share/rpcauth | tar -x -C $OUT/src
#   # write $OUT/src/test/config.ini as run-core-tests.sh does (SRCDIR=BUILDDIR=$OUT/src, ENABLE_WALLET=false, ...)
#   CORE_SRC=$OUT/src CORE_GIT=$CORE_GIT BITCOIND=/path/to/bitcoind BITCOINCLI=/path/to/bitcoin-cli \
#       python3 contrib/interop/make-assumeutxo-fixture.py [--outdir DIR]
#
# CORE_SRC is the directory holding Core's test/functional and test/config.ini (the framework is
# imported from there and its cache goes to CORE_SRC/test/cache). --outdir defaults to
# test/data/regtest-assumeutxo next to this script. The chain is deterministic: the script asserts
# Core's own constants (block hash at 299, txoutset hashes at 299 and 298, chain tx count 334).
import json
import os
import subprocess
import sys

CORE_SRC = os.environ.get("CORE_SRC")
if not CORE_SRC:
    sys.exit("set CORE_SRC to the directory holding Core's test/functional and test/config.ini")
CORE_FUNCTIONAL = os.path.join(os.path.abspath(CORE_SRC), "test", "functional")
sys.path.insert(0, CORE_FUNCTIONAL)

from test_framework.messages import MAGIC_BYTES  # noqa: E402
from test_framework.test_framework import BitcoinTestFramework  # noqa: E402
from test_framework.util import assert_equal, sha256sum_file  # noqa: E402
from test_framework.wallet import MiniWallet  # noqa: E402

# The constants of feature_assumeutxo.py and of CRegTestParams::m_assumeutxo_data.
START_HEIGHT = 199
SNAPSHOT_BASE_HEIGHT = 299
FINAL_HEIGHT = 399
SNAPSHOT_BASE_HASH = "0c552ced4721c249a389eb9b08cb8da261cd46f0e7b5f9d064d48f3113406853"
SNAPSHOT_TXOUTSET_HASH = "106b2c56233e378a824cf0d5ff2be42ed32c72f1605c9be288d00942908a40ac"
SNAPSHOT_CHAIN_TX = 334
PREV_TXOUTSET_HASH = "147d1789e3e29a62e3e15b80078b50603afb5e1e70ea07001c94666afbde38df"  # at 298
REGTEST_GENESIS = "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"

DEFAULT_OUTDIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "data",
                              "regtest-assumeutxo")


class AssumeutxoFixture(BitcoinTestFramework):
    def add_options(self, parser):
        parser.add_argument("--outdir", dest="outdir", default=DEFAULT_OUTDIR,
                            help="where the fixture goes (default: %(default)s)")

    def set_test_params(self):
        # As feature_assumeutxo.py: four nodes made from the framework's cached 199-block chain,
        # node 0 with no extra arguments. Only node 0 is started: in feature_assumeutxo.py the
        # nodes start disconnected and only node 0 mines, so nodes 1-3 never touch its chain.
        self.num_nodes = 4
        self.rpc_timeout = 120
        self.extra_args = [
            [],
            ["-fastprune", "-prune=1", "-blockfilterindex=1", "-coinstatsindex=1"],
            ["-persistmempool=0", "-txindex=1", "-blockfilterindex=1", "-coinstatsindex=1"],
            [],
        ]

    def setup_network(self):
        self.add_nodes(4)
        self.start_node(0, extra_args=self.extra_args[0])

    def run_test(self):
        n0 = self.nodes[0]
        out = os.path.abspath(self.options.outdir)
        os.makedirs(out, exist_ok=True)

        self.mini_wallet = MiniWallet(n0)

        # Mock time for a deterministic chain (feature_assumeutxo.py does this on every node).
        n0.setmocktime(n0.getblockheader(n0.getbestblockhash())['time'])

        assert_equal(n0.getblockcount(), START_HEIGHT)
        chain_tx = {START_HEIGHT: n0.getchaintxstats(blockhash=n0.getbestblockhash())["txcount"]}
        stale = None
        for i in range(100):
            block_tx = 1
            if i % 3 == 0:
                self.mini_wallet.send_self_transfer(from_node=n0)
                block_tx += 1
            self.generate(n0, nblocks=1, sync_fun=self.no_op)
            height = n0.getblockcount()
            chain_tx[height] = chain_tx[height - 1] + block_tx
            if i == 4:
                # A stale block forking off the main chain before the snapshot.
                temp_invalid = n0.getbestblockhash()
                n0.invalidateblock(temp_invalid)
                stale_hash = self.generateblock(n0, output="raw(aaaa)", transactions=[], sync_fun=self.no_op)["hash"]
                n0.invalidateblock(stale_hash)
                n0.reconsiderblock(temp_invalid)
                stale_header = n0.getblockheader(stale_hash)
                stale = {
                    "hash": stale_hash,
                    "height": stale_header["height"],
                    "previousblockhash": stale_header["previousblockhash"],
                    "replaced_active_block": temp_invalid,
                    "hex": n0.getblock(stale_hash, 0),
                }

        assert_equal(n0.getblockcount(), SNAPSHOT_BASE_HEIGHT)
        assert_equal(n0.getbestblockhash(), SNAPSHOT_BASE_HASH)
        assert_equal(chain_tx[SNAPSHOT_BASE_HEIGHT], SNAPSHOT_CHAIN_TX)

        self.log.info(f"Dumping the UTXO set at {SNAPSHOT_BASE_HEIGHT} ('latest')")
        dump299 = n0.dumptxoutset('utxos.dat', "latest")
        assert_equal(dump299["txoutset_hash"], SNAPSHOT_TXOUTSET_HASH)
        assert_equal(dump299["base_hash"], SNAPSHOT_BASE_HASH)
        assert_equal(dump299["nchaintx"], SNAPSHOT_CHAIN_TX)
        txoutsetinfo299 = n0.gettxoutsetinfo()  # tip is 299 here
        assert_equal(txoutsetinfo299["hash_serialized_3"], SNAPSHOT_TXOUTSET_HASH)

        assert_equal(n0.getmempoolinfo()["size"], 0)  # so blocks 300..399 hold only their coinbase
        self.generate(n0, nblocks=100, sync_fun=self.no_op)
        assert_equal(n0.getblockcount(), FINAL_HEIGHT)
        chain_tx[FINAL_HEIGHT] = chain_tx[SNAPSHOT_BASE_HEIGHT] + (FINAL_HEIGHT - SNAPSHOT_BASE_HEIGHT)
        tip = n0.getbestblockhash()
        txoutsetinfo399 = n0.gettxoutsetinfo()
        assert_equal(txoutsetinfo399["height"], FINAL_HEIGHT)

        self.log.info("Writing blocks.dat (blocks 0..%d, blk file format)", FINAL_HEIGHT)
        hashes = [n0.getblockhash(h) for h in range(FINAL_HEIGHT + 1)]
        assert_equal(hashes[0], REGTEST_GENESIS)
        with open(os.path.join(out, "blocks.dat"), "wb") as f:
            for h in hashes:
                raw = bytes.fromhex(n0.getblock(h, 0))
                f.write(MAGIC_BYTES["regtest"] + len(raw).to_bytes(4, "little") + raw)
        with open(os.path.join(out, "stale-block.hex"), "w") as f:
            f.write(stale["hex"] + "\n")

        self.log.info("Dumping the UTXO set at %d (rollback)", SNAPSHOT_BASE_HEIGHT - 1)
        dump298 = n0.dumptxoutset('utxos298.dat', rollback=SNAPSHOT_BASE_HEIGHT - 1)
        assert_equal(dump298["txoutset_hash"], PREV_TXOUTSET_HASH)
        assert_equal(dump298["base_hash"], hashes[SNAPSHOT_BASE_HEIGHT - 1])
        assert_equal(n0.getbestblockhash(), tip)  # the rollback is undone
        assert_equal(n0.getblockcount(), FINAL_HEIGHT)

        for name, dump in (("utxos-299.dat", dump299), ("utxos-298.dat", dump298)):
            with open(dump["path"], "rb") as src, open(os.path.join(out, name), "wb") as dst:
                dst.write(src.read())
            assert_equal(sha256sum_file(dump["path"]), sha256sum_file(os.path.join(out, name)))

        def strip_path(d):
            return {k: v for k, v in d.items() if k != "path"}

        def strip_disk_size(d):
            # disk_size is the chainstate LevelDB's size estimate, not a property of the UTXO set.
            return {k: v for k, v in d.items() if k != "disk_size"}

        version = subprocess.run([self.binary_paths.bitcoind, "-version"], capture_output=True, text=True,
                                 check=True).stdout.splitlines()[0]
        core_git = os.environ.get("CORE_GIT", "/work/.mirror/l0rinc+bitcoin/repo")
        commit = subprocess.run(["git", "-C", core_git, "rev-parse", "HEAD"], capture_output=True, text=True,
                                check=True).stdout.strip()

        expected = {
            "core_version": version,
            "core_commit": commit,
            "chain": "regtest",
            "tip_height": FINAL_HEIGHT,
            "tip_hash": tip,
            "heights": {
                str(SNAPSHOT_BASE_HEIGHT - 1): {
                    "blockhash": hashes[SNAPSHOT_BASE_HEIGHT - 1],
                    "hash_serialized_3": dump298["txoutset_hash"],
                    "hash_source": "dumptxoutset rollback=298 (at tip 399)",
                },
                str(SNAPSHOT_BASE_HEIGHT): {
                    "blockhash": hashes[SNAPSHOT_BASE_HEIGHT],
                    "hash_serialized_3": dump299["txoutset_hash"],
                    "hash_source": "dumptxoutset latest (at tip 299); gettxoutsetinfo at tip 299 agrees",
                },
                str(FINAL_HEIGHT): {
                    "blockhash": hashes[FINAL_HEIGHT],
                    "hash_serialized_3": txoutsetinfo399["hash_serialized_3"],
                    "hash_source": "gettxoutsetinfo at tip 399",
                },
            },
            "chaintxstats_txcount": {
                str(h): n0.getchaintxstats(blockhash=hashes[h])["txcount"]
                for h in (START_HEIGHT, SNAPSHOT_BASE_HEIGHT, FINAL_HEIGHT)
            },
            "stale_block": {k: v for k, v in stale.items() if k != "hex"},
            "dumptxoutset": {
                "utxos-299.dat": strip_path(dump299),
                "utxos-298.dat": strip_path(dump298),
            },
            "gettxoutsetinfo_without_disk_size": {
                str(SNAPSHOT_BASE_HEIGHT): strip_disk_size(txoutsetinfo299),
                str(FINAL_HEIGHT): strip_disk_size(txoutsetinfo399),
            },
        }
        for h in (START_HEIGHT, SNAPSHOT_BASE_HEIGHT, FINAL_HEIGHT):
            assert_equal(expected["chaintxstats_txcount"][str(h)], chain_tx[h])
        with open(os.path.join(out, "expected.json"), "w") as f:
            json.dump(expected, f, indent=2, sort_keys=True, default=str)
            f.write("\n")
        self.log.info("Fixture written to %s", out)


if __name__ == '__main__':
    AssumeutxoFixture(os.path.join(CORE_FUNCTIONAL, "make-assumeutxo-fixture.py")).main()
