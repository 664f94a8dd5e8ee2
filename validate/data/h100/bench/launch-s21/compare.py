# Session 21's harness comparison (README.md): run medians of the old harness against the event pool (a) and the
# held stream (c), run by run; each pool/held run's span (first start event to last stop event, from the logs)
# over its sum of launches; and the per-launch times of stats/pairwise at n = 100 (42 launches) with the held
# stream (d/stats-table) and in the committed bench/stats-table (old harness).
# From the repository root: python3 validate/data/h100/bench/launch-s21/compare.py
import csv, os, statistics, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from logspans import log_spans
B = 'validate/data/h100/bench/launch-s21/'

def runs(d):
    return {r['run_id']: float(r['value']) for r in csv.DictReader(open(B + d + '/measurements.csv'))
            if r['launch'] == 'run' and r['counter'] == 'time_ms'}

def spans(log):
    return log_spans(B + log)

def pair(old, new, label):
    o, n = runs(old), runs(new)
    sp = spans(new + '.log')
    d = [(n[k] / o[k] - 1, k) for k in o if k in n]
    ratio = [sp[k] / n[k] for k in n if k in sp]
    print('%-34s %3d runs  median %+6.1f%%  mean |diff| %5.1f%%  most %+6.1f%% .. %+6.1f%%  span/sum median %.2f (%.2f .. %.2f)' % (
        label, len(d), 100 * statistics.median(x for x, _ in d), 100 * statistics.mean(abs(x) for x, _ in d),
        100 * min(d)[0], 100 * max(d)[0], statistics.median(ratio), min(ratio), max(ratio)))

for i in (1, 2): pair('a/stats-old-%d' % i, 'a/stats-pool-%d' % i, 'stats, old -> pool (call 1)')
pair('a/apsp-old', 'a/apsp-pool', 'apsp, old -> pool (call 1)')
pair('a/scan-old', 'a/scan-pool', 'scan, old -> pool (call 1)')
for i in (1, 2, 3): pair('c/stats-old-c%d' % i, 'c/stats-held-c%d' % i, 'stats, old -> held (call 2)')
pair('c/apsp-old-c', 'c/apsp-held-c', 'apsp, old -> held (call 2)')
pair('c/scan-old-c', 'c/scan-held-c', 'scan, old -> held (call 2)')

def launches(path, run):
    return [1000 * float(r['value']) for r in csv.DictReader(open(path))
            if r['run_id'] == run and r['launch'] != 'run' and r['counter'] == 'time_ms']
for label, path in [('held (d/stats-table)', B + 'd/stats-table/measurements.csv'),
                    ('old (bench/stats-table)', 'validate/data/h100/bench/stats-table/measurements.csv')]:
    us = launches(path, 'stats/pairwise n=100 type=float seed=1')
    cheap = next(i for i, t in enumerate(us) if t > 5)
    print('stats/pairwise n=100, %s: first %d launches %.1f-%.1f us, the other %d median %.1f us' % (
        label, cheap, min(us[:cheap]), max(us[:cheap]), len(us) - cheap, statistics.median(us[cheap:])))
