"""Where points run: threads of this process (the engine releases the GIL), or Ray tasks."""

import os
import sys

from . import _native


def _bar(total, progress, desc):
    """A tqdm progress bar on stderr (shown when ``progress`` is true, or by default on a
    terminal); ``None`` when hidden or tqdm is absent."""
    show = sys.stderr.isatty() if progress is None else bool(progress)
    if not show:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=desc, unit="point", file=sys.stderr)


def map_points(fn, args, backend, progress=None, desc="points", threads=0, ray_address=None):
    """``[fn(*a) for a in args]``, run in parallel on ``backend`` ("local" or "ray"), in
    ``args``' order whatever order they finish in."""
    bar = _bar(len(args), progress, desc)
    try:
        if backend == "local":
            return _local(fn, args, bar, threads)
        if backend == "ray":
            return _ray(fn, args, bar, ray_address)
        raise _native.ConfigError(f"backend: {backend!r}; expected 'local' or 'ray'")
    finally:
        if bar is not None:
            bar.close()


def _local(fn, args, bar, threads):
    from concurrent.futures import ThreadPoolExecutor, as_completed

    workers = threads or os.cpu_count() or 1
    pool = ThreadPoolExecutor(max_workers=workers)
    futures = {pool.submit(fn, *a): i for i, a in enumerate(args)}
    out = [None] * len(args)
    try:
        for f in as_completed(futures):
            out[futures[f]] = f.result()
            if bar is not None:
                bar.update(1)
    except BaseException:
        # Ctrl-C (or a failed point): stop the running simulations and drop the rest.
        for f in futures:
            f.cancel()
        _native.interrupt()
        pool.shutdown(wait=True)
        _native.clear_interrupt()
        raise
    pool.shutdown(wait=True)
    return out


def _ray(fn, args, bar, ray_address):
    try:
        import ray
    except ImportError as e:
        raise _native.SsdlabError("backend 'ray': ray is not installed; expected `pip install ray`") from e
    if not ray.is_initialized():
        ray.init(address=ray_address, log_to_driver=False, include_dashboard=False)
    task = ray.remote(num_cpus=1)(fn)
    refs = [task.remote(*a) for a in args]
    index = {r: i for i, r in enumerate(refs)}
    out = [None] * len(args)
    pending = list(refs)
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for r in done:
                out[index[r]] = ray.get(r)
                if bar is not None:
                    bar.update(1)
    except BaseException:
        for r in pending:
            ray.cancel(r, force=True)
        raise
    return out
