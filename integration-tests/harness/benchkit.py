"""What the fleet's request benchmarks share (bench-overhead,
bench-hprof-split): requests of a calibrated size, and paired comparisons of
interleaved requests with a bootstrap interval."""

import random
import statistics

# One entry point of each kind (page view, action API, REST).
PATHS = ["/index.php?title=Main_Page", "/api.php?action=query&list=recentchanges",
         "/rest.php/v1/page/Earth"]


def with_work(path, work):
    return "%s%swork=%d" % (path, "&" if "?" in path else "?", work)


def calibrate(base, target_ms, paths=PATHS, each=3):
    """Per entry point, the `work` whose median latency on the pool `base`
    (a WebHost) is closest to target_ms, from a ladder of values (the app's
    cost is not linear in it, nor even monotonic: the generated page
    structure depends on it). Returns ({path: work}, {path: median ms})."""
    best = {p: (None, float("inf")) for p in paths}
    open_paths = list(paths)
    work = 100
    while open_paths and work <= 6000:
        urls = [with_work(p, work) for p in open_paths]
        res = base.load(urls, count=each * len(urls), duration=120)
        for p, u in zip(list(open_paths), urls):
            med = statistics.median(1000.0 * r["latency"] for r in res["requests"] if r["url"] == u)
            if abs(med - target_ms) < abs(best[p][1] - target_ms):
                best[p] = (work, med)
            if med > 2.5 * target_ms:
                open_paths.remove(p)
        work = int(work * 1.15) + 1
    return {p: w for p, (w, _) in best.items()}, {p: m for p, (_, m) in best.items()}


def bootstrap_median(values, seed=8, draws=1000):
    """The median of values and a bootstrap 95% interval of it."""
    rnd = random.Random(seed)
    boot = sorted(statistics.median(rnd.choices(values, k=len(values))) for _ in range(draws))
    return statistics.median(values), (boot[int(0.025 * draws)], boot[int(0.975 * draws) - 1])


def paired(reqs, target, base, field, keys, op):
    """op(target's request, base's request) for every key (round, url, ...)
    both served: the requests were adjacent in time, so what the machine
    did meanwhile weighs on both. `reqs` maps (name, key) -> request."""
    return [op(reqs[(target, k)][field], reqs[(base, k)][field]) for k in keys
            if (target, k) in reqs and (base, k) in reqs]


def verdict(interval, target, unit):
    """Within the target only when the whole interval is."""
    lower, upper = interval
    if upper <= target:
        return "within the %s target" % (unit % target)
    if lower > target:
        return "OVER the %s target" % (unit % target)
    return "not resolved against the %s target (interval %s to %s)" % (
        unit % target, unit % lower, unit % upper)
