"""The command line: ``python -m explorer export`` writes slides' images and animations.

Example::

    python -m explorer export --dataset moons --rounds 0,1,2,5,10,50 --out slides
    python -m explorer export --csv points.csv --features x,y --target label \\
        --view tree --formats png,html --out slides
    python -m explorer export --dataset sine --rounds 0,1,5,20 --out slides   # regression
    python -m explorer export --interactive --page tree --out lesson   # steps offline
    python -m explorer export --compare outlier --rounds 10 --out slides   # Compare's views
    python -m explorer export --sweep learning-rate=0.05,0.1 --sweep2 max-depth=1,3

For each round it writes the view as PNG (at least 1920 px wide) and SVG; then
a storyboard of all the rounds (PNG and SVG) and the fit's rounds as a
self-contained HTML animation. ``--compare PAIR`` writes the Compare page's views and
``--sweep`` the Sweep page's instead, as the Slides page makes them
(:mod:`explorer.export.groups`). With ``--interactive`` it writes a page of the app
(``--page``) as one HTML file that steps through every round offline. The data and
fit options, and their defaults, are the app's (``explorer.state``): one option for each
fit setting of the app, split and leaf rules included, so a file matches what the app
shows for the same settings; an option the split rule does not use is refused. Bad input
ends with a one-line message and exit status 1 (2 for a malformed command line), never a
traceback.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import replace
from pathlib import Path

from . import export as exporting, fit
from .data import (CLASSIFICATION_SETS, REGRESSION_SETS, TASKS, DataError, flip_labels,
                   make_toy, split)
from .numbers.grid import make_grid
from .export import interactive
from .figures import pages
from .figures.pages import PAGES
from .settings import Settings, applies, toy_name
from .state import (BY_KEY, COMPARISONS, ENGINE_SPLIT, FIELDS, LOSSES, PAIRS, REGRESSION_PAIRS,
                    UPLOAD, State)
from .sweep import AXES, GRID as SWEEP_GRID, MAX_VALUES, plan
from .upload import load_csv

ALL_TOYS = CLASSIFICATION_SETS + REGRESSION_SETS

PROG = "python -m explorer"
# The fit's options, one per fit field of the app's State (its URL key -> the option)
FIT_OPTIONS = {"loss": "--loss", "rounds": "--n-rounds", "lr": "--learning-rate",
               "depth": "--max-depth", "leaves": "--max-leaves",
               "minleaf": "--min-samples-leaf", "subsample": "--subsample", "seed": "--seed",
               "split": "--split", "leafrule": "--leaf-rule", "lam": "--reg-lambda",
               "gamma": "--gamma", "mcw": "--min-child-weight", "bins": "--max-bins"}
assert set(FIT_OPTIONS) == {f.key for f in FIELDS if f.param}, "a fit field has no option"
# explorer.fit's parameters and the options that set them, for the engine's messages
_FLAG = {BY_KEY[key].param: flag for key, flag in FIT_OPTIONS.items()}
_FLAGS = re.compile(r"\b(" + "|".join(_FLAG) + r")\b")


def _list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


# The sweep's settings by their options' names (the State's keys in a link)
SWEEP_OPTIONS = {flag.lstrip("-"): key for key, flag in
                 {**FIT_OPTIONS, "n": "--n", "noise": "--noise"}.items() if key in AXES}


def _sweep(text: str) -> str:
    """``learning-rate=0.05,0.1`` as the State writes a sweep (``lr:0.05,0.1``); its values
    are checked with the fit's (explorer.sweep.plan names any left out)."""
    option, sep, values = text.partition("=")
    key = SWEEP_OPTIONS.get(option.strip().lstrip("-"))
    if key is None or not sep:
        raise argparse.ArgumentTypeError(
            f"a sweep is OPTION=V,V with OPTION one of {', '.join(SWEEP_OPTIONS)}; "
            f"got {text!r}.")
    return f"{key}:{values.replace(' ', '')}"


