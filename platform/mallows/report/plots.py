"""The report's charts, drawn by matplotlib as SVG text (no pyplot, no global state).

Owns ``heatmap_svg`` (who finishes ahead of whom, with match counts) and ``progression_svg``
(each bot's mu +- sigma over the matches in schedule order). Each SVG gets its own id salt so
that several can sit inline in one page without their clip-path ids colliding; no date is
written, so the same results give the same bytes.
"""

from __future__ import annotations

import io

import matplotlib
from matplotlib.figure import Figure

from mallows.report.data import Board, short_bot


def _svg(fig: Figure, salt: str) -> str:
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": salt, "svg.fonttype": "none"}):
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buf.getvalue()
    return text[text.index("<svg") :]  # inline: drop the XML prolog and doctype


def heatmap_svg(board: Board, salt: str) -> str | None:
    """Cell (row a, column b): the share of their shared matches in which a finished strictly
    ahead of b, and n, the number of those matches."""
    bots = [r["bot"] for r in board.rows if r["matches"]]
    if len(bots) < 2:
        return None
    k = len(bots)
    grid = [[float("nan")] * k for _ in range(k)]
    size = max(3.2, 0.9 * k + 1.6)
    fig = Figure(figsize=(size + 1.2, size))
    ax = fig.add_subplot()
    for i, a in enumerate(bots):
        for j, b in enumerate(bots):
            h = board.h2h.get(a, {}).get(b)
            if h is not None and a != b:
                grid[i][j] = h.ahead
    image = ax.imshow(grid, cmap="RdBu", vmin=0.0, vmax=1.0)
    for i, a in enumerate(bots):
        for j, b in enumerate(bots):
            h = board.h2h.get(a, {}).get(b)
            if a == b or h is None:
                continue
            dark = abs(h.ahead - 0.5) > 0.3
            ax.text(
                j,
                i,
                f"{h.ahead:.0%}\nn={h.matches}",
                ha="center",
                va="center",
                fontsize=8,
                color="white" if dark else "black",
            )
    labels = [short_bot(b) for b in bots]
    ax.set_xticks(range(k), labels, rotation=35, ha="right", fontsize=8)
    ax.set_yticks(range(k), labels, fontsize=8)
    ax.set_xlabel("opponent")
    ax.set_title("share of shared matches the row bot finished ahead", fontsize=9)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, format=lambda v, _: f"{v:.0%}")
    return _svg(fig, salt + "-h2h")


def progression_svg(board: Board, salt: str) -> str | None:
    """Each bot's mu (line) and mu +- sigma (band) after each of its matches, over the match
    number in schedule order: a table that has settled shows flat, narrow, separate bands."""
    series = [(r["bot"], board.progression.get(r["bot"], [])) for r in board.rows]
    series = [(b, s) for b, s in series if s]
    if not series:
        return None
    fig = Figure(figsize=(8, 4.2))
    ax = fig.add_subplot()
    for bot, points in series:
        # (already thinned by ``data.board`` to a few hundred: they draw the same curve)
        x = [p[0] for p in points]
        mu = [p[1] for p in points]
        sigma = [p[2] for p in points]
        (line,) = ax.plot(x, mu, linewidth=1.4, label=short_bot(bot))
        ax.fill_between(
            x,
            [m - s for m, s in zip(mu, sigma)],
            [m + s for m, s in zip(mu, sigma)],
            color=line.get_color(),
            alpha=0.15,
            linewidth=0,
        )
    ax.set_xlabel("match (schedule order)")
    ax.set_ylabel(f"{board.estimate[0]} (band: ± {board.estimate[1]})")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    return _svg(fig, salt + "-progress")
