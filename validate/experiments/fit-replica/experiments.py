# The session-19 tries on the committed fit's runs (model/README.md, "Session 19"):
#   experiments.py dependent-stores FIT CHECK    scans' store sectors priced at the DRAM rate (before the scan fix)
#   experiments.py dependent-stores-rank FIT CHECK   the same with the rank builds' stores after their look-back
#   experiments.py busiest-line FIT CHECK        atomics priced at the busiest L2 line (emulated), added
#   experiments.py busiest-line-memory FIT CHECK the same in the memory bound
#   experiments.py multi-decade FIT              by decade, only algorithms measured in more than one decade
# FIT: `agpu fit --data ... --runs --format json`, CHECK: `agpu fit --check ... --runs --format json`.
import math, re, sys
import replica as rep
from replica import load, run, Model, feat

BW = {'h100': 3352.3e9, 'h200': 4814.3e9}   # the presets' mem_bandwidth_gbs
CLK = {'h100': 1980e6, 'h200': 1980e6}      # the presets' sm_clock_mhz

def rank_build_of(samples):
    # A rank run's build (the op=build run of the same device, family, n and density).
    b = {}
    for s in samples:
        if s['algo'].startswith('rank/') and 'op=build' in s['params']:
            b[(s['device'], s['algo'], s['n'], re.sub(r'op=\w+', '', s['params']))] = s['totals']
    return lambda s: b[(s['device'], s['algo'], s['n'], re.sub(r'op=\w+', '', s['params']))]

def dependent_stores(with_rank, build):
    def f(s):
        a = s['algo']
        if a == 'scan/work-efficient': sec = s['totals']['global_store_sectors']
        elif with_rank and a == 'rank/interleaved': sec = build(s)['global_store_sectors']  # every store after the look-back
        elif with_rank and a == 'rank/jacobson': sec = 0.03 * build(s)['global_store_sectors']  # the superblock counts only
        else: sec = 0
        return sec * 32 / BW[s['device']]
    return f

def busiest_line(build):
    def f(s):
        a, t = s['algo'], s['totals']
        if t['global_atomic_sectors'] == 0: return 0.0
        if a == 'scan/work-efficient':  # tile claims on one word; a status line takes 32 (u32) or 64 (u64) exchanges
            n = max((t['global_atomic_instructions'] + 1) // 3, 64 if 'type=u64' in s['params'] else 32)
        elif a.startswith('rank/'):  # tile claims, plus the polls and exchanges of the counter's line
            n = min(t['global_atomic_sectors'], build(s)['thread_blocks'] + 220)
        else:  # micro/atomics: one line; apsp: its few epoch words
            n = t['global_atomic_sectors']
        return n / CLK[s['device']]
    return f

def multi_decade(S):
    M = Model({})
    F = [feat(s, {}) for s in S]; y = [s['measured_s'] for s in S]
    dec = [int(math.floor(math.log10(s['n']))) for s in S]
    seen = {}
    for s, d in zip(S, dec): seen.setdefault(s['algo'], set()).add(d)
    multi = [len(seen[s['algo']]) > 1 for s in S]
    tot = cnt = 0
    for d in sorted(set(dec)):
        te = [i for i in range(len(S)) if dec[i] == d and multi[i]]
        if not te: continue
        tr = [i for i in range(len(S)) if not (dec[i] == d and multi[i])]
        c = M.fit([F[i] for i in tr], [y[i] for i in tr])
        e = [abs(M.predict(F[i], c) / y[i] - 1) * 100 for i in te]
        tot += sum(e); cnt += len(e)
        print('decade 1e%d: %d runs, %.1f%%' % (d, len(te), sum(e) / len(e)))
    print('algorithms measured in more than one decade: %d runs, MAPE %.2f%%' % (cnt, tot / cnt))

if __name__ == '__main__':
    what = sys.argv[1]
    S = load(sys.argv[2])
    if what == 'multi-decade':
        multi_decade(S); sys.exit(0)
    C = load(sys.argv[3], 'check')
    build = rank_build_of(S + C)
    if what in ('dependent-stores', 'dependent-stores-rank'):
        run({'dependent_stores': (dependent_stores(what.endswith('rank'), build), None)}, S, C, True)
    elif what in ('busiest-line', 'busiest-line-memory'):
        for s in S + C: s['features_s']['atomic'] = busiest_line(build)(s)
        if what.endswith('memory'): rep.BOUND['atomic'] = 'm'
        run({}, S, C, True)
    else:
        sys.exit('unknown experiment ' + what)
