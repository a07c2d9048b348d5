"""The numba engine's Python side: builds the kernel's arrays, grows them, reads them out."""

from __future__ import annotations

import contextlib
import functools
import logging
import math
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numba
import numpy as np

from whatif.predictor import kernel as K
from whatif.predictor.apptrees import app_order_trees, grown_trees, submitted_next, trees_needed
from whatif.predictor.capacity import CapacityMonitor, PackedCapacity, capacity_settings
from whatif.predictor.kernel.caching import kernel_stamp
from whatif.predictor.pack import Packed, PackedQueues
from whatif.predictor.settings import SchedulerSettings

logger = logging.getLogger(__name__)


def kernel_cache_dir() -> Path:
    """Where numba caches the kernel, as numba chose for its entry point: the folder of
    ``NUMBA_CACHE_DIR`` if set, else the package's ``__pycache__`` if writable, else the
    user-wide cache."""
    return Path(K.advance._cache.cache_path)


def _warm_marker(folder: Path) -> Path:
    """The file in `folder` saying the kernel of these sources ran with this numba."""
    return folder / f"tempo-kernel-{kernel_stamp()[:20]}-numba-{numba.__version__}.warm"


def kernel_cache_is_warm(cache_dirs: tuple[Path, ...] | None = None) -> bool:
    """Whether numba's cache holds the kernel of these sources: a run of it marked the
    cache folder (`mark_kernel_warm`) for the sources' content (`kernel_stamp`, the stamp
    numba's own cache entries carry, so a file rewritten with the same bytes, as a
    reinstall or a checkout does, stays warm) and for this numba."""
    folders = cache_dirs if cache_dirs is not None else (kernel_cache_dir(),)
    return any(_warm_marker(folder).is_file() for folder in folders)


@functools.cache
def mark_kernel_warm() -> None:
    """Once per process, after the kernel ran (numba compiled it into its cache, or loaded
    it from there): mark the cache folder warm for these sources, dropping the marks of
    earlier ones. A folder that cannot be written stays cold (numba cannot cache there)."""
    folder = kernel_cache_dir()
    marker = _warm_marker(folder)
    try:
        for old in folder.glob("tempo-kernel-*.warm"):
            if old != marker:
                old.unlink(missing_ok=True)
        marker.touch()
    except OSError as error:
        logger.debug("cannot mark the kernel cache %s warm: %s", folder, error)


#: The most tasks `choose_engine` gives the reference engine while the kernel is not
#: compiled: it replays the bundled samples (6-7k tasks) in 2-4 s of CPU and 35k tasks in
#: about 30 s, where compiling takes a minute or two.
AUTO_REFERENCE_TASKS = 20_000


def choose_engine(engine: str, n_tasks: int, *, warm: bool | None = None) -> str:
    """`engine`, or for ``"auto"``: ``"numba"`` once its kernel is compiled (`warm`: whether
    it is, by default `kernel_cache_is_warm`) or for more than `AUTO_REFERENCE_TASKS` tasks
    (which compiles it), else ``"reference"``, whose schedules are the same (the tests
    compare the two) and which needs no compilation. Says which on stderr (a log record)
    when it picks the reference engine, so that a first run does not look slow or stalled
    later."""
    if engine != "auto":
        return engine
    if warm is None:
        warm = kernel_cache_is_warm()
    if warm or n_tasks > AUTO_REFERENCE_TASKS:
        return "numba"
    logger.warning(
        "the predictor's numba kernel is not compiled yet: the reference engine replays "
        "these %d tasks (the same schedule; --engine numba compiles the kernel, a minute or "
        "two, once)",
        n_tasks,
    )
    return "reference"


@functools.cache
def announce_compilation() -> None:
    """Once per process: say on stderr (a warning) that the first simulation compiles the
    kernel, so a first run after an install does not look stalled."""
    if not kernel_cache_is_warm():
        logger.warning(
            "compiling the predictor's numba kernel: a minute or two, once after an install "
            "or upgrade; later runs load it from the cache"
        )


@contextlib.contextmanager
def _small_pages() -> Iterator[None]:
    """Arrays allocated inside come without numpy's transparent-huge-page advice.

    The attempt arrays are first written during the run. With the advice, the first write
    to each 2 MiB of them makes the kernel find and zero a huge page, often compacting
    memory to get one: about a sixth of the CPU time of a process's first 1M-task
    simulation on the development machine, against next to nothing with ordinary pages
    (the simulation itself is as fast). numpy's setting is process-wide, so it is
    restored on the way out."""
    core = getattr(np, "_core", None) or np.core
    advise = getattr(core.multiarray, "_set_madvise_hugepage", None)
    if advise is None:
        yield
        return
    previous = advise(False)
    try:
        yield
    finally:
        advise(previous)


