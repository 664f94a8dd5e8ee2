# The session-19 tries on the committed fit's runs (model/README.md, "Session 19"):
#   experiments.py dependent-stores FIT CHECK    scans' store sectors priced at the DRAM rate (before the scan fix)
#   experiments.py dependent-stores-rank FIT CHECK   the same with the rank builds' stores after their look-back
#   experiments.py busiest-line FIT CHECK        atomics priced at the busiest L2 line (emulated), added
#   experiments.py busiest-line-memory FIT CHECK the same in the memory bound
#   experiments.py multi-decade FIT              by decade, only algorithms measured in more than one decade
# Session 20:
#   experiments.py partial-stores FIT CHECK      stride-8 stores' partial sectors read back from DRAM (one sector each)
#   experiments.py micro-2e24 FIT CHECK M24 M24H200 [add|issue]   the micro suite at 2^24 and 10^7 + 19 fitted and
#       checked too, with partial-stores; with add or issue, a cost per wave of resident threads (additive or in
#       the issue bound). M24, M24H200: `agpu fit --check` of bench/micro-2e24-session11/{micro,h200-micro}.
#   experiments.py micro-4-decades FIT CHECK M24 M24H200 MS20 [add|issue]   the same with the H100 micro suite at
#       10^5 and 4·10^6 fitted as well (MS20: `agpu fit --check` of bench/micro-s20/micro).
# Session 21:
#   experiments.py shared-stride-loop FIT CHECK   micro/shared-stride's loop declared (6 compute instructions an iteration)
#   experiments.py wave FIT CHECK                 the wave cost in the issue bound, the committed runs only
#   experiments.py first-launch FIT CHECK         a run's first launch priced apart from the later ones
#   experiments.py first-launch-wave FIT CHECK    both (first-launch-wave.patch is the same in C++)
#   experiments.py first-launch-wave-4-decades FIT CHECK M24 M24H200 MS20 [partial]   both, with the micro suite at
#       10^5 .. 2^24 fitted and its H200 runs at 2^24 checked; with partial, partial-stores too
# Session 22 (agpu.fit/7: the atomic constant fixed at 1; FIT and CHECK made from the committed fit's datasets,
# README.md):
#   experiments.py partial FIT CHECK              partial-stores on top of the committed model
#   experiments.py partial-depth FIT CHECK R add|issue   and a latency bound per warp: time_steps over the warps the
#       average launch keeps resident on an MP (at most R), added or in the issue bound
#   experiments.py queued FIT CHECK K             a run's first K launches priced apart (atomic constant fitted)
#   experiments.py first-launch-fitted-atomic FIT CHECK   session 21's first-launch with the atomic constant fitted
#   experiments.py atomic-third-bound FIT CHECK   atomics at the hardware's rate only where they exceed both bounds
#   experiments.py blocks FIT CHECK               a clock per thread block per SM, added
#   experiments.py wave-added|wave-issue FIT CHECK   the cost per wave of resident threads, added or in the issue bound
#   experiments.py first-launch-fixed-atomic FIT CHECK   a run's first launch priced apart
#   (the last four on bench/launch-s22's datasets: README.md)
# Sessions 19-21's experiments fit the atomic constant, as agpu.fit/6 did.
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

def partial_stores(s):
    # micro/global-stride's strided stores write 4 bytes of each sector they touch; the H100 read every such
    # sector back from DRAM before writing it (dram_read_bytes = 1.0x the sectors' bytes at 2^24 and
    # 10^7 + 19, 0.67-0.70x at 10^6, where part of them was still in the L2 when the kernel ended). The only
    # fitted runs with partial sectors; a real count would come from the simulator, per store request.
    if s['algo'] == 'micro/global-stride' and 'op=store' in s['params'] and 'stride=1' not in s['params']:
        return s['totals']['global_store_sectors'] * 32 / BW[s['device']]
    return 0.0

def waves(s):
    # Waves of resident threads (2048 a SM on both GPUs): at 2^24 every micro kernel of one item a thread
    # took 43 us whatever it did (a store, shared atomics, barriers), 0.6 us a wave of 270336 threads.
    return s['totals']['threads'] / (132 * 2048) / CLK[s['device']]

