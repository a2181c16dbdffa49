"""Figures drawn off-screen with matplotlib and returned as PNG bytes, without JAX: the learning curves of run folders
(runs.py) and the analyses that play.py's JAX-free episodes feed (analysis/tracking_errors.py)."""

import io


def figure(rows, cols, size):
    """A matplotlib figure and its axes, drawn off-screen. Fixed margins, not a layout engine: the curves are drawn at
    every checkpoint, and matplotlib's constrained layout nearly doubles the time a figure takes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(rows, cols, figsize=size)
    fig.subplots_adjust(left=0.06, right=0.98, bottom=0.1, top=0.88, wspace=0.2, hspace=0.35)
    return fig, axes


def png(fig, title):
    """The titled figure as PNG bytes; the figure is closed."""
    import matplotlib.pyplot as plt

    fig.suptitle(title)
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=80)
    plt.close(fig)
    return out.getvalue()