def _columns(count: int, width: int, dtype: type, values: dict[int, Any]) -> np.ndarray:
    """A (count, width) kernel array of zeros with the given columns set."""
    out: np.ndarray = np.zeros((count, width), dtype=dtype)
    for column, column_values in values.items():
        out[:, column] = column_values
    return out


def queue_static(pq: PackedQueues) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(qs, qsf, children) kernel arrays for a queue tree."""
    nq = len(pq.parent)
    size = np.ones(nq, dtype=np.int64)
    for q in range(nq - 1, 0, -1):
        size[pq.parent[q]] += size[q]
    fair_positive = [
        pq.policy[q] == 0 and bool((pq.weight[pq.children[lo:hi]] > 0.0).all())
        for q, (lo, hi) in enumerate(zip(pq.child_ptr[:-1], pq.child_ptr[1:], strict=True))
    ]
    qs = _columns(nq, K.N_QS, np.int64, {
        K.QS_PARENT: pq.parent, K.QS_LEAF: pq.is_leaf, K.QS_POLICY: pq.policy,
        K.QS_MAX_APPS: pq.max_apps, K.QS_PREEMPTABLE: pq.preemptable,
        K.QS_RANK: pq.name_rank, K.QS_CH_LO: pq.child_ptr[:-1], K.QS_CH_HI: pq.child_ptr[1:],
        K.QS_SIZE: size, K.QS_FAIR_POSITIVE: fair_positive,
    })  # fmt: skip
    qsf = np.zeros((nq, K.N_QSF))
    qsf[:, K.QSF_WEIGHT] = pq.weight
    qsf[:, K.QSF_MIN : K.QSF_MIN + 2] = pq.min_share
    qsf[:, K.QSF_MAX : K.QSF_MAX + 2] = pq.max_share
    qsf[:, K.QSF_AMSHARE] = pq.max_am_share
    qsf[:, K.QSF_MIN_TO] = pq.min_timeout
    qsf[:, K.QSF_FAIR_TO] = pq.fair_timeout
    qsf[:, K.QSF_THRESH] = pq.fair_threshold
    if pq.capacity is not None:
        c = pq.capacity
        qsf[:, K.QSF_CS_GUAR] = c.guarantee_mb
        qsf[:, K.QSF_CS_ABS] = c.absolute
        qsf[:, K.QSF_CS_ULF] = c.user_limit_factor
        qsf[:, K.QSF_CS_MULP] = c.user_limit_percent
        qsf[:, K.QSF_CS_AM] = c.am_percent
        qsf[:, K.QSF_CS_APPS] = c.max_apps
        qsf[:, K.QSF_CS_UAPPS] = c.max_apps_per_user
        qsf[:, K.QSF_CS_NOPREEMPT] = c.no_preemption
        qsf[:, K.QSF_CS_PRIO] = c.priority
        qsf[:, K.QSF_CS_SIZEW] = c.size_based_weight
    children = pq.children if len(pq.children) else np.zeros(1, dtype=np.int64)
    return qs, qsf, np.ascontiguousarray(children, dtype=np.int64)


def _config(p: Packed, settings: SchedulerSettings) -> np.ndarray:
    """The kernel's settings vector (``cfg``)."""
    nn = len(p.node_capacity)
    cfg = np.zeros(K.N_CFG)
    cfg[K.C_LAT] = settings.container_launch_latency_s
    cfg[K.C_AM_LAT] = settings.am_start_latency_s
    cfg[K.C_SLOWSTART] = settings.slowstart_completed_maps
    cfg[K.C_UTIL] = settings.utilization_threshold
    cfg[K.C_WAIT_KILL] = settings.wait_time_before_kill_s
    cfg[K.C_RECHECK] = settings.starvation_recheck_delay_s
    cfg[K.C_INTERVAL] = settings.preemption_interval_s
    cfg[K.C_VERSION] = settings.hadoop_version
    cfg[K.C_PREEMPT] = float(settings.preemption)
    cfg[K.C_SIZEBASED] = float(settings.size_based_weight)
    cfg[K.C_SLOT] = float(p.slot_mode)
    asks_memory = (p.task_req[:, 0] > 0).all() and (p.job_am[p.job_has_am == 1, 0] > 0).all()
    cfg[K.C_ANY_IS_0] = float(not p.slot_mode and asks_memory)
    cfg[K.C_UPDATE] = settings.update_interval_s
    cfg[K.C_HB] = float(nn > 0)
    cfg[K.C_HB_INTERVAL] = p.heartbeat_interval_s
    assert settings.assign_multiple is not None  # resolved when settings are built
    cfg[K.C_MULTI] = float(settings.assign_multiple)
    cfg[K.C_MAX_ASSIGN] = settings.max_assign
    cfg[K.C_DYNAMIC] = float(settings.dynamic_max_assign and settings.hadoop_version == 3)
    cfg[K.C_CAP_MAPS] = settings.assign_multiple_maps
    cfg[K.C_CAP_REDS] = settings.assign_multiple_reduces
    cfg[K.C_CONT] = float(settings.continuous_scheduling and nn > 0 and not p.slot_mode)
    cfg[K.C_CONT_SLEEP] = settings.continuous_scheduling_sleep_s
    cfg[K.C_AM_HB] = settings.am_heartbeat_interval_s
    v1_slots = p.slot_mode and settings.hadoop_version == 1
    cfg[K.C_TC] = settings.task_cleanup_s if v1_slots else 0.0
    cfg[K.C_LOC] = float(p.locality is not None)
    cfg[K.C_LOC_DELAY] = p.locality.delay_s if p.locality is not None else 0.0
    cfg[K.C_CS] = float(p.queues.capacity is not None)
    cfg[K.C_CS_MINALLOC] = settings.min_allocation_mb
    cfg[K.C_CS_NODES] = nn
    fair = settings.fair_locality
    if fair is not None and p.locality is not None and p.queues.capacity is None:
        cfg[K.C_FLOC] = 1.0
        cfg[K.C_FLOC_NODE], cfg[K.C_FLOC_RACK] = fair
        cfg[K.C_FLOC_NODES] = nn
    if p.queues.capacity is not None:
        _capacity_config(cfg, p.queues.capacity)
    _reservation_config(cfg, p, settings)
    cfg[K.C_HANG] = _hang_delay(p, settings)
    cfg[K.C_PDELAY] = (
        0.0 if settings.hadoop_version == 1 else max(settings.reducer_preempt_delay_s, 0.0)
    )
    cfg[K.C_RAMP] = settings.reduce_rampup_limit
    return cfg


