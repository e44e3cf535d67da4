"""Memory benchmark: peak RSS growth per consumer and row count, each consumer
in a fresh process, one server for the whole run.

    python bench/memory/run.py                    # 100k 250k 500k 1M, memray, RESULTS.md, PNGs
    python bench/memory/run.py --check            # 20k and 60k, nothing written: for CI
    python bench/memory/run.py --sizes 100000 500000
    python bench/memory/run.py --report-only      # rebuild RESULTS.md and PNGs from results/

Exits non-zero when a bounded consumer (streaming or executemany) is not
flat: its growth at the largest size above 16 MiB, or above 1.5x (plus
1 MiB of allocator slack) its growth at the smallest size.  A real server is
used instead of the emulator when IFX_HOST is set (see bench/README.md).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import (CONSUMER, Target, code_note, consume, load, machine_note,  # noqa: E402
                     target)

RESULTS = HERE / "results"
MIB = 1 << 20

# What the memory table compares; the first three must stay flat.
BOUNDED = ("stream-iterate", "stream-fetchmany", "async-stream", "executemany",
           "arrow-batches", "load-sales", "load-sales-arrow", "blob-stream", "text-stream",
           "blob-readinto", "blob-write", "text-write")
GROWING = ("materialize", "informix-driver")
LABELS = {
    "stream-iterate": "ours, streaming, iterate",
    "stream-fetchmany": "ours, streaming, fetchmany(10,000)",
    "async-stream": "ours, asyncio, async for",
    "executemany": "ours, executemany from a generator",
    "load-sales": "ours, sales table, executemany from a generator",
    "load-sales-arrow": "ours, sales table, load_arrow from a pyarrow Table",
    "arrow-batches": "ours, fetch_arrow_batches(batch_rows=16,384)",
    "materialize": "ours, materialize=True, fetchall",
    "informix-driver": "informix-driver (materializes at execute)",
    "blob-stream": "ours, one BLOB of 200 bytes x rows, cursor(lob=\"stream\")",
    "text-stream": "ours, one TEXT of 200 bytes x rows, cursor(lob=\"stream\")",
    "blob-readinto": "ours, one BLOB of 200 bytes x rows, readinto a 1 MiB buffer",
    "blob-write": "ours, one BLOB of 200 bytes x rows written from a generator, execute",
    "text-write": "ours, one TEXT of 200 bytes x rows written from a generator, executemany",
}
STYLE = {   # colour, line and (for the growth plot) marker per consumer
    "stream-iterate": ("tab:blue", "-", "o"),
    "stream-fetchmany": ("tab:orange", "-", "s"),
    "async-stream": ("tab:cyan", "-.", "P"),
    "executemany": ("tab:green", "--", "^"),
    "load-sales": ("tab:brown", "--", "<"),
    "load-sales-arrow": ("tab:pink", "--", ">"),
    "arrow-batches": ("tab:olive", "-", "X"),
    "materialize": ("tab:red", "-", "D"),
    "informix-driver": ("tab:purple", "--", "v"),
    "blob-stream": ("tab:gray", ":", "*"),
    "text-stream": ("black", ":", "h"),
    "blob-readinto": ("tab:gray", "--", "8"),
    "blob-write": ("tab:gray", "-.", "d"),
    "text-write": ("black", "-.", "p"),
}
FLAT_CAP = 16 * MIB
# Issue 14's bound for a load of the sales table, from a generator or a
# pyarrow Table, at any size.
LOAD_CAP = 8 * MIB
LOADS = ("load-sales", "load-sales-arrow")
FLAT_RATIO = 1.5
# Allocator and GC noise between two runs of a flat consumer: the
# fetchmany(10,000) consumer measured 3.5-4.5 MiB at 20k rows and 4.9-5.7 MiB
# at 60k across CI runs.  3 MiB over 40k more rows still catches any consumer
# that keeps even 80 bytes a row (materializing keeps ~240).
FLAT_SLACK = 3 * MIB
FULL_SIZES = [100_000, 250_000, 500_000, 1_000_000]
CHECK_SIZES = [20_000, 60_000]


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def measure_all(t: Target, sizes: list[int], save: bool) -> list[dict]:
    results, total, step = [], len(sizes) * len(LABELS), 0
    for n in sizes:
        say(f"== {n:,} rows: loading")
        load(t, n)
        for name in LABELS:
            step += 1
            say(f"[{step}/{total}] {name} over {n:,} rows")
            r = consume(t, name, n)
            say(f"        growth {r['growth'] / MIB:7.1f} MiB   {r['rows_per_s']:>10,.0f} rows/s")
            results.append(r)
            if save:
                (RESULTS / f"{name}-{n}.json").write_text(json.dumps(r) + "\n")
    return results


def memray(t: Target, n: int, name: str = "stream-iterate") -> str:
    """Record ``name`` at n rows under memray; returns the text of ``memray stats``."""
    stem = RESULTS / f"memray-{name}-{n}"
    say(f"== memray: {name} over {n:,} rows")
    subprocess.run([sys.executable, "-m", "memray", "run", "-q", "-f", "-o", f"{stem}.bin",
                    str(CONSUMER), name, str(n), t.host, str(t.port)],
                   check=True, stdout=subprocess.DEVNULL)
    stats = subprocess.run([sys.executable, "-m", "memray", "stats", f"{stem}.bin"],
                           check=True, capture_output=True, text=True,
                           env={**os.environ, "COLUMNS": "120", "NO_COLOR": "1"}).stdout
    (stem.with_suffix(".stats.txt")).write_text(stats)
    subprocess.run([sys.executable, "-m", "memray", "flamegraph", "--no-web", "-f",
                    "-o", f"{stem}.html", f"{stem}.bin"], check=True, stdout=subprocess.DEVNULL)
    return stats


def failures(results: list[dict]) -> list[str]:
    """Bounded consumers that are not flat between the smallest and largest size."""
    by = {(r["consumer"], r["n"]): r["growth"] for r in results}
    sizes = sorted({r["n"] for r in results})
    small, large = sizes[0], sizes[-1]
    bad = []
    for name in BOUNDED:
        if (name, large) not in by:
            continue
        g_small, g_large = by[(name, small)], by[(name, large)]
        limit = min(LOAD_CAP if name in LOADS else FLAT_CAP,
                    max(FLAT_RATIO * g_small, g_small + FLAT_SLACK))
        if g_large > limit:
            bad.append(f"{name}: growth {g_large / MIB:.1f} MiB at {large:,} rows exceeds "
                       f"{limit / MIB:.1f} MiB (it was {g_small / MIB:.1f} MiB at {small:,})")
    return bad


def table(results: list[dict], value, fmt: str) -> list[str]:
    sizes = sorted({r["n"] for r in results})
    by = {(r["consumer"], r["n"]): r for r in results}
    lines = ["| consumer | " + " | ".join(f"{n:,}" for n in sizes) + " |",
             "|---|" + "---:|" * len(sizes)]
    for name, label in LABELS.items():
        cells = [format(value(by[(name, n)]), fmt) if (name, n) in by else "" for n in sizes]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def run_meta(argv: list[str]) -> dict:
    """How the figures were made, recorded as the run starts (results/run.json)."""
    return {"command": " ".join(["python bench/memory/run.py", *argv]),
            "date": datetime.date.today().isoformat(), "machine": machine_note(),
            "code": code_note(),
            "server": ("a real Informix server (IFX_HOST)" if os.environ.get("IFX_HOST")
                       else "the emulator in its own process")}


def write_report(results: list[dict], meta: dict, stats: str | None, plots: list[str]) -> None:
    sizes = sorted({r["n"] for r in results})
    bad = failures(results)
    lines = [
        "# Memory benchmark results",
        "",
        "Generated by `bench/memory/run.py`; do not edit by hand.",
        "",
        f"- Command: `{meta['command']}`",
        f"- Date: {meta['date']}",
        f"- Machine: {meta['machine']}",
        f"- Code: {meta['code']}",
        f"- Server: {meta['server']}",
        "",
        "Each cell is one consumer in a fresh Python process.  *Growth* is the peak of",
        "the process's current RSS (sampled every ~2-5 ms on a background thread)",
        "minus its RSS after connecting, just before the statement ran.",
        "",
        "## Peak RSS growth (MiB)",
        "",
        *table(results, lambda r: r["growth"] / MIB, ".1f"),
        "",
        "## Bytes per row (growth / rows)",
        "",
        "Meaningful for the consumers that hold every row; for the bounded ones it",
        "shrinks as N grows, which is the point.",
        "",
        *table(results, lambda r: r["growth"] / r["n"], ",.0f"),
        "",
        "## Rows per second (single run, for orientation only)",
        "",
        "See `bench/throughput/STRATEGIES.md` for medians of several runs.",
        "",
        *table(results, lambda r: r["rows_per_s"], ",.0f"),
        "",
        "## Bounded-memory check",
        "",
        f"Streaming and executemany growth at {sizes[-1]:,} rows must stay under "
        f"{FLAT_CAP // MIB} MiB and within {FLAT_RATIO}x (+{FLAT_SLACK // MIB} MiB) of "
        f"the growth at {sizes[0]:,} rows.",
        "",
        *([f"- FAILED: {b}" for b in bad] or ["- passed"]),
        "",
    ]
    for png in plots:
        lines += [f"![{png}]({png})", ""]
    if stats is not None:
        n = sizes[-1]
        lines += [
            f"## memray: ours, streaming iterate, {n:,} rows", "",
            f"Flame graph of the allocations alive at peak: "
            f"[results/memray-stream-iterate-{n}.html](results/memray-stream-iterate-{n}.html).",
            f"Full `memray stats`: [results/memray-stream-iterate-{n}.stats.txt]"
            f"(results/memray-stream-iterate-{n}.stats.txt).", "",
            "```", *_stats_head(stats), "```", ""]
    (HERE / "RESULTS.md").write_text("\n".join(lines))


def _stats_head(stats: str) -> list[str]:
    """The totals at the top of ``memray stats``, before its histogram and top-5 lists."""
    head = []
    for line in stats.splitlines():
        if "Histogram" in line:
            break
        if line.strip():
            head.append(line.rstrip())
    return head


def size_label(n: int) -> str:
    return f"{n // 1_000_000}m" if n % 1_000_000 == 0 else f"{n // 1000}k"


def plot(results: list[dict]) -> list[str]:
    """rss_vs_rows_<largest>.png and growth_vs_n.png; returns their names.

    Log scales, because the point is the contrast: bounded consumers stay
    near 1 MiB while materializing ones reach hundreds.
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter
    mib = FuncFormatter(lambda y, _: f"{y:g}")
    count = FuncFormatter(lambda x, _: f"{x:,.0f}")
    sizes = sorted({r["n"] for r in results})
    largest = {r["consumer"]: r for r in results if r["n"] == sizes[-1]}
    fig, (by_rows, by_time) = plt.subplots(1, 2, figsize=(13, 5.5))
    for name, label in LABELS.items():
        r = largest.get(name)
        if r is None:
            continue
        ys = [(s[2] - r["baseline"]) / MIB for s in r["samples"]]
        color, line, _ = STYLE[name]
        by_rows.plot([s[1] for s in r["samples"]], ys, label=label, color=color,
                     linestyle=line, linewidth=1.8)
        if name != "executemany":   # minutes of flat line would squash the reads
            by_time.plot([s[0] for s in r["samples"]], ys, label=label, color=color,
                         linestyle=line, linewidth=1.8)
    by_rows.set_xlabel("rows handed to the application (executemany: taken from the generator)")
    by_rows.xaxis.set_major_formatter(count)
    by_time.set_xlabel("seconds since execute (the SELECT consumers)")
    for ax in (by_rows, by_time):
        ax.set_yscale("symlog", linthresh=1)
        ax.yaxis.set_major_formatter(mib)
        ax.set_ylabel("RSS above baseline (MiB, log scale above 1)")
        ax.grid(alpha=0.3)
    by_rows.legend(fontsize=8, loc="center right")
    fig.suptitle(f"RSS while consuming {sizes[-1]:,} rows: the materializing consumers hand "
                 "over no row until every row is in memory", fontsize=10)
    fig.tight_layout()
    rss_png = f"rss_vs_rows_{size_label(sizes[-1])}.png"
    fig.savefig(HERE / rss_png, dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(8, 5.5))
    for name, label in LABELS.items():
        pts = sorted((r["n"], max(r["growth"], 1) / MIB) for r in results if r["consumer"] == name)
        color, line, marker = STYLE[name]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], label=label, color=color,
                linestyle=line, marker=marker)
        ax.annotate(f"{pts[-1][1]:.1f}", pts[-1], textcoords="offset points", xytext=(6, -3),
                    fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(sizes)
    ax.xaxis.set_major_formatter(count)
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda x, _: ""))
    ax.yaxis.set_major_formatter(mib)
    ax.set_xlabel("rows in the result (executemany: rows loaded)")
    ax.set_ylabel("peak RSS growth (MiB, log scale)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title("Peak RSS growth against result size", fontsize=10)
    fig.tight_layout()
    fig.savefig(HERE / "growth_vs_n.png", dpi=110)
    plt.close(fig)
    return [rss_png, "growth_vs_n.png"]


def print_summary(results: list[dict]) -> None:
    print("\n".join(table(results, lambda r: r["growth"] / MIB, ".1f")))
    largest = max(r["n"] for r in results)
    for r in results:
        if r["consumer"] in GROWING and r["n"] == largest:
            print(f"{LABELS[r['consumer']]}: {r['growth'] / r['n']:,.0f} bytes/row "
                  f"at {largest:,} rows")


def stored_results() -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(RESULTS.glob("*-[0-9]*.json"))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", help=f"default {FULL_SIZES}")
    ap.add_argument("--check", action="store_true",
                    help=f"small sizes ({CHECK_SIZES}), write nothing, only the verdict")
    ap.add_argument("--report-only", action="store_true",
                    help="rebuild RESULTS.md and the plots from results/*.json")
    ap.add_argument("--no-memray", action="store_true")
    args = ap.parse_args()
    save = not args.check
    stats = None
    if args.report_only:
        results = stored_results()
        meta = json.loads((RESULTS / "run.json").read_text())
        memray_txt = sorted(RESULTS.glob("memray-*.stats.txt"))
        stats = memray_txt[-1].read_text() if memray_txt else None
    else:
        meta = run_meta(sys.argv[1:])
        sizes = sorted(args.sizes or (CHECK_SIZES if args.check else FULL_SIZES))
        if save:
            RESULTS.mkdir(exist_ok=True)
            for old in RESULTS.glob("*"):
                old.unlink()
            (RESULTS / "run.json").write_text(json.dumps(meta) + "\n")
        with target() as t:
            results = measure_all(t, sizes, save)
            if save and not args.no_memray:
                stats = memray(t, sizes[-1])
    print_summary(results)
    if save:
        write_report(results, meta, stats, plot(results))
        say(f"wrote {HERE / 'RESULTS.md'}")
    bad = failures(results)
    for b in bad:
        print(f"NOT FLAT: {b}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
