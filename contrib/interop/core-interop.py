import json, os, subprocess, sys, time, shutil
sys.path.insert(0, '/work/main/test/functional')
from blocktools import Key, OutPoint, Tx, TxIn, TxOut, P2WSH_TRUE, SCRIPT_TRUE, hash160, segwit_address, sign_p2wpkh
CORE='/work/ref/bin'; BN='/work/main/build/leveldb'
root='/tmp/interop'; shutil.rmtree(root, ignore_errors=True); os.makedirs(root+'/core'); os.makedirs(root+'/bn')
cport, crpc, bport, brpc = 29711, 29712, 29721, 29722
core = subprocess.Popen([CORE+'/bitcoind', '-regtest', '-datadir='+root+'/core', '-port=%d'%cport, '-rpcport=%d'%crpc, '-bind=127.0.0.1:%d'%cport,
   '-checkblockindex=0', '-checkmempool=0', '-server', '-disablewallet', '-debug=net', '-debug=cmpctblock', '-debug=mempool', '-rpcuser=u', '-rpcpassword=p', '-fallbackfee=0.0001', '-printtoconsole=0', '-dnsseed=0', '-fixedseeds=0', '-listenonion=0', '-whitelist=noban@127.0.0.1', '-connect=127.0.0.1:%d'%bport], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
bn = subprocess.Popen([BN+'/bitnoded', '-regtest', '-datadir='+root+'/bn', '-port=%d'%bport, '-rpcport=%d'%brpc, '-debug=net', '-debug=cmpctblock', '-debug=mempool', '-rpcuser=u', '-rpcpassword=p', '-printtoconsole=0', '-dnsseed=0', '-fixedseeds=0', '-whitelist=noban@127.0.0.1', '-listen=1'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
def cli(port, *args, binp=CORE+'/bitcoin-cli'):
    out = subprocess.run([binp, '-regtest', '-rpcport=%d'%port, '-rpcuser=u', '-rpcpassword=p'] + [a if isinstance(a,str) else json.dumps(a) for a in args], capture_output=True, text=True)
    if out.returncode: raise Exception(out.stderr)
    o=out.stdout.strip()
    try: return json.loads(o)
    except Exception: return o
def C(*a): return cli(crpc,*a)
def B(*a): return cli(brpc,*a)
def wait(f, what, t=60):
    d=time.time()+t
    while time.time()<d:
        try:
            if f(): return
        except Exception as e: pass
        time.sleep(0.3)
    raise Exception('timeout: '+what)
try:
    wait(lambda: C('getblockcount')==0 and B('getblockcount')==0, 'up')
    wait(lambda: len(C('getpeerinfo'))==1, 'connected')
    key=Key(0x4242); addr=segwit_address('bcrt',0,hash160(key.pubkey))
    hs = B('generatetoaddress', 105, addr)
    wait(lambda: C('getblockcount')==105, 'core synced bitnode-mined blocks')
    print('core accepted 105 blocks mined by bitnode')
    hc = C('generatetoaddress', 5, addr)
    wait(lambda: B('getblockcount')==110, 'bitnode synced core blocks')
    print('bitnode accepted core blocks')
    def coin(h, node):
        cb=node('getblock',h,2)['tx'][0]
        return OutPoint(bytes.fromhex(cb['txid'])[::-1],0), int(round(cb['vout'][0]['value']*1e8))
    def spend(c, fee):
        tx=Tx([TxIn(c[0],b'',0xfffffffd)],[TxOut(c[1]-fee,P2WSH_TRUE)]); sign_p2wpkh(tx,0,key,c[1]); return tx
    t1=spend(coin(hs[0],B),1000); B('sendrawtransaction', t1.hex())
    wait(lambda: t1.txid_hex in C('getrawmempool'), 'core got tx relayed by bitnode')
    print('core accepted a tx relayed by bitnode')
    t2=spend(coin(hs[1],B),2000); C('sendrawtransaction', t2.hex())
    wait(lambda: t2.txid_hex in B('getrawmempool'), 'bitnode got tx relayed by core')
    print('bitnode accepted a tx relayed by core')
    # blocks with the txs: core mines (cmpct to bitnode), then bitnode mines
    h=C('generatetoaddress',1,addr)[0]
    wait(lambda: B('getbestblockhash')==h, 'bitnode got core block with tx')
    print('bitnode mempool after core block:', B('getrawmempool'), 'core:', C('getrawmempool'))
    t3=spend(coin(hs[2],B),3000); C('sendrawtransaction', t3.hex())
    wait(lambda: t3.txid_hex in B('getrawmempool'), 'relay t3')
    h=C('generatetoaddress',1,addr)[0]
    wait(lambda: B('getbestblockhash')==h, 'bitnode got 2nd core block')
    t4=spend(coin(hs[3],B),3000); B('sendrawtransaction', t4.hex())
    wait(lambda: t4.txid_hex in C('getrawmempool'), 'relay t4')
    h=B('generatetoaddress',1,addr)[0]
    wait(lambda: C('getbestblockhash')==h, 'core got bitnode block with tx')
    print('core accepted bitnode block with tx; pools', B('getrawmempool'), C('getrawmempool'))
    t5=spend(coin(hs[4],B),3000); B('sendrawtransaction', t5.hex())
    wait(lambda: t5.txid_hex in C('getrawmempool'), 'relay t5')
    h=B('generatetoaddress',1,addr)[0]
    wait(lambda: C('getbestblockhash')==h, 'core got 2nd bitnode block')
    print('peerinfo bn:', {k:v for k,v in B('getpeerinfo')[0]['bytesrecv_per_msg'].items()})
    print('peerinfo core:', {k:v for k,v in C('getpeerinfo')[0]['bytesrecv_per_msg'].items()})
    tmpl = C('getblocktemplate', {"rules":["segwit"]})
    print('utxo hashes equal:', C('gettxoutsetinfo')['hash_serialized_3']==B('gettxoutsetinfo')['hash_serialized_3'])
finally:
    for p,port in ((core,crpc),(bn,brpc)):
        try: cli(port,'stop')
        except Exception: pass
    time.sleep(3)
    core.kill(); bn.kill()