def _hang_delay(p: Packed, settings: SchedulerSettings) -> float:
    """The MapReduce AM's unconditional reduce preemption delay (`phases._hang_due`; -1:
    off): MRv2 under either scheduler, as the AM's rule does not ask which one the RM
    runs. (It was off under the Capacity Scheduler for a property case thought to cycle
    with the preemption monitor: that case crashed the reference engine, which counted
    the unlimited vcores of the DefaultResourceCalculator, and the scenarios that loop
    do so with the rule off too: the monitor's own, see docs/predictor.md.)"""
    if settings.hadoop_version == 1:
        return -1.0
    return settings.reducer_unconditional_preempt_delay_s


def _reservation_config(cfg: np.ndarray, p: Packed, settings: SchedulerSettings) -> None:
    """Fair Scheduler node reservations (``kernel/reservations.py``, `Packed.reservations`)."""
    r = p.reservations(settings)
    cfg[K.C_RES] = float(r.on)
    cfg[K.C_RES_THR] = r.threshold[0]
    cfg[K.C_RES_THR + 1] = r.threshold[1]
    cfg[K.C_RES_CAP] = r.cap
    cfg[K.C_RES_RATIO] = r.ratio
    # a bound on every request (`allocation._res_best`): no request exceeds a node's free
    # resources that reach it
    asks = np.concatenate([p.task_req, p.job_am]).reshape(-1, 2)
    cfg[K.C_REQ_MAX : K.C_REQ_MAX + 2] = asks.max(axis=0) if len(asks) else np.inf


def _capacity_config(cfg: np.ndarray, capacity: PackedCapacity) -> None:
    """The Capacity Scheduler's settings in ``cfg`` that a new configuration changes: the
    monitor's, the off-switch cap and the locality delays."""
    _monitor_config(cfg, capacity.monitor)
    cfg[K.C_CS_OFFSWITCH] = capacity.offswitch
    cfg[K.C_CS_NLD] = capacity.node_locality_delay
    cfg[K.C_CS_RLAD] = capacity.rack_locality_additional_delay
    cfg[K.C_CS_RESET] = float(capacity.rack_locality_full_reset)


