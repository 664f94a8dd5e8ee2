# The micro kernels of one item a thread that do almost nothing (a coalesced store, repeat-1 shared reads,
# four barriers, shared atomics) at 10^5 .. 2^24: least squares of time = a + b * threads, and each run's
# distance from the line. From the repository root: python3 validate/data/h100/bench/micro-s20/wave_line.py
import csv
SETS = ['validate/data/h100/bench/micro-s20/micro', 'validate/data/h100/micro',
        'validate/data/h100/bench/micro-2e24-session11/micro']
TRIVIAL = ['micro/global-stride op=store;stride=1', 'micro/shared-stride repeat=1;stride=1',
           'micro/barriers count=4', 'micro/atomics distinct=1;space=shared', 'micro/atomics distinct=32;space=shared']
pts = []
for d in SETS:
    for r in csv.DictReader(open(d + '/measurements.csv')):
        if r['launch'] == 'run' and r['counter'] == 'time_ms' and r['algo'] + ' ' + r['params'] in TRIVIAL:
            pts.append((int(r['n']), float(r['value']) * 1e3, r['run_id']))
m = len(pts); sx = sum(p[0] for p in pts); sy = sum(p[1] for p in pts)
sxx = sum(p[0] ** 2 for p in pts); sxy = sum(p[0] * p[1] for p in pts)
b = (m * sxy - sx * sy) / (m * sxx - sx * sx); a = (sy - b * sx) / m
print('%d runs: time = %.2f us + %.3f ps a thread (%.2f us a wave of 132 * 2048 threads)' % (m, a, b * 1e6, b * 132 * 2048))
for n, t, k in sorted(pts):
    print('  %-58s %8.2f us  line %8.2f  %+5.1f%%' % (k[:58], t, a + b * n, 100 * (t / (a + b * n) - 1)))
