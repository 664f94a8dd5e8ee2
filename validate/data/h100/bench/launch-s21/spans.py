# Copies of the held datasets (d/, e/, h200/) whose run times are their spans: each run's median over its 10
# timed repetitions of the `span ...` lines in the dataset's log (first start event to last stop event), the
# per-launch time_ms rows left out so that `agpu fit` takes the run's row. README.md, "Spans are not a better
# run time". From the repository root:
#   python3 validate/data/h100/bench/launch-s21/spans.py /tmp/spans
#   agpu fit --data /tmp/spans/d/{stats,scan,rank,apsp,micro,latency,stats-table} validate/data/h100/bench/apsp \
#     /tmp/spans/e/{rank-goals,bench-scan,scan-tune,bench-stats} \
#     --check /tmp/spans/h200/{stats,scan,rank,apsp,micro,latency,bench-stats} validate/data/h200/bench/{scan,apsp,timing-session10/stats}
import csv, os, shutil, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from logspans import log_spans
B = 'validate/data/h100/bench/launch-s21/'
out = sys.argv[1]
for part, names in [('d', 'stats scan rank apsp micro latency stats-table'), ('e', 'rank-goals bench-scan scan-tune bench-stats'),
                    ('h200', 'stats scan rank apsp micro latency bench-stats')]:
    for name in names.split():
        src, dst = B + part + '/' + name, os.path.join(out, part, name)
        os.makedirs(dst, exist_ok=True)
        shutil.copy(src + '/provenance.json', dst)
        spans = log_spans(src + '.log')
        rows = list(csv.DictReader(open(src + '/measurements.csv')))
        w = csv.DictWriter(open(dst + '/measurements.csv', 'w', newline=''), fieldnames=rows[0].keys(), lineterminator='\n')
        w.writeheader()
        for r in rows:
            if r['run_id'] in spans and r['counter'] == 'time_ms':
                if r['launch'] != 'run': continue
                r['value'] = repr(spans[r['run_id']])
            w.writerow(r)