def _monitor_config(cfg: np.ndarray, mon: CapacityMonitor) -> None:
    """The Capacity Scheduler preemption monitor's settings in ``cfg``."""
    cfg[K.C_CS_INTERVAL] = mon.monitoring_interval_ms / 1000.0
    cfg[K.C_CS_INTERVAL_MS] = mon.monitoring_interval_ms
    cfg[K.C_CS_WAIT_MS] = mon.max_wait_before_kill_ms
    cfg[K.C_CS_ROUND] = float(np.float32(mon.total_preemption_per_round))  # a Java float
    cfg[K.C_CS_IGNORED] = mon.max_ignored_over_capacity
    cfg[K.C_CS_NATURAL] = mon.natural_termination_factor


def _locality_arrays(p: Packed) -> dict[str, np.ndarray]:
    """Hadoop 1 delay scheduling (``kernel/locality.py``): location groups with their
    cursors, their tasks, the task flags, the visited/skipped jobs and the nodes' racks;
    one unused row each without locality."""
    nj, nn = len(p.job_submit), len(p.node_capacity)
    loc = p.locality
    lvis = np.zeros((max(nj, 1), 2), dtype=np.int64)
    if loc is None:
        return {
            "lg": np.zeros((1, K.N_LG), dtype=np.int64), "lt": np.zeros(1, dtype=np.int32),
            "tfl": np.zeros(1, dtype=np.int8), "lvis": lvis,
            "nrack": np.zeros(max(nn, 1), dtype=np.int64),
        }  # fmt: skip
    lg = np.zeros((max(len(loc.groups), 1), K.N_LG), dtype=np.int64)
    lg[: len(loc.groups), [K.LG_KEY, K.LG_LO, K.LG_HI]] = loc.groups
    lg[: len(loc.groups), K.LG_CUR] = loc.groups[:, 1]
    return {
        "lg": lg, "lt": np.append(loc.tasks, np.int32(0)),
        "tfl": (loc.task_located * K.TF_LOCATED).astype(np.int8), "lvis": lvis,
        "nrack": loc.node_rack.copy(),
    }  # fmt: skip


def _node_arrays(p: Packed) -> dict[str, np.ndarray]:
    """``nodef``, ``nodei``, ``nlist``: one unused row without heartbeats (the kernel reads
    no row then); every node starts parked (room, no heartbeat scheduled)."""
    nn = len(p.node_capacity)
    nodef = np.zeros((max(nn, 1), K.N_NF))
    nodef[:nn, K.NF_FREE : K.NF_FREE + 2] = p.node_capacity
    nodef[:nn, K.NF_CAP : K.NF_CAP + 2] = p.node_capacity
    nodef[:, K.NF_HB] = np.inf
    nodef[:, K.NF_GRID] = -np.inf
    nodei = np.full((max(nn, 1), K.N_NI), -1, dtype=np.int64)
    nlist = np.zeros(4 * max(nn, 1), dtype=np.int64)
    nodei[:nn, K.NI_PARK] = np.arange(nn)
    nodei[:, K.NI_IN_CLN] = 0
    nlist[2 * max(nn, 1) : 2 * max(nn, 1) + nn] = np.arange(nn)
    return {"nodef": nodef, "nodei": nodei, "nlist": nlist}


def _job_arrays(p: Packed) -> dict[str, np.ndarray]:
    """Static and live job arrays (int32 rows: indices, states, counts and stamps, -13 B a
    column a job), users' limits and the per-job scratch arrays."""
    nj = len(p.job_submit)
    js = _columns(nj, K.N_JS, np.int32, {
        K.JS_QUEUE: p.job_queue, K.JS_USER: p.job_user, K.JS_RANK: p.job_rank,
        K.JS_HAS_AM: p.job_has_am, K.JS_ST_LO: p.job_stage_ptr[:-1],
        K.JS_ST_HI: p.job_stage_ptr[1:],
    })  # fmt: skip
    js[np.lexsort((p.job_rank, p.job_submit)), K.JS_ORDER] = np.arange(nj)
    jsf = np.zeros((nj, K.N_JSF))
    jsf[:, K.JSF_SUBMIT] = p.job_submit
    jsf[:, K.JSF_AM : K.JSF_AM + 2] = p.job_am
    jsf[:, K.JSF_CS_UW] = p.job_user_weight
    jf = np.zeros((nj, K.N_JF))
    jf[:, K.JF_FINISH] = np.nan
    jf[:, K.JF_HANG_NEXT] = -np.inf
    jf[:, K.JF_RD_CALL] = -np.inf
    ji = np.full((nj, K.N_JI), -1, dtype=np.int32)
    zero = [K.JI_STATE, K.JI_AM_STATE, K.JI_STAGES_DONE, K.JI_TRIED, K.JI_STARVED]
    zero += [K.JI_CONS_EPOCH, K.JI_IN_RED, K.JI_TOUCHED, K.JI_IN_RC, K.JI_RED_SEQ]
    zero += [K.JI_CLAIMS, K.JI_IN_JT, K.JI_ASKING, K.JI_LOC_LEVEL, K.JI_TC, K.JI_TC + 1]
    zero += [K.JI_RES, K.JI_IN_RAMP, K.JI_IN_RA, K.JI_IN_BIG, K.JI_IN_RCS]
    ji[:, zero] = 0
    umax = p.user_max_apps.astype(np.int64).copy()
    return {
        "js": js, "jsf": jsf, "jf": jf, "ji": ji, "umax": umax,
        "urun": np.zeros(len(umax), dtype=np.int64),
        "jbuf": np.zeros((max(nj, 1), 4), dtype=np.int64),
        "excl": np.zeros(max(nj, 1), dtype=np.int64),
        "touched": np.zeros(max(nj, 1), dtype=np.int64),
        "hold": np.zeros((max(nj, 1), 2), dtype=np.int64), "holdv": np.zeros((max(nj, 1), 3)),
    }  # fmt: skip


