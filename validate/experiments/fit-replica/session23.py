# Session 23's tries on bench/launch-s22's datasets (every launch timed on the GPU, queued behind the held
# stream): can a term separate a tiny launch (stats/pairwise at n <= 10^5: 3.4-4.1 us a launch, back to back)
# from the others (a 1-block APSP tile or stats/fused launch 4.5-5.7 us, a 2^20-thread micro kernel about 5 us
# beyond its counted work)? Each try adds a feature (seconds at constant 1) and fits in sample; it prints the
# constants, the MAPE in sample and on the H200 check, and the small-n pairwise and fused runs.
#   session23.py FIT CHECK depth R      time_steps per launch over the warps it keeps on an MP (at most R), added
#   session23.py FIT CHECK fill         a launch's share of the machine's resident threads (1 us each at 1), added
#   session23.py FIT CHECK barriers     barriers per warp times the launch's waves (a clock each at 1), added
#   session23.py FIT CHECK fill-barriers [LAUNCH]   both; with LAUNCH, the launch constant fixed there
#   session23.py FIT CHECK l2-sectors   the L2-served sectors as well as blocks (a clock per sector per SM)
#   session23.py FIT CHECK chain        a third bound of the max: global loads and atomics per warp times waves
#   session23.py FIT CHECK constants FIT21 CHECK21   agpu.fit/7's launch-s21 constants and the launch-s22 refit, on
#                                       both sets of samples (FIT21/CHECK21: the launch-s21 ones, /tmp/fit22.json ...)
#   session23.py XFIT XCHECK extended base|blocks-issue[+depth|+barriers|+chain]|blocks-memory [full]   on the samples with bench/timing-s23
#                                       added (README.md): the committed model, or a clock per thread block per SM in
#                                       the issue or the memory bound; in sample, or with full the cross-validations
#   session23.py by-size RUNS.json      runs `agpu fit --check ... --runs --format json` wrote (bench/timing-s23): the
#                                       signed error per algorithm and n, and the trivial micro kernels' seconds
#                                       against their thread blocks (the per-block cost)
# FIT/CHECK: the launch-s22 samples (README.md, "On the datasets the re-held stream measured").
import math, sys
import replica as rep
from replica import load, feat, mape, Model
from experiments import CLK

BW = {'h100': 3352.3e9, 'h200': 4814.3e9}

