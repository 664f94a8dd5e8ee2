# The spans in a pool or held log (AGPU_EXPERIMENT_SPAN lines): for each run, the median of its last 10
# `span ...` lines (its timed repetitions), by the run id of the `[i/N] run: ... ms` line that follows them.
import re, statistics

def log_spans(path):
    out, cur = {}, []
    for line in open(path):
        m = re.match(r'span \d+ launches ([\d.]+) ms', line)
        if m:
            cur.append(float(m.group(1)))
            continue
        m = re.match(r'\[\d+/\d+\] (.*): [\d.]+ ms', line)
        if m:
            if cur: out[m.group(1)] = statistics.median(cur[-10:])
            cur = []
    return out