def _stage_arrays(p: Packed) -> dict[str, np.ndarray]:
    """Static stage rows, their request sums, live stage state (int32 rows: task and
    attempt indices, counts, priorities) and completion times."""
    ns = len(p.stage_task_start)
    ss = _columns(ns, K.N_SS, np.int32, {
        K.SS_LO: p.stage_task_start, K.SS_HI: p.stage_task_end, K.SS_PRIO: p.stage_priority,
        K.SS_SLOW: p.stage_slowstart, K.SS_DIM: p.stage_dim, K.SS_JT: p.stage_jobtracker,
        K.SS_RR: p.stage_replay_row, K.SS_RETRY: p.stage_retry_rule,
    })  # fmt: skip
    si = np.zeros((ns, K.N_SI), dtype=np.int32)
    if p.locality is not None:
        loc = p.locality
        ss[:, K.SS_LOC] = loc.stage_located
        ss[:, K.SS_LG_LO : K.SS_LG_HI + 1] = loc.stage_groups
        ss[:, K.SS_LOC_ASKS] = loc.stage_asks
        unlocated = np.add.reduceat(1 - loc.task_located, p.stage_task_start) if ns else si[:, 0]
        si[:, K.SI_NONLOC] = np.where(loc.stage_located == 1, unlocated, 0)
    ssf = np.zeros((max(ns, 1), K.N_SSF))
    if ns:
        ssf[:ns, K.SSF_SUM : K.SSF_SUM + 2] = np.add.reduceat(
            p.task_req, p.stage_task_start, axis=0
        )
        ssf[:ns, K.SSF_MAX : K.SSF_MAX + 2] = np.maximum.reduceat(
            p.task_req, p.stage_task_start, axis=0
        )
    si[:, K.SI_NEXT] = p.stage_task_start
    si[:, [K.SI_RETRY_HEAD, K.SI_RETRY_TAIL, K.SI_DEF_HEAD, K.SI_DEF_TAIL, K.SI_ASKED]] = -1
    si[:, K.SI_FLOC_LEVEL] = -1
    return {"ss": ss, "ssf": ssf, "si": si, "sdone": np.full(ns, np.nan)}


def _task_arrays(p: Packed) -> dict[str, np.ndarray]:
    """Static task rows (int32: task, stage and retry indices and failure counts, -200 MB at
    10M tasks), the reduces' replay rows (`Packed.replay`; one unused row without) and live
    task state."""
    nt = len(p.task_dur)
    ts = _columns(nt, K.N_TS, np.int32, {
        K.TS_JOB: p.task_job, K.TS_STAGE: p.task_stage, K.TS_FAILS: p.task_fail_count
    })  # fmt: skip
    tsf = np.zeros((nt, K.N_TSF))
    tsf[:, K.TSF_REQ : K.TSF_REQ + 2] = p.task_req
    tsf[:, K.TSF_DUR] = p.task_dur
    tsf[:, K.TSF_FRAC] = p.task_fail_frac
    rsf = np.zeros((max(len(p.replay), 1), 3))
    rsf[: len(p.replay)] = p.replay
    ti = np.zeros((nt, K.N_TI), dtype=np.int32)
    ti[:, K.TI_RETRY_NEXT] = -1
    ti[:, K.TI_FAILED_ON] = -1
    return {"ts": ts, "tsf": tsf, "rsf": rsf, "ti": ti}


def _aligned_zeros(rows: int, cols: int, first: int) -> np.ndarray:
    """An int64 (rows, cols) array of zeros whose row `first` starts a 64-byte cache line."""
    buf = np.zeros(rows * cols + 8, dtype=np.int64)
    skip = (-(buf.ctypes.data + 8 * cols * first) % 64) // 8
    return buf[skip : skip + rows * cols].reshape(rows, cols)


