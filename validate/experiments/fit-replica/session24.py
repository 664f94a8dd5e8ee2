# Session 24's tries (README.md, "Session 24"), on samples of `agpu fit --runs --format json`:
# - blocks: a clock per thread block per SM (thread blocks / (SMs * clock) at constant 1), the cost that
#   bench/blocks-s24 measured; `issue` puts it in the issue bound (agpu.fit/8's blocks term, committed), `third`
#   in a bound of its own (max(memory, issue, blocks)), `added` outside the max, `none` leaves it out (agpu.fit/7);
# - waves: a cost per wave of the blocks an SM holds at once (by threads, at most 32, by shared memory),
#   thread blocks / (SMs * resident blocks) per run, a clock a wave at constant 1 (Little's law: a short block's
#   dispatch, round trip and exit paid once a wave), in the same places.
#   session24.py XFIT[+MORE...] XCHECK waves|blocks third|issue|added|none [full]
#       fitted on XFIT's samples (and each MORE's check samples: bench/blocks-s24's, chains-s24's); in sample, or
#       with full the cross-validations (by decade, by algorithm) and the H200 check XCHECK
#   session24.py XFIT[+MORE...] XCHECK barriers added|issue [full]
#       agpu.fit/8 with a barrier chain (barriers per warp times waves, added) and with issue also barriers per
#       busiest SM in the issue bound, from each run's totals
#   session24.py tables BLOCKS_CSV CHAINS_CSV   the blocks-s24 and chains-s24 READMEs' tables from their measurements.csv
#   session24.py never-fitted FIT MORE CHECK XFIT XCHECK
#       fitted on FIT + MORE (session 23's fit samples and blocks-s24's) with and without the blocks term; the
#       timing-s23 runs of XFIT / XCHECK (which that fit never saw) predicted
import math, sys
import replica as rep
from replica import load, feat, mape, Model
from experiments import CLK
from session23 import ThreeBounds, per_launch

SMEM = {'h100': 233472, 'h200': 233472}

def resident_blocks(s):
    t = s['totals']; tpb = t['threads'] / max(t['thread_blocks'], 1)
    by_threads = 2048 // max(int(math.ceil(tpb / 32) * 32), 32)
    words = t['shared_words_max']
    by_smem = SMEM[s['device']] // (words * 4 + 1024) if words else 32
    return max(1, min(32, by_threads, by_smem))

def waves(s):
    t = s['totals']
    if t['threads'] == 0: return 0.0
    return t['thread_blocks'] / (132 * resident_blocks(s)) / CLK[s['device']]

class Third(ThreeBounds):
    # max(memory, issue, third), as validate/src/fit.cpp fits agpu.fit/8's dispatch bound: each pass (squares,
    # then absolute errors from its constants) searches the charges with the third bound's terms in the issue
    # bound (ThreeBounds alone starts with no run charged to the third bound, so its constant stays 0), then
    # moves each run to its largest of the three bounds and refits until the error stops falling.
    # THIRD_START_ONLY (session 24's first try, results-s24/*-third.txt before the C++): the absolute pass
    # only recharges, from the squares pass's constants.
    def search(self, F, y, sq, start):
        if start is None or not THIRD_START_ONLY:
            two = Model({k: (fn, 'i') for k, (fn, b) in self.extra.items()})
            start = two.search(F, y, sq, start)
        return ThreeBounds.search(self, F, y, sq, start)

THIRD_START_ONLY = False

def run_full(extra, S, C, model):
    # replica.run with another model class
    saved = rep.Model; rep.Model = model
    try: return rep.run(extra, S, C, True)
    finally: rep.Model = saved

def barrier_chain(s):
    t, L, nblocks, tpb, w = per_launch(s)
    if t['threads'] == 0: return 0.0
    return t['barrier_instructions'] / max(t['threads'] / 32, 1) * w / CLK[s['device']]

def barrier_sm(s):
    t, L, nblocks, tpb, w = per_launch(s)
    return t['barrier_instructions'] / max(1.0, min(132.0, nblocks)) / CLK[s['device']]

def blocks(s):
    return s['totals']['thread_blocks'] / 132 / CLK[s['device']]