def _formats(text: str) -> list[str]:
    formats = [f.lower() for f in _list(text)]
    wrong = [f for f in formats if f not in exporting.FORMATS]
    if wrong or not formats:
        raise argparse.ArgumentTypeError(
            f"formats are a comma-separated choice of {', '.join(exporting.FORMATS)}; "
            f"got {text!r}.")
    return list(dict.fromkeys(formats))


def _loss(text: str) -> str:
    loss = text.replace("_", "-")
    if loss not in LOSSES:
        raise argparse.ArgumentTypeError(f"choose from {', '.join(LOSSES)}; got {text!r}.")
    return loss


def _width(text: str) -> int:
    try:
        width = int(text)
    except ValueError:
        width = 0
    if width < exporting.MIN_WIDTH:
        raise argparse.ArgumentTypeError(
            f"the width is a whole number of pixels, at least {exporting.MIN_WIDTH}; got {text!r}.")
    return width


def _option(group, flag: str, key: str, **extra) -> None:
    """An option whose type, choices, default and help come from the app's field ``key``.

    A fit option's value is None when it is not given: its default may depend on the
    split rule (:func:`_state`), and an option given for a rule that does not use it
    is refused."""
    field = BY_KEY[key]
    kind = extra.pop("type", field.kind)
    help_text = extra.pop("help", field.help or field.label).rstrip(".")
    default = f"default {field.default}" + "".join(
        f"; {value} with --split {split}" for split, value in field.by_rule)
    if field.choices and kind is str:
        extra["choices"] = field.choices
    group.add_argument(flag, type=kind, default=None if field.param else field.default,
                       dest=key, metavar=flag.lstrip("-").upper().replace("-", "_"),
                       help=f"{help_text} ({default})", **extra)


