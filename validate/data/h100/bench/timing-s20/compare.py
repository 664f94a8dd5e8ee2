# The run medians of bench/timing-s20 (50 repetitions) against the committed datasets' (10), run by run.
# From the repository root: python3 validate/data/h100/bench/timing-s20/compare.py
import csv, statistics

def run_times(path):
    return {r['run_id']: float(r['value']) for r in csv.DictReader(open(path))
            if r['launch'] == 'run' and r['counter'] == 'time_ms' and not r['algo'].startswith('baseline/')}

every = []
for suite in ['stats', 'scan', 'rank', 'micro', 'latency', 'apsp']:
    old = run_times('validate/data/h100/%s/measurements.csv' % suite)
    new = run_times('validate/data/h100/bench/timing-s20/%s/measurements.csv' % suite)
    diff = sorted((new[k] / old[k] - 1, k) for k in old if k in new)
    every += [abs(d) for d, _ in diff]
    print('%-8s %3d runs  mean |new/old - 1| %5.1f%%  most %+.1f%% .. %+.1f%%' % (
        suite, len(diff), 100 * statistics.mean(abs(d) for d, _ in diff), 100 * diff[0][0], 100 * diff[-1][0]))
print('all      %3d runs  mean %.1f%%  median %.1f%%' % (len(every), 100 * statistics.mean(every), 100 * statistics.median(every)))