def shared_stride_loop(s):
    # micro/shared-stride's loop body is 7 SASS instructions an iteration on the H100 (inst_executed: (9285632 -
    # 2207744) / 32768 warps / 31 more iterations at 2^20), the shared load and 6 the kernel does not declare. Added
    # as steps, spread over the 132 MPs like the warps.
    if s['algo'] != 'micro/shared-stride': return 0.0
    repeat = int(re.search(r'repeat=(\d+)', s['params']).group(1))
    return 6 * repeat * ((s['n'] + 31) // 32) / 132 / CLK[s['device']]

def first_launch(s):
    # The first launch of a run priced apart: the launch term keeps launches - 1 (3 us each at constant 1,
    # launch_overhead_us on both presets), this one min(launches, 1).
    return 3e-6 if s['totals']['launches'] else 0.0

def later_launches(S):
    for s in S:
        L = s['totals']['launches']
        s['features_s']['launch'] = s['features_s']['launch'] * (L - 1) / L if L else 0.0

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

def resident_depth(R):
    # A warp's share of the busiest MP's steps: time_steps over the warps the average launch keeps on an MP (its
    # blocks per MP times warps per block, at most R resident); launches of less than a warp have the latency terms.
    def f(s):
        t = s['totals']; L = max(t['launches'], 1)
        if t['threads'] == 0 or t['threads'] / L < 32: return 0.0
        blocks = t['thread_blocks'] / L; thr = t['threads'] / L; wpb = max(1.0, thr / blocks / 32)
        W = min(thr / 32, math.ceil(blocks / 132) * wpb, R)
        return t['time_steps'] / max(W, 1.0) / CLK[s['device']]
    return f

def queued(K):
    # The launch term keeps the launches after the K-th; this one prices the first K (3 us each at constant 1).
    def f(s): return 3e-6 * min(s['totals']['launches'], K)
    return f

def blocks_per_sm(s):
    # Thread blocks dispatched per SM (the run's blocks over the 132 SMs), a clock each at constant 1.
    return s['totals']['thread_blocks'] / 132 / CLK[s['device']]

SESSION22 = ('partial', 'partial-depth', 'queued', 'first-launch-fitted-atomic', 'atomic-third-bound',
             'blocks', 'wave-added', 'wave-issue', 'first-launch-fixed-atomic')

if __name__ == '__main__':
    what = sys.argv[1]
    if what not in SESSION22 or what in ('queued', 'first-launch-fitted-atomic'):
        rep.FIXED.pop('atomic', None)
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
    elif what == 'partial-stores':
        for s in S + C: s['features_s']['dram'] += partial_stores(s)
        run({}, S, C, True)
    elif what in ('micro-2e24', 'micro-4-decades'):
        S += load(sys.argv[4], 'check'); C += load(sys.argv[5], 'check')
        rest = sys.argv[6:]
        if what == 'micro-4-decades': S += load(rest.pop(0), 'check')
        for s in S + C: s['features_s']['dram'] += partial_stores(s)
        how = rest[0] if rest else None
        run({'waves': (waves, {'add': None, 'issue': 'i'}[how])} if how else {}, S, C, True)
    elif what == 'shared-stride-loop':
        for s in S + C: s['features_s']['step'] += shared_stride_loop(s)
        run({}, S, C, True)
    elif what == 'wave':
        run({'waves': (waves, 'i')}, S, C, True)
    elif what in ('first-launch', 'first-launch-wave'):
        later_launches(S + C)
        extra = {'first_launch': (first_launch, None)}
        if what.endswith('wave'): extra['waves'] = (waves, 'i')
        run(extra, S, C, True)
    elif what == 'first-launch-wave-4-decades':
        S += load(sys.argv[4], 'check') + load(sys.argv[6], 'check'); C += load(sys.argv[5], 'check')
        if sys.argv[7:] == ['partial']:
            for s in S + C: s['features_s']['dram'] += partial_stores(s)
        later_launches(S + C)
        run({'first_launch': (first_launch, None), 'waves': (waves, 'i')}, S, C, True)
    elif what == 'partial':
        for s in S + C: s['features_s']['dram'] += partial_stores(s)
        run({}, S, C, True)
    elif what == 'partial-depth':
        for s in S + C: s['features_s']['dram'] += partial_stores(s)
        run({'depth': (resident_depth(float(sys.argv[4])), {'add': None, 'issue': 'i'}[sys.argv[5]])}, S, C, True)
    elif what == 'queued':
        K = int(sys.argv[4])
        for s in S + C: s['features_s']['launch'] = 3e-6 * max(0, s['totals']['launches'] - K)
        run({'queued': (queued(K), None)}, S, C, True)
    elif what == 'first-launch-fitted-atomic':
        later_launches(S + C)
        run({'first_launch': (first_launch, None)}, S, C, True)
    elif what == 'atomic-third-bound':
        # Emulated: the fixed atomic time counts only where it exceeds half the run (micro/atomics' global runs,
        # where it is the max); elsewhere it hides under the other bounds.
        for s in S + C:
            if s['features_s'].get('atomic', 0) * rep.FIXED['atomic'] < 0.5 * s['measured_s']: s['features_s']['atomic'] = 0.0
        run({}, S, C, True)
    elif what == 'blocks':
        run({'blocks': (blocks_per_sm, None)}, S, C, True)
    elif what in ('wave-added', 'wave-issue'):
        run({'waves': (waves, None if what == 'wave-added' else 'i')}, S, C, True)
    elif what == 'first-launch-fixed-atomic':
        later_launches(S + C)
        run({'first_launch': (first_launch, None)}, S, C, True)
    else:
        sys.exit('unknown experiment ' + what)