def parser() -> argparse.ArgumentParser:
    """The command line's parser: ``export``, and ``warmup`` (fill numba's cache)."""
    top = argparse.ArgumentParser(prog=PROG, description="Boosting Explorer from the shell.")
    commands = top.add_subparsers(dest="command", metavar="COMMAND", required=True)
    commands.add_parser(
        "warmup", help="compile the engine into numba's cache (make app runs it once)",
        description="Compile every kernel the app calls, part by part, so that the first "
                    "visit is fast.")
    p = commands.add_parser(
        "export", help="write PNG, SVG and HTML files for slides",
        description="Fit, then write each round's view as PNG and SVG, a storyboard of "
                    "the rounds and an HTML animation of the fit.")
    data = p.add_argument_group("data (a toy set, or --csv)")
    data.add_argument("--dataset", default=BY_KEY["data"].default, choices=ALL_TOYS,
                      metavar="NAME", help="toy set: classification "
                      + ", ".join(CLASSIFICATION_SETS) + "; regression "
                      + ", ".join(REGRESSION_SETS) + f" (default {BY_KEY['data'].default})")
    data.add_argument("--csv", type=Path, metavar="FILE",
                      help="a CSV file instead of a toy set: a header row, then one row per point")
    data.add_argument("--task", choices=TASKS, default=TASKS[0],
                      help="what the CSV file's target holds: 2 to 10 classes (classification, "
                           "the default) or numbers (regression, squared error)")
    data.add_argument("--features", type=_list, metavar="A,B",
                      help="the feature columns of the CSV file: two, or one or two for a "
                           "regression (default: the first two numeric columns)")
    data.add_argument("--target", metavar="C",
                      help="the label column of the CSV file (default: the last)")
    _option(data, "--n", "n")
    _option(data, "--noise", "noise")
    _option(data, "--balance", "balance")
    _option(data, "--data-seed", "dseed")
    _option(data, "--valid", "valid")
    model = p.add_argument_group(
        "fit (an option that the split rule does not use is refused)")
    extra = {"loss": dict(type=_loss, help="log-loss or exponential (classification; a "
                                            "regression's is squared error)"),
             "leaves": dict(help="0 = no limit; otherwise trees grow best-first up to "
                                 "this many leaves")}
    for key, flag in FIT_OPTIONS.items():
        _option(model, flag, key, **extra.get(key, {}))
    out = p.add_argument_group("output")
    out.add_argument("--view", default="model", choices=exporting.ALL_VIEWS,
                     help="model (the probability map, or a regression's F), residuals, "
                          "tree (its regions), and every other chart of a page: update, "
                          "diagram (tree m), sample-map and trajectory (the --sample), "
                          "curves, leaf (Leaf maths' typical leaf), splits (at the root); "
                          "the storyboard and the animation are the first three's; "
                          "default model")
    out.add_argument("--aspect", default="16:9", choices=tuple(exporting.ASPECTS),
                     help="the slides' shape (default 16:9)")
    out.add_argument("--rounds", dest="export_rounds", metavar="0,1,10",
                     help="the rounds to export (default: 0,1,2,5,10,50 as far as the fit goes)")
    out.add_argument("--class", dest="cls", type=int, default=None, metavar="K",
                     help="with three classes or more: the class whose residuals and tree "
                          "are drawn and whose probability p_K the model view maps "
                          "(default: class 0, and the most probable class on the model)")
    out.add_argument("--formats", type=_formats, default=None,
                     metavar="png,svg,html", help="what to write (default all three; "
                     "none with --interactive)")
    out.add_argument("--width", type=_width, default=exporting.MIN_WIDTH,
                     help=f"width of the PNG and SVG images in pixels (default and least "
                          f"{exporting.MIN_WIDTH})")
    lesson = p.add_argument_group(
        "lesson file (--interactive): a page of the app as one HTML file that steps "
        "through every round offline, with plotly.js inside")
    lesson.add_argument("--interactive", action="store_true",
                        help="write the lesson file (besides --formats, when given)")
    lesson.add_argument("--page", choices=PAGES + ("sweep",), default="model",
                        help="the page the file shows (default model; sweep with --sweep)")
    lesson.add_argument("--present", action="store_true",
                        help="presenter mode: the charts made for a projector")
    _option(lesson, "--sample", "sample", help="the selected training point")
    lesson.add_argument("--app-url", default=interactive.APP_URL, metavar="URL",
                        help="the app's address, for the file's link to the app at the "
                             "same settings (default none: the file then has no link and "
                             "says so)")
    sweep = p.add_argument_group(
        "sweep: a fit per value (per pair of values with --sweep2), every other setting "
        "as given; writes each round's maps as one grid, the loss curves and, with two "
        "settings, the heat map of validation loss")
    names = ", ".join(SWEEP_OPTIONS)
    sweep.add_argument("--sweep", type=_sweep, metavar="OPTION=V,V",
                       help=f"the setting to vary and its values (at most {MAX_VALUES}), "
                            f"such as learning-rate=0.05,0.1,0.2; one of {names}")
    sweep.add_argument("--sweep2", type=_sweep, metavar="OPTION=V,V",
                       help="a second setting, down the grid (max-depth=1,3,6)")
    compare = p.add_argument_group(
        "compare: the Compare page's two fits of the same data, side by side; writes each "
        "round's two models and the two fits' loss curves (PNG, SVG)")
    compare.add_argument("--compare", choices=PAIRS, metavar="PAIR",
                         help=("the pair: " + "; ".join(f"{key} ({text})" for key, (text, *_)
                                                         in COMPARISONS.items())
                               + f"; a regression's: {', '.join(REGRESSION_PAIRS)}"
                               ).replace("%", "%%"))  # argparse formats help with %
    out.add_argument("--out", type=Path, default=Path("exports"), metavar="DIR",
                     help="folder for the files, made if missing (default ./exports)")
    return top


