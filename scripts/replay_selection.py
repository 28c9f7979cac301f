#!/usr/bin/env python3
"""Replays the autotuner's winner selection on tuning logs, for several rules.

Tune the same module cold a few times, each with its own log:

  for i in 1 2 3 4; do
    XTUNE_CACHE_DIR=$(mktemp -d) build/xtune compile M.hlo \\
        --xla_gpu_dump_autotune_logs_to=/tmp/log$i.txt
  done
  scripts/replay_selection.py /tmp/log1.txt /tmp/log2.txt /tmp/log3.txt /tmp/log4.txt

For each rule it prints how often two tunings choose the same config
(isolated choice, before the in-module phase), how much slower each
tuning's choice is than the best by *another* tuning's medians (an
independent measurement: a tuning's own medians favour what it chose), and
how many winners use more than one thread. The rules mirror
autotune/selection.cc (SelectWinner); "current" is what it does, keep the
two in step. Each log's `round_medians` are what the rules compare.
"""
import itertools
import re
import sys

JITTER_US = 0.15  # kTimingJitterSeconds
MIN_BAND = 0.03   # AutotuneOptions::min_noise_band


def parse(path):
    fusions, fusion, cand = {}, None, None
    for line in open(path):
        s = line.strip()
        m = re.match(r'fusion: "(.*)"', s)
        if m and line.startswith('  fusion'):
            fusion = fusions.setdefault(m.group(1), [])
            continue
        m = re.match(r'config: "(.*)"', s)
        if m and line.startswith('    config'):
            cand = {'config': m.group(1), 'samples': [], 'rounds': [], 'failed': False}
            fusion.append(cand)
            continue
        m = re.match(r'(samples|round_medians) \{ nanos: (\d+)', s)
        if m and cand is not None:
            key = 'samples' if m.group(1) == 'samples' else 'rounds'
            cand[key].append(int(m.group(2)) / 1e3)
        if s.startswith('failure') and cand is not None:
            cand['failed'] = True
    return fusions


def median(xs):
    xs = sorted(xs)
    return xs[(len(xs) - 1) // 2]


def threads(config):
    m = re.search(r'threads=(\d+)', config)
    return int(m.group(1)) if m else 1


def spread(rounds, score):
    if len(rounds) < 2 or score <= 0:
        return 0.0
    rounds = sorted(rounds)
    if len(rounds) >= 4:
        rounds.pop()
    return (rounds[-1] - rounds[0]) / score


def level(cands):
    rounds = [list(c['rounds']) for c in cands]
    typical = [median(r) if c['eligible'] and r else 0 for c, r in zip(cands, rounds)]
    most = max([len(r) for c, r in zip(cands, rounds) if c['eligible']] + [0])
    for k in range(most):
        ratios = [rounds[i][k] / typical[i] for i in range(len(cands))
                  if typical[i] > 0 and len(rounds[i]) >= 2 and k < len(rounds[i])]
        if len(ratios) < 3:
            continue
        drift = median(ratios)
        for r in rounds:
            if k < len(r):
                r[k] /= drift
    return rounds


def select(cands, rule):
    for c in cands:
        c['eligible'] = bool(c['samples']) and not c['failed']
    levelled = level(cands)
    scores = [median(l) if l else (median(c['samples']) if c['samples'] else 0)
              for c, l in zip(cands, levelled)]
    eligible = [i for i, c in enumerate(cands) if c['eligible']]
    if not eligible:
        return None
    best = min(scores[i] for i in eligible)
    lo = max(MIN_BAND, min(JITTER_US / best, 0.25))
    hi = max(MIN_BAND, 0.25)
    own = [min(max(spread(levelled[i], scores[i]), lo), hi) for i in range(len(cands))]
    winner = None
    for i in eligible:
        if winner is None:
            winner = i
            continue
        more = threads(cands[i]['config']) > threads(cands[winner]['config'])
        needed = {'old': own[i], 'floor': lo, 'current': max(lo, own[i]) if more else lo}[rule]
        if scores[i] * (1 + needed) < scores[winner]:
            winner = i
    return cands[winner]['config']


def main(paths):
    if len(paths) < 2:
        sys.exit('usage: replay_selection.py LOG LOG [LOG ...] (two tunings at least)')
    logs = []
    for p in paths:
        try:
            logs.append(parse(p))
        except (OSError, UnicodeDecodeError) as e:
            sys.exit(f'replay_selection.py: cannot read {p}: {e}')
    names = [f for f in logs[0] if all(f in l for l in logs)]
    if not names:
        sys.exit('replay_selection.py: the logs share no tuned fusion (not '
                 '--xla_gpu_dump_autotune_logs_to files of one module?)')
    for rule in ('old', 'floor', 'current'):
        chosen = [{f: select(l[f], rule) for f in names} for l in logs]
        agree, slower, threaded = [], [], 0
        for i, j in itertools.permutations(range(len(logs)), 2):
            if i < j:
                agree.append(sum(chosen[i][f] == chosen[j][f] for f in names) / len(names))
            for f in names:
                med = {c['config']: median(c['samples']) for c in logs[j][f]
                       if c['samples'] and not c['failed']}
                if chosen[i][f] in med:
                    slower.append(med[chosen[i][f]] / min(med.values()))
        threaded = sum(threads(c[f] or '') > 1 for c in chosen for f in names)
        slower.sort()
        print(f'{rule:8s} same config {sum(agree) / len(agree):.3f}  '
              f'chosen vs best by another tuning: mean {sum(slower) / len(slower):.3f} '
              f'p90 {slower[int(0.9 * len(slower))]:.3f}  '
              f'threaded winners {threaded}/{len(names) * len(logs)}')


if __name__ == '__main__':
    main(sys.argv[1:])