def heap_arrays(hcap: int) -> dict[str, np.ndarray]:
    """The event heap's keys and payloads for `hcap` events (`kernel.events`): row 1 of
    each starts a cache line, so that each node's four children (rows 4i + 1 to 4i + 4)
    have their keys (16 bytes each) in one line and their payloads (32 bytes) in two."""
    return {"hk": _aligned_zeros(hcap, 2, 1), "hi": _aligned_zeros(hcap, K.N_HI, 1)}


def _attempt_arrays(cap: int, lcap: int, hcap: int) -> dict[str, np.ndarray]:
    """Records of `cap` attempts (int32 task, state, preempted and live row; float64
    start and finish), rows for `lcap` live ones (`kernel.live_rows`: row 0 stands for
    every ended attempt) and `hcap` events."""
    with _small_pages():
        return {
            "af": np.zeros((cap, K.N_AF)),
            "ai": np.zeros((cap, K.N_AI), dtype=np.int32),
            "lf": np.zeros((lcap, K.N_LF)),
            "li": np.zeros((lcap, K.N_LI), dtype=np.int32),
            "lfree": np.zeros(lcap, dtype=np.int64),
            **heap_arrays(hcap),
            "warned": np.zeros(cap, dtype=np.int64),
            "vict": np.zeros(cap, dtype=np.int64),
            "cand": np.zeros(cap, dtype=np.int64),
            "unmarked": np.zeros(cap // 64 + 1, dtype=np.uint64),
            "clf": np.zeros((cap, 2)),
            "cli": np.zeros((cap, K.N_CLI), dtype=np.int64),
        }


def _global_arrays(p: Packed, cluster: np.ndarray) -> dict[str, np.ndarray]:
    """The clock and global counters and list heads (``gf``, ``gi``), and the cluster."""
    gf = np.zeros(K.N_GF)
    gf[[K.G_NEXT_CHECK, K.G_NEXT_V12, K.G_CONT, K.G_RAMP_DUE]] = np.inf
    gf[K.G_LAST_T] = -np.inf
    gf[K.G_LOC_LAST] = -np.inf
    gf[K.G_CS_LAST] = -np.inf
    gf[K.G_RAMP_LAST] = -np.inf
    gf[K.G_FREE : K.G_FREE + 2] = cluster
    gi = np.zeros(K.N_GI, dtype=np.int64)
    heads = [K.GI_RUN_HEAD, K.GI_RUN_TAIL, K.GI_WAIT_HEAD, K.GI_WAIT_TAIL, K.GI_RED_HEAD]
    heads += [K.GI_RED_TAIL, K.GI_RC_HEAD, K.GI_RC_TAIL, K.GI_JT_HEAD, K.GI_JT_TAIL]
    heads += [K.GI_RAMP_HEAD, K.GI_RAMP_TAIL, K.GI_RA_HEAD, K.GI_RA_TAIL]
    heads += [K.GI_REST_HEAD, K.GI_REST_TAIL, K.GI_CLN_HEAD, K.GI_CLN_TAIL]
    heads += [K.GI_RCL_HEAD, K.GI_RCL_TAIL]
    # as the reference engine: no progress seen at a check yet
    gi[heads + [K.GI_SEEN_PROG]] = -1
    gi[K.GI_DIRTY] = 1
    gi[K.GI_CUR_NODE] = -1
    gi[K.GI_PARK_N] = len(p.node_capacity)
    gi[K.GI_LIVE_TOP] = 1  # live row 0 is every ended attempt's (`kernel.live_rows`)
    return {
        "gf": gf, "gi": gi, "cluster": cluster, "minreq": p.min_request.astype(float).copy()
    }  # fmt: skip


class CompiledEngine:
    """A simulation in progress, its state held in the kernel's arrays."""

    def __init__(self, packed: Packed, settings: SchedulerSettings) -> None:
        announce_compilation()
        p = packed
        self.p = p
        if p.queues.capacity is not None:
            settings = capacity_settings(settings, p.queues.capacity)
        nj, nt = len(p.job_submit), len(p.task_dur)
        nn = len(p.node_capacity)
        cluster = p.cluster.astype(float).copy()
        if p.slot_mode:
            concurrent = cluster.sum()
        else:
            concurrent = min(
                cluster[0] / max(p.min_request[0], 1e-9), cluster[1] / max(p.min_request[1], 1e-9)
            )
        self.att_room = int(min(math.floor(concurrent), nt + nj)) + 2
        # Attempt rows: every task, AM and failed attempt, plus a quarter for preempted ones.
        # Rows are zero pages until used, so the headroom costs address space, not memory,
        # and usually spares `_grow` (which doubles, and copies every row).
        cap = int(nt + nj + p.task_fail_count.sum() + self.att_room + 16 + (nt + nj) // 4)
        self.state = {
            "cfg": _config(p, settings),
            **_node_arrays(p),
            **_job_arrays(p),
            **_stage_arrays(p),
            **_task_arrays(p),
            **_attempt_arrays(cap, 2 * self.att_room + 16, 2 * cap + nj + nn + 16),
            **_global_arrays(p, cluster),
            **_locality_arrays(p),
        }
        self._install_queues(p.queues)
        # The packed task columns are held once: as views of the kernel's static task arrays
        # (the kernel never writes ts or tsf).
        ts, tsf, rsf = self.state["ts"], self.state["tsf"], self.state["rsf"]
        self.p = replace(
            p,
            task_job=ts[:, K.TS_JOB],
            task_stage=ts[:, K.TS_STAGE],
            task_fail_count=ts[:, K.TS_FAILS],
            task_req=tsf[:, K.TSF_REQ : K.TSF_REQ + 2],
            task_dur=tsf[:, K.TSF_DUR],
            replay=rsf[: len(p.replay)],
            task_fail_frac=tsf[:, K.TSF_FRAC],
        )

    @property
    def now(self) -> float:
        return float(self.state["gf"][K.G_NOW])

    def _install_queues(self, pq: PackedQueues) -> None:
        """Queue arrays for a tree, with usage and app lists rebuilt from the jobs' state."""
        st = self.state
        qs, qsf, children = queue_static(pq)
        nq = len(pq.parent)
        qf = np.zeros((nq, K.N_QF))
        qf[:, K.QF_LMIN : K.QF_LMIN + 2] = -np.inf
        qf[:, K.QF_LFAIR : K.QF_LFAIR + 2] = -np.inf
        qf[:, K.QF_RAMP_H : K.QF_RAMP_H + 2] = np.inf
        qf[:, K.QF_RAMP_LO : K.QF_RAMP_LO + 2] = -np.inf
        qi = np.zeros((nq, K.N_QI), dtype=np.int64)
        qi[:, K.QI_APP_HEAD] = -1
        qi[:, K.QI_APP_TAIL] = -1
        qi[:, [K.QI_BIG_HEAD, K.QI_BIG_TAIL, K.QI_RCS_HEAD, K.QI_RCS_TAIL]] = -1
        qi[:, K.QI_DIRTY] = 1
        st["js"][:, K.JS_QUEUE] = self.p.job_queue
        st["tree"], st["slots"], st["tnode"] = app_order_trees(
            self.p.job_queue, st["ji"][:, K.JI_STATE], qi
        )
        st["ji"][:, K.JI_POS] = -1
        st["ji"][:, K.JI_TOUCHED] = 0
        st["ji"][:, K.JI_IN_BIG] = 0
        st["gi"][K.GI_TOUCHED_N] = 0
        st.update(qs=qs, qsf=qsf, children=children, qf=qf, qi=qi, dem=np.zeros((nq, 2)))
        st["umax"][:] = self.p.user_max_apps
        st["gi"][K.GI_DIRTY] = 1
        st["gi"][K.GI_LIVELOCK] = 0  # a new tree may break a Hadoop 1/2 livelock
        st["gi"][K.GI_SEEN_SET] = 0
        st["gi"][K.GI_SEEN_PROG] = -1
        st["jf"][:, K.JF_LFAIR] = -np.inf
        st["urun"][:] = 0
        K.rebuild_queue_state(self._world())

    def _world(self) -> tuple[Any, ...]:
        s = self.state
        return (
            s["qs"], s["qsf"], s["children"], s["qf"], s["qi"], s["dem"], s["js"], s["jsf"],
            s["jf"], s["ji"], s["umax"], s["urun"], s["ss"], s["ssf"], s["si"], s["sdone"],
            s["ts"], s["tsf"], s["ti"], s["af"], s["ai"], s["hk"], s["hi"], s["gf"], s["gi"],
            s["cfg"], s["cluster"], s["minreq"], s["warned"], s["vict"], s["jbuf"],
            s["tree"], s["excl"], s["touched"], s["tnode"], s["cand"], s["slots"],
            s["hold"], s["holdv"], s["unmarked"], s["nodef"], s["nodei"], s["nlist"],
            s["clf"], s["cli"], s["lg"], s["lt"], s["tfl"], s["lvis"], s["nrack"], s["rsf"],
            s["li"], s["lf"], s["lfree"],
        )  # fmt: skip

    def _grow(self) -> None:
        """Double the attempt, live-row and heap arrays (the kernel asked for room)."""
        s = self.state
        with _small_pages():
            heap = heap_arrays(2 * s["hk"].shape[0])
        names = ("af", "ai", "lf", "li", "lfree", "hk", "hi", "warned", "vict", "cand")
        for name in (*names, "unmarked", "clf", "cli"):
            old = s[name]
            if name in heap:
                new = heap[name]
            else:
                with _small_pages():
                    new = np.zeros((old.shape[0] * 2,) + old.shape[1:], dtype=old.dtype)
            new[: old.shape[0]] = old
            s[name] = new

    def _grow_trees(self) -> None:
        """Grow the app order trees of the leaves the next submissions go to (the kernel
        asked: `kernel._trees_fit`)."""
        s = self.state
        jobs = submitted_next(s["js"], s["jsf"], s["gi"])
        need = trees_needed(s["qi"], s["js"], jobs)
        s["tree"], s["tnode"], s["slots"] = grown_trees(
            s["qi"], s["tree"], s["tnode"], s["slots"], need
        )

    def advance_to(self, t_stop: float) -> None:
        while (asked := K.advance(self._world(), float(t_stop), self.att_room)) != 0:
            if asked == 1:
                self._grow()
            else:
                self._grow_trees()
        mark_kernel_warm()

    def reconfigure(self, packed: Packed) -> None:
        self.p = packed
        self._install_queues(packed.queues)
        # the asleep ramping jobs' leaves and headroom bounds may change: the next ramp-up
        # walks them all, keeping the leaves' bounds anew (`phases._ramp_reduces`)
        self.state["qf"][:, K.QF_RAMP_H : K.QF_RAMP_H + 2] = -np.inf
        K.promote_waiting(self._world())
        self.state["gi"][K.GI_CHANGED] = 1  # new limits may let parked nodes assign
        cfg = self.state["cfg"]
        if packed.queues.capacity is not None:
            _capacity_config(cfg, packed.queues.capacity)
        # Hadoop 3 checks starvation at the next update(); Hadoop 1/2 decide on their grid
        if cfg[K.C_CS] != 0.0:  # the monitor's next round
            next_check = K._grid_at_or_after(self.now, cfg[K.C_CS_INTERVAL])
        elif cfg[K.C_VERSION] == 3.0:
            next_check = K._grid_at_or_after(self.now, cfg[K.C_UPDATE])
        else:
            next_check = self.now
        self.state["gf"][K.G_NEXT_CHECK] = next_check
        self.state["gf"][K.G_NEXT_V12] = np.inf

    def queue_table(self) -> tuple[np.ndarray, ...]:
        qf, qi = self.state["qf"], self.state["qi"]
        return (
            qf[:, K.QF_USE : K.QF_USE + 2].copy(),
            qf[:, K.QF_PALL : K.QF_PALL + 2].copy(),
            qf[:, K.QF_FAIR : K.QF_FAIR + 2].copy(),
            qi[:, K.QI_RUNNABLE].copy(),
        )

    def records(self) -> tuple[np.ndarray, ...]:
        s = self.state
        n = int(s["gi"][K.GI_N_ATT])
        return (
            s["ai"][:n, K.AI_TASK].copy(),
            s["af"][:n, K.AF_START].copy(),
            s["af"][:n, K.AF_FINISH].copy(),
            s["ai"][:n, K.AI_STATE].copy(),
            s["ai"][:n, K.AI_PREEMPTED].astype(bool),
            s["jf"][:, K.JF_FINISH].copy(),
        )

    def take_records(self) -> tuple[np.ndarray, ...]:
        """`records()`, freeing the engine's arrays on the way (the engine is unusable after).

        Every other array goes first, and each attempt column is copied out before its array
        goes, so the copies never sit on top of the simulation's peak. The task arrays that `p` views stay until `p` goes.
        """
        s = self.state
        n = int(s["gi"][K.GI_N_ATT])
        job_finish = s["jf"][:, K.JF_FINISH].copy()
        af, ai = s["af"], s["ai"]
        s.clear()
        start = af[:n, K.AF_START].copy()
        finish = af[:n, K.AF_FINISH].copy()
        del af
        task = ai[:n, K.AI_TASK].copy()
        state = ai[:n, K.AI_STATE].astype(np.int8)
        preempted = ai[:n, K.AI_PREEMPTED].astype(bool)
        del ai
        return task, start, finish, state, preempted, job_finish