def _data(args):
    """(training set, validation set, the name for files, the label for titles)."""
    if args.csv is not None:
        ds = load_csv(args.csv, features=args.features, target=args.target, task=args.task)
        name = args.csv.name
    else:
        if args.features or args.target or args.task != TASKS[0]:
            raise DataError("--features, --target and --task describe a --csv file; a toy "
                            "set decides them.")
        ds = make_toy(args.dataset, n=args.n, noise=args.noise, balance=args.balance,
                      seed=args.dseed)
        name = toy_name(args.dataset, args.n)  # as the app's toolbar names its images
    train, valid = split(ds, args.valid, args.dseed)
    return train, valid, name, f"{ds.name}, {len(train.y)} training points"


def export(args, log=print) -> list[Path]:
    """Fit and write the files the arguments ask for; returns their paths.

    Raises
    ------
    DataError, ValueError, ExportError, OSError
        With a message for the person at the shell.
    """
    train, valid, name, label = _data(args)
    state = _state(args, train)
    if args.compare and (args.sweep or args.sweep2 or args.interactive):
        raise ValueError("--compare writes the comparison's images alone: leave out "
                         "--sweep and --interactive.")
    if args.compare:
        return _export_compare(args, state, (train, valid), name, label, log)
    if args.sweep or args.sweep2:
        return _export_sweep(args, state, name, label, log)
    if args.page == "sweep":
        raise ValueError("--page sweep needs --sweep.")
    params = state.fit_params()
    log(f"Fitting {state.rounds} rounds on {label}…")
    try:
        trace = fit(train.X, train.y, X_valid=None if valid is None else valid.X,
                    y_valid=None if valid is None else valid.y, **params)
    except ValueError as error:  # the engine names its parameters: name the options
        raise ValueError(_FLAGS.sub(lambda match: _FLAG[match.group(0)], str(error))) from None
    if args.cls is not None and not (trace.is_multiclass and 0 <= args.cls < trace.n_classes):
        raise ValueError(f"--class {args.cls}: " + (
            f"{label} has classes 0..{trace.n_classes - 1}." if trace.is_multiclass else
            "--class is for three classes or more; this fit has one tree a round."))
    rounds = (exporting.storyboard_rounds(trace.n_rounds) if args.export_rounds is None
              else exporting.parse_rounds(args.export_rounds, trace.n_rounds))
    grid = make_grid(trace)
    names = dict(feature_names=train.feature_names, classes=train.classes or None,
                 target_name=train.target_name, k=args.cls)
    settings = Settings.of(params)
    write, written = _writer(args.out, settings, name, log)

    formats = args.formats if args.formats is not None else (
        [] if args.interactive else list(exporting.FORMATS))
    if args.interactive:
        log(f"Writing the {args.page} page as a lesson file…")
        write(_lesson(args, state, trace, grid, train, label), f"{args.page}-lesson", None,
              "html")
    images = [f for f in formats if f in ("png", "svg")]
    if images:
        log(f"Writing {args.view} at rounds {', '.join(map(str, rounds))} "
            f"({', '.join(images)}, {args.width} px wide)…")
    for m in rounds:
        fig = exporting.view_figure(trace, args.view, m, grid, aspect=args.aspect,
                                    data_label=label, sample=args.sample, **names)
        for fmt in images:
            write(exporting.to_image(fig, fmt, args.width), args.view, m, fmt)
    plane = args.view in exporting.VIEWS  # a storyboard and an animation compose these
    if not plane and (images or "html" in formats):
        log(f"  left out: the storyboard and the animation, which are the model's, the "
            f"residuals' and the tree's; {args.view} is written at each round")
    if images and plane:
        board = exporting.storyboard(trace, args.view, rounds, grid, data_label=label, **names)
        for fmt in images:
            write(exporting.to_image(board, fmt, args.width), f"{args.view}-storyboard",
                  rounds, fmt)
    if "html" in formats and plane:
        log("Writing the animation…")
        write(exporting.animation_html(trace, args.view, None, grid, **names),
              f"{args.view}-animation", None, "html")
    return written