def per_launch(s):
    t = s['totals']; L = max(t['launches'], 1)
    blocks = t['thread_blocks'] / L; tpb = t['threads'] / max(t['thread_blocks'], 1)
    resident = min(32, max(1, 2048 // max(int(tpb), 1)))  # blocks an SM holds by threads alone
    return t, L, blocks, tpb, max(1.0, math.ceil(blocks / (132 * resident)))

def depth(R):
    def f(s):
        t, L, blocks, tpb, _ = per_launch(s)
        if t['threads'] == 0: return 0.0
        W = min(math.ceil(blocks / 132) * max(1.0, tpb / 32), R)
        return t['time_steps'] / max(W, 1.0) / CLK[s['device']]
    return f

def fill(s):
    t, L, *_ = per_launch(s)
    return L * min(1.0, t['threads'] / L / (132 * 2048)) * 1e-6

def barriers(s):
    t, L, _, _, waves = per_launch(s)
    if t['threads'] == 0: return 0.0
    return L * t['barrier_instructions'] / max(t['threads'] / 32, 1) * waves / CLK[s['device']]

def l2_sectors(s):
    t = s['totals']; dram = s['features_s']['dram'] * BW[s['device']] / 32
    return max(0.0, t['global_sectors'] - dram) / 132 / CLK[s['device']]

def chain(s):
    t, L, _, _, waves = per_launch(s)
    if t['threads'] == 0: return 0.0
    rt = (t['global_load_instructions'] + t['global_atomic_instructions']) / max(t['threads'] / 32, 1)
    return L * rt * waves / CLK[s['device']]

class ThreeBounds(Model):
    # max(memory, issue, chain): the charge search of replica.Model, then each run moved to its largest bound.
    def bounds(self, f, c):
        b = {'m': 0.0, 'i': 0.0, 'c': 0.0}
        for t in self.terms:
            if t in self.bound: b[self.bound[t]] += f[t] * c[t]
        return b
    def predict(self, f, c):
        return sum(f[t] * c[t] for t in self.terms if t not in self.bound) + max(self.bounds(f, c).values())
    def search(self, F, y, sq, start):
        solve = (lambda ch: self.nnls_rows(F, y, ch, [1.0] * len(F))) if sq else (lambda ch: self.irls(F, y, ch))
        err = lambda c: sum((self.predict(f, c) / m - 1) ** 2 if sq else abs(self.predict(f, c) / m - 1) for f, m in zip(F, y))
        c = start if start else Model.search(self, F, y, sq, None); best = err(c)
        for _ in range(100):
            x = solve([max(b, key=b.get) for b in (self.bounds(f, c) for f in F)]); e = err(x)
            if e >= best: break
            best, c = e, x
        return c

def fit_in_sample(extra, S, C, model=Model):
    M = model(extra); F = [feat(s, extra) for s in S]; y = [s['measured_s'] for s in S]
    c = M.fit(F, y)
    FC = [feat(s, extra) for s in C]; yc = [s['measured_s'] for s in C]
    print('in sample %.2f  H200 %.2f' % (mape(M, F, y, c), mape(M, FC, yc, c)), {k: round(v, 4) for k, v in c.items()})
    for s, f, m in zip(S, F, y):
        if s['algo'] in ('stats/pairwise', 'stats/fused') and s['n'] <= 100000:
            print('  %6.1f%%  %s n=%d' % ((M.predict(f, c) / m - 1) * 100, s['algo'], s['n']))

TRIVIAL = {('micro/global-stride', 'op=store;stride=1'), ('micro/shared-stride', 'repeat=1;stride=1'),
           ('micro/broadcast', ''), ('micro/barriers', 'count=4'), ('micro/divergent', 'ways=1')}

def by_size(R):
    # Signed error (predicted / measured - 1) per algorithm and n; then the one-item-a-thread micro kernels, whose
    # seconds grow with their thread blocks whatever they do, and the cost per block between the two largest n.
    groups = {}
    for s in R: groups.setdefault((s['algo'], s['n']), []).append((s['predicted_s'] / s['measured_s'] - 1) * 100)
    for (a, n), e in sorted(groups.items()):
        print('%-22s n=%-10d mean %6.1f%%  min %6.1f%%  max %6.1f%%  runs %d' % (a, n, sum(e) / len(e), min(e), max(e), len(e)))
    triv = {}
    for s in R:
        if (s['algo'], s['params']) in TRIVIAL:
            triv.setdefault(s['n'], []).append((s['measured_s'] * 1e6, s['predicted_s'] * 1e6, s['totals']['thread_blocks']))
    if len(triv) < 2: return
    print('\ntrivial micro kernels (%s):' % ', '.join(sorted(a + ' ' + p for a, p in TRIVIAL)))
    for n, v in sorted(triv.items()):
        print('  n=%-9d blocks %6d  measured %5.1f-%5.1f us  predicted %5.1f-%5.1f us' %
              (n, v[0][2], min(x[0] for x in v), max(x[0] for x in v), min(x[1] for x in v), max(x[1] for x in v)))
    (n1, v1), (n2, v2) = sorted(triv.items())[-2:]
    dt = (sum(x[0] for x in v2) / len(v2) - sum(x[0] for x in v1) / len(v1)) * 1e-6
    per_block = dt / (v2[0][2] - v1[0][2])
    print('  n=%d -> %d: %.3f ns per thread block, %.0f SM clocks per block per SM (132 SMs, 1980 MHz)' %
          (n1, n2, per_block * 1e9, per_block * 132 * 1980e6))

if __name__ == '__main__':
    if sys.argv[1] == 'by-size':
        by_size(load(sys.argv[2], 'check')); sys.exit(0)
    S = load(sys.argv[1]); C = load(sys.argv[2], 'check'); what = sys.argv[3]; rest = sys.argv[4:]
    if what == 'depth': fit_in_sample({'depth': (depth(float(rest[0])), None)}, S, C)
    elif what == 'fill': fit_in_sample({'fill': (fill, None)}, S, C)
    elif what == 'barriers': fit_in_sample({'barriers': (barriers, None)}, S, C)
    elif what == 'fill-barriers':
        if rest: rep.FIXED['launch'] = float(rest[0])
        fit_in_sample({'fill': (fill, None), 'barriers': (barriers, None)}, S, C)
    elif what == 'l2-sectors': fit_in_sample({'l2_sectors': (l2_sectors, 'm')}, S, C)
    elif what == 'chain': fit_in_sample({'chain': (chain, 'c')}, S, C, ThreeBounds)
    elif what == 'constants':
        committed = {'launch': 1.8575, 'dram': 1.0184, 'l2': 1.3814, 'step': 0.483, 'shared': 1.0, 'latency': 27.4895,
                     'dram_latency': 677.7454, 'l2_latency': 275.6699, 'atomic': 1.0}  # agpu.fit/7 on launch-s21
        M = Model({})
        S21 = load(rest[0]); C21 = load(rest[1], 'check')  # the launch-s21 samples (/tmp/fit22.json, /tmp/check22.json)
        c22 = M.fit([feat(s, {}) for s in S], [s['measured_s'] for s in S])
        for name, X in (('launch-s22 H100', S), ('launch-s22 H200', C), ('launch-s21 H100', S21), ('launch-s21 H200', C21)):
            F = [feat(s, {}) for s in X]; y = [s['measured_s'] for s in X]
            print('%s: launch-s21 constants %.2f, launch-s22 constants %.2f' % (name, mape(M, F, y, committed), mape(M, F, y, c22)))
    elif what == 'extended':
        blocks = lambda s: s['totals']['thread_blocks'] / 132 / CLK[s['device']]
        kind, _, plus = rest[0].partition('+')  # blocks-issue+depth|barriers|chain: with a chain term added as well
        extra = {'base': {}, 'blocks-issue': {'blocks': (blocks, 'i')}, 'blocks-memory': {'blocks': (blocks, 'm')}}[kind]
        if plus: extra[plus] = ({'depth': depth(64.0), 'barriers': barriers, 'chain': chain}[plus], None)
        if rest[1:] == ['full']: rep.run(extra, S, C, True)
        else: fit_in_sample(extra, S, C)
    else:
        sys.exit('unknown try ' + what)