def never_fitted(fit, more, check, xfit, xcheck):
    # Fitted on FIT+MORE (session 23's fit data and blocks-s24), with and without the blocks term: the MAPE on
    # bench/timing-s23's runs, which that fit never saw (taken from the extended samples XFIT and XCHECK).
    S = load(fit) + load(more, 'check'); C = load(check, 'check')
    T = [s for s in load(xfit) if 'timing-s23' in s['dataset']]
    TH = [s for s in load(xcheck, 'check') if 'timing-s23' in s['dataset']]
    micro = lambda s: s['algo'].startswith('micro')
    for name, extra in (('agpu.fit/7', {}), ('agpu.fit/8', {'blocks': (blocks, 'i')})):
        M = Model(extra); c = M.fit([feat(s, extra) for s in S], [s['measured_s'] for s in S])
        def m(X, keep):
            X = [s for s in X if keep(s)]
            return mape(M, [feat(s, extra) for s in X], [s['measured_s'] for s in X], c), len(X)
        print('%s: in sample %.2f (%d runs), H200 %.2f (%d) | never fitted, H100: scan/rank/stats %.2f (%d), micro %.2f (%d)'
              ' | H200: %.2f (%d), micro %.2f (%d)' % ((name,) + m(S, lambda s: True) + m(C, lambda s: True) +
              m(T, lambda s: not micro(s)) + m(T, micro) + m(TH, lambda s: not micro(s)) + m(TH, micro)))

def tables(blocks_csv, chains_csv):
    # The READMEs' tables of bench/blocks-s24 and bench/chains-s24: each run's median launch time (time_ms of launch
    # 0), per block at 2^24 (blocks-s24), per barrier between 0 and 512 barriers (chains-s24), in SM clocks at 1980 MHz.
    import csv
    def runs(path):
        t = {}
        for r in csv.DictReader(open(path)):
            if r['counter'] == 'time_ms' and r['launch'] == '0':
                p = dict(kv.split('=') for kv in r['params'].split(';'))
                t[(int(p['threads']), int(r['n']), int(p['count']))] = float(r['value']) * 1e3
        return t
    b = runs(blocks_csv)
    print('blocks-s24: us per launch, count=0 (count=4), and ns a block at 2^24')
    for th in sorted({k[0] for k in b}):
        cells = ['%8.2f (%6.2f)' % (b[(th, n, 0)], b[(th, n, 4)]) for n in sorted({k[1] for k in b})]
        ns = b[(th, 1 << 24, 0)] * 1e3 / -(-(1 << 24) // th)
        print('  threads %4d  %s  %.3f ns, %.0f SM clocks per block per SM' % (th, '  '.join(cells), ns, ns * 132 * 1.98))
    c = runs(chains_csv)
    print('chains-s24: us per launch by barriers a thread, and a barrier ((512 - 0) / 512)')
    for th, n in sorted({(k[0], k[1]) for k in c}):
        counts = sorted(k[2] for k in c if k[:2] == (th, n))
        per = (c[(th, n, 512)] - c[(th, n, 0)]) / 512 * 1e3
        print('  threads %4d n %5d  %s  %.2f ns, %.0f clocks' % (th, n, ' '.join('%d:%.2f' % (k, c[(th, n, k)]) for k in counts),
                                                             per, per * 1.98))

if __name__ == '__main__':
    if sys.argv[1] == 'tables':
        tables(*sys.argv[2:4]); sys.exit(0)
    if sys.argv[1] == 'never-fitted':
        never_fitted(*sys.argv[2:7]); sys.exit(0)
    # XFIT may be FIT+MORE: MORE's check samples (bench/blocks-s24, `agpu fit --check ... --runs --format json`) fitted too
    fit, *more = sys.argv[1].split('+')
    S = load(fit) + [s for m in more for s in load(m, 'check')]; C = load(sys.argv[2], 'check')
    what = sys.argv[3]; where = sys.argv[4]; full = sys.argv[5:] == ['full']
    if what == 'barriers':
        # agpu.fit/8 and barrier chains (bench/chains-s24): barriers per warp times waves, added (a clock each at
        # constant 1: the chain a launch waits for), with `issue` also barrier warp-instructions per busiest SM in the
        # issue bound (a barrier's cost per warp); from each run's totals (its average launch)
        extra = {'blocks': (blocks, 'c'), 'chain': (barrier_chain, None)}
        if where == 'issue': extra['barrier_sm'] = (barrier_sm, 'i')
        model = Third
    else:
        bound = {'third': 'c', 'issue': 'i', 'added': None, 'none': None}[where]
        model = Third if bound == 'c' else Model
        extra = {} if where == 'none' else {what: ({'waves': waves, 'blocks': blocks}[what], bound)}
    if full: run_full(extra, S, C, model)
    else:
        from session23 import fit_in_sample
        fit_in_sample(extra, S, C, model)