def _writer(out: Path, settings: Settings, name: str, log):
    """(write, written): ``write(content, view, which, ext)`` puts text or bytes in ``out``
    under the export's file name, says so, and keeps its path in the list ``written``."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def write(content, view, which, ext):
        path = out / settings.file_name(name, view, which, ext)
        if isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_bytes(content)
        log(f"  {path}")
        written.append(path)
    return write, written


def _export_sweep(args, state, name, label, log) -> list[Path]:
    """A sweep's files: at each round the cells' maps as one grid, the loss curves and
    with two settings the heat map (PNG, SVG), and with --interactive the Sweep page as
    a lesson file."""
    sweep = plan(replace(state, sweep=args.sweep or "", sweep2=args.sweep2 or ""))
    for note in sweep.notes:
        log(f"  left out: {note}")
    fits = []
    log(f"Fitting {len(sweep.cells)} cells of {state.rounds} rounds on {label}…")
    for cell in sweep.cells:
        own = argparse.Namespace(**{**vars(args), "n": cell.state.n,  # the data swept too
                                    "noise": cell.state.noise})
        train, valid, _, _ = _data(own) if sweep.own_data else _data(args)
        try:
            trace = fit(train.X, train.y, X_valid=None if valid is None else valid.X,
                        y_valid=None if valid is None else valid.y,
                        **cell.state.fit_params())
        except ValueError as error:
            raise ValueError(f"{cell.label}: " + _FLAGS.sub(
                lambda match: _FLAG[match.group(0)], str(error))) from None
        fits.append((trace, make_grid(trace, resolution=None if trace.X.shape[1] == 1
                                      else SWEEP_GRID), f"cell-{cell.row}-{cell.col}"))
    described = pages.describe_sweep(sweep.axes, sweep.cells, fits, state, key="sweep")
    rounds = (exporting.storyboard_rounds(state.rounds) if args.export_rounds is None
              else exporting.parse_rounds(args.export_rounds, state.rounds))
    settings = Settings.of(state.fit_params())
    swept = "-".join(axis.key for axis, _ in sweep.axes)
    write, written = _writer(args.out, settings, name, log)

    if args.interactive:
        log("Writing the sweep page as a lesson file…")
        write(interactive.lesson_html(fits[0][0], fits[0][1], state, {}, page="sweep",
                                      data_label=label, app_url=args.app_url,
                                      described=described),
              exporting.file_view("sweep-lesson", swept), None, "html")
    formats = [f for f in (args.formats if args.formats is not None else
                           ([] if args.interactive else ["png", "svg"])) if f in ("png", "svg")]
    # the Slides page's list: the heat map only where there is one (two settings)
    views = [view for view in exporting.SWEEP_VIEWS if view != "sweep-heat" or any(
        chart.view == "sweep_heat" for chart in described.charts)]
    for m in rounds:
        for view in views:
            fig = exporting.sweep_figure(view, sweep, sweep.cells, fits, state, m,
                                         data_label=label, aspect=args.aspect)
            for fmt in formats:
                write(exporting.to_image(fig, fmt, args.width),
                      exporting.file_view(view, swept), m, fmt)
    return written


def _export_compare(args, state, data, name, label, log) -> list[Path]:
    """The Compare page's views at each round (PNG, SVG): the two sides' models and the
    two fits' loss curves, as the Slides page makes them."""
    if state.is_regression and args.compare not in REGRESSION_PAIRS:
        raise ValueError(f"--compare {args.compare}: a regression compares "
                         f"{', '.join(REGRESSION_PAIRS)}.")
    state = replace(state, pair=args.compare)
    *sides, flip = state.compared()
    train, valid = data
    flipped = flip_labels(train, flip, seed=state.dseed) if flip else train
    fits = []
    log(f"Fitting the two sides ({COMPARISONS[args.compare][0]}) on {label}…")
    for side_name, side in sides:
        try:
            trace = fit(flipped.X, flipped.y, X_valid=None if valid is None else valid.X,
                        y_valid=None if valid is None else valid.y, **side.fit_params())
        except ValueError as error:
            raise ValueError(f"{side_name}: " + _FLAGS.sub(
                lambda match: _FLAG[match.group(0)], str(error))) from None
        fits.append((trace, make_grid(trace)))
    rounds = (exporting.storyboard_rounds(state.rounds) if args.export_rounds is None
              else exporting.parse_rounds(args.export_rounds, state.rounds))
    names = dict(feature_names=train.feature_names, classes=train.classes or None,
                 target_name=train.target_name)
    formats = [f for f in (args.formats or ["png", "svg"]) if f in ("png", "svg")]
    write, written = _writer(args.out, Settings.of(state.fit_params()), name, log)
    for m in rounds:
        for view in exporting.COMPARE_VIEWS:
            fig = exporting.compare_figure(
                view, fits, [side_name for side_name, _ in sides], m, data_label=label,
                marked=exporting.compare_marked(flip, train), names=names,
                aspect=args.aspect)
            for fmt in formats:
                write(exporting.to_image(fig, fmt, args.width),
                      exporting.file_view(view, args.compare), m, fmt)
    return written


