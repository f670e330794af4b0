"""On-demand benchmark of ``--cluster`` (issue 13; not part of the test suite).

Usage::

    python bench/bench_cluster.py [--files 8] [--matches-per-file 300] [--pairs 5]

1. ``write_stats(cluster=local:2)`` against ``write_stats(jobs=2)`` on the same ``--files``
   simulated logs (cached in ``bench/data``), taken in turns A B A B; the report is the median of
   the pairs' ratios (cluster ÷ jobs) with their range. The LocalCluster is started once, before
   the pairs (its start-up, a few seconds, is reported apart); ``--jobs 2`` starts its pool in
   every run, as the command does.
2. Events per second per worker with 1 and 2 workers (a LocalCluster each, warm).
3. The driver's work per file: the driver process's CPU time of a cluster run, divided by the
   files, on small and on large files (the same matches cut 4 times finer); it must not grow
   with the file's size. With the per-file time of a worker, it gives a projection for 100
   workers: time ≈ files × max(task time ÷ workers, driver work per file).
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
DATA = BENCH / "data"


def make_logs(files: int, matches: int, tag: str) -> list[Path]:
    """``files`` simulated logs of ``matches`` matches each (distinct ids), cached."""
    from drawlog.play.simulate import SimulationOptions, Simulator, encode_events, interleave

    DATA.mkdir(exist_ok=True)
    paths = []
    for index in range(files):
        path = DATA / f"cluster-{tag}-{index}-{matches}.jsonl"
        if not path.is_file():
            simulator = Simulator(index, SimulationOptions(players="mixed", bots=("greedy", "random"),
                                                            match_prefix=f"{tag}{index}-"))
            events = interleave(list(simulator.matches(matches)), random.Random(index))
            path.write_bytes(b"".join(encode_events(events)))
        paths.append(path)
    return paths


def timed(run) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--matches-per-file", type=int, default=300)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--driver-only", action="store_true", help="Only part 3 (the driver's work per file).")
    options = parser.parse_args()

    from distributed import Client, LocalCluster

    import drawlog

    logs = make_logs(options.files, options.matches_per_file, "c")
    events = drawlog.validate(logs).summary.events
    size = sum(path.stat().st_size for path in logs)
    print(f"{len(logs)} files, {size / 1e6:.1f} MB, {events:,} events; compiled engine: {drawlog.COMPILED}")
    scratch = Path(tempfile.mkdtemp(prefix="drawlog-bench-cluster-"))
    try:
        started = time.perf_counter()
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None)
        client = Client(cluster)
        print(f"LocalCluster of 2 started in {time.perf_counter() - started:.1f} s (once)")
        drawlog.write_stats(logs, scratch / "warm", cluster=client)  # the workers import drawlog once
        ratios, jobs_times, cluster_times = [], [], []
        for _ in range(0 if options.driver_only else options.pairs):
            jobs_time = timed(lambda: drawlog.write_stats(logs, scratch / "jobs", jobs=2))
            cluster_time = timed(lambda: drawlog.write_stats(logs, scratch / "cluster", cluster=client))
            jobs_times.append(jobs_time)
            cluster_times.append(cluster_time)
            ratios.append(cluster_time / jobs_time)
        if not options.driver_only:
            print(f"--jobs 2: median {statistics.median(jobs_times):.2f} s; --cluster local:2: median "
                  f"{statistics.median(cluster_times):.2f} s; cluster ÷ jobs, median of {options.pairs} pairs: "
                  f"{statistics.median(ratios):.3f} (range {min(ratios):.3f}–{max(ratios):.3f})")

        task_times = [statistics.median(timed(lambda: drawlog.write_stats(logs, scratch / "per", cluster=client))
                                        for _ in range(3)) * 2 / len(logs)] if options.driver_only else []
        for workers in () if options.driver_only else (1, 2):
            if workers == 1:
                one = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                   dashboard_address=None)
                target = Client(one)
                drawlog.write_stats(logs, scratch / "warm1", cluster=target)
            else:
                target = client
            seconds = statistics.median(timed(lambda target=target: drawlog.write_stats(logs, scratch / "per", cluster=target))
                                        for _ in range(3))
            rate = events / seconds / workers
            task_times.append(seconds * workers / len(logs))
            print(f"{workers} worker{'s' if workers > 1 else ''}: {seconds:.2f} s, {events / seconds:,.0f} events/s, "
                  f"{rate:,.0f} events/s per worker")
            if workers == 1:
                target.close()
                one.close()

        from drawlog.tables import cluster as backend

        spent = [0.0]

        def clocked(function):
            def run(*args, **kwargs):
                started = time.perf_counter()
                try:
                    return function(*args, **kwargs)
                finally:
                    spent[0] += time.perf_counter() - started
            return run

        for name in ("commit_parts", "earlier_starts", "add_summaries"):
            setattr(backend, name, clocked(getattr(backend, name)))
        driver, steps = {}, {}
        for tag, files, matches in (("large", options.files, options.matches_per_file * 4),
                                    ("small", options.files * 4, options.matches_per_file)):
            inputs = make_logs(files, matches, tag[0])
            per_file, per_step = [], []
            for _ in range(3):
                before, spent[0] = time.process_time(), 0.0
                drawlog.write_stats(inputs, scratch / f"driver-{tag}", cluster=client)
                per_file.append((time.process_time() - before) / files)
                per_step.append(spent[0] / files)
            steps[tag] = statistics.median(per_step)
            file_size = sum(path.stat().st_size for path in inputs) / files
            driver[tag] = statistics.median(per_file)
            print(f"driver per file, {tag} files ({file_size / 1e6:.2f} MB each): process CPU {driver[tag] * 1e3:.1f} ms "
                  f"(its client's event loop included), joining and committing {steps[tag] * 1e3:.2f} ms")
        print(f"large ÷ small files (4× the size): process CPU {driver['large'] / driver['small']:.2f}, joining and "
              f"committing {steps['large'] / steps['small']:.2f}")
        task = task_times[0]
        files = 10_000
        workers = 100
        projected = files * max(task / workers, driver["small"])
        print(f"projection, {files:,} files like these on {workers} workers: task {task:.2f} s a file, driver "
              f"{driver['small'] * 1e3:.1f} ms a file -> {projected:,.0f} s "
              f"({files * task / projected / 1:.0f}× one worker; the driver caps it at "
              f"{task / driver['small']:.0f} workers)")
        client.close()
        cluster.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