def _state(args, train) -> State:
    """The app's State at the options' settings, as given: not parsed into the app's
    ranges, so that the engine checks the fit's values and names the wrong option.

    Raises
    ------
    ValueError
        For a fit option given that the split rule does not use.
    """
    split = args.split or BY_KEY["split"].default
    unused = [flag for key, flag in FIT_OPTIONS.items() if getattr(args, key) is not None
              and not applies(BY_KEY[key].param, ENGINE_SPLIT[split])]
    if unused:
        raise ValueError(f"{', '.join(unused)}: not used by --split {split}.")
    fit_values = {key: BY_KEY[key].default_for(split) if getattr(args, key) is None
                  else getattr(args, key) for key in FIT_OPTIONS}
    return State(data=UPLOAD if args.csv is not None else args.dataset, task=train.task,
                 n=args.n, noise=args.noise, balance=args.balance, dseed=args.dseed,
                 valid=args.valid, sample=args.sample, cls=args.cls or 0,
                 pk=args.cls is not None, present=args.present, **fit_values)


def _lesson(args, state, trace, grid, train, label) -> str:
    """The lesson file of ``args.page`` (:func:`explorer.export.interactive.lesson_html`)."""
    names = dict(feature_names=train.feature_names, classes=train.classes or ("0", "1"),
                 target_name=train.target_name)
    return interactive.lesson_html(trace, grid, state, names, page=args.page,
                                   data_label=label, app_url=args.app_url)


def warm() -> int:
    """Compile the engine part by part, a process per core, a line for each part in the
    terminal."""
    from .numbers.warmup import PARTS, compile_in_processes, cores, expected_seconds

    def report(k, n, part, seconds):
        print(f"  part {k} of {n}: {part.name} ({seconds:.1f} s)", file=sys.stderr, flush=True)

    workers = min(cores(), len(PARTS))
    print(f"Compiling the boosting engine into numba's cache in {len(PARTS)} parts on "
          f"{workers} {'core' if workers == 1 else 'cores'} (about "
          f"{expected_seconds(PARTS) / workers:.0f} s the first time, a few seconds after "
          "that)…", file=sys.stderr, flush=True)
    seconds = compile_in_processes(report, workers)
    print(f"The engine is ready ({seconds:.1f} s).", file=sys.stderr)
    return 0


def main(argv=None) -> int:
    """Run the command line; returns the exit status (argparse exits with 2 by itself)."""
    args = parser().parse_args(argv)
    if args.command == "warmup":
        return warm()
    try:
        export(args, log=lambda text: print(text, file=sys.stderr))
    except (DataError, ValueError, exporting.ExportError, OSError) as error:
        print(f"{PROG} export: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
