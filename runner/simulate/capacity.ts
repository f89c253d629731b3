/**
 * Capacity search (`attnscope simulate --max-rate`): the highest arrival rate whose requests
 * meet the SLO, found by bisection over a load multiplier — a workload's Poisson arrival_rate
 * times it, or a trace's arrival times divided by it (simulatePool's rateScale). A rate passes
 * when at least `attainment` of all requests meet every SLO bound (rejected ones miss it).
 *
 * Walk: from scale 1, double while passing (or halve while failing) to bracket the boundary,
 * then bisect geometrically until hi / lo − 1 < tolerance. The answer is the highest passing
 * rate tried: the true boundary lies in [answer, answer · (1 + tolerance)). Every rate tried is
 * kept (the curve: rate vs p99 TTFT, p99 TPOT). It assumes attainment falls as the load rises
 * (true of a queue; a finite trace replayed faster can break it slightly, which the curve shows).
 * All figures are modelled (the simulator's clock).
 */
import type { Profile } from '../../core/config/types';
import type { CapacityCurve, CapacityPoint, LatencySlo } from '../../core/protocol/latency';
import type { PoolResult } from '../../core/protocol/run';
import type { ServingSimRequests } from '../../native';
import { simulatePool, type SimulateOptions } from './simulate';
import { weightReadSeconds } from './step-time';

export interface CapacityOptions {
  slo: LatencySlo;
  /** Fraction of requests that must meet the SLO, in (0, 1]; default 0.9. */
  attainment?: number;
  /** Relative tolerance of the answer, default 0.02. */
  tolerance?: number;
  /** Packed trace (else the profile's workload). */
  requests?: ServingSimRequests;
  /** Passed to each simulation (step time, signal, ...). */
  simulate?: Omit<SimulateOptions, 'requests' | 'trace' | 'rateScale' | 'slo' | 'baselines'>;
  /** Called after each simulation. */
  onPoint?: (p: CapacityPoint) => void;
}

/** Bracketing stops at 2^±20 times the base rate. */
const MAX_DOUBLINGS = 20;

/** The base rate (scale 1): workload arrival_rate, or a trace's mean rate (n − 1) / span. */
export function baseRate(profile: Profile, requests?: ServingSimRequests): number {
  if (requests) {
    const n = requests.arrivalS.length;
    const span = requests.arrivalS[n - 1] - requests.arrivalS[0];
    return n > 1 && span > 0 ? (n - 1) / span : Infinity;
  }
  return profile.workload?.arrivalRate ?? Infinity;
}

/**
 * Runs the search. @returns the curve and the result of the highest passing rate (or of the
 * last simulation when none passed).
 * @throws RangeError for an SLO without bounds, attainment or tolerance out of range, or a load
 *   without a finite rate (a trace with every arrival at 0 s, a workload without arrival_rate).
 */
export async function searchCapacity(profile: Profile, opts: CapacityOptions): Promise<{ curve: CapacityCurve; result: PoolResult }> {
  const attainment = opts.attainment ?? 0.9;
  const tolerance = opts.tolerance ?? 0.02;
  if (opts.slo.ttftMs === undefined && opts.slo.tpotMs === undefined) throw new RangeError('the capacity search needs an SLO: --slo-ttft-ms and/or --slo-tpot-ms, or the profile\'s slo');
  if (!(attainment > 0 && attainment <= 1)) throw new RangeError(`attainment must be in (0, 1], got ${attainment}`);
  if (!(tolerance > 0 && tolerance < 1)) throw new RangeError(`tolerance must be in (0, 1), got ${tolerance}`);
  const rate0 = baseRate(profile, opts.requests);
  if (!Number.isFinite(rate0)) throw new RangeError('the load has no finite arrival rate to scale (every arrival at the same time)');

  const points: CapacityPoint[] = [];
  let best: { scale: number; result: PoolResult } | null = null;
  let last: PoolResult | null = null;
  const run = async (scale: number): Promise<boolean> => {
    const result = await simulatePool(profile, { ...opts.simulate, requests: opts.requests, rateScale: scale, slo: opts.slo, baselines: false });
    const l = result.latency!;
    const point: CapacityPoint = {
      rate: rate0 * scale,
      scale,
      p99TtftS: l.ttft?.p99 ?? null,
      p99TpotS: l.tpot?.p99 ?? null,
      goodputRequestsPerSec: l.goodputRequestsPerSec ?? 0,
      sloAttainment: l.sloAttainment ?? 0,
      meets: (l.sloAttainment ?? 0) >= attainment,
    };
    points.push(point);
    opts.onPoint?.(point);
    last = result;
    if (point.meets && (!best || scale > best.scale)) best = { scale, result };
    return point.meets;
  };

  let lo: number | null = null;
  let hi: number | null = null;
  // Once the scaled trace's arrivals all fall inside one step, a higher rate changes nothing.
  const saturated = (scale: number) => {
    const floor = last!.stepTime ? last!.stepTime.perStepS + weightReadSeconds(last!.stepTime, 1) : 0;
    const a = opts.requests?.arrivalS;
    const span = a ? a[a.length - 1] - a[0] : (profile.workload?.requests ?? 0) / (rate0 * scale);
    return span / scale <= floor || (a === undefined && span <= floor);
  };
  let unbounded = false;
  if (await run(1)) {
    lo = 1;
    for (let k = 1; k <= MAX_DOUBLINGS && hi === null; k++) {
      if (saturated(2 ** (k - 1))) {
        unbounded = true;
        break;
      }
      if (await run(2 ** k)) lo = 2 ** k;
      else hi = 2 ** k;
    }
    if (hi === null) unbounded = true;
  } else {
    hi = 1;
    for (let k = 1; k <= MAX_DOUBLINGS && lo === null; k++) {
      if (await run(2 ** -k)) lo = 2 ** -k;
      else hi = 2 ** -k;
    }
  }
  if (lo !== null && hi !== null) {
    while (hi / lo - 1 >= tolerance) {
      const mid = Math.sqrt(lo * hi);
      if (await run(mid)) lo = mid;
      else hi = mid;
    }
  }
  const b = best as { scale: number; result: PoolResult } | null;
  const curve: CapacityCurve = {
    kind: 'modelled',
    slo: { ...opts.slo },
    attainmentTarget: attainment,
    tolerance,
    points,
    maxRate: b ? rate0 * b.scale : null,
    maxScale: b ? b.scale : null,
    unbounded,
  };
  return { curve, result: { ...(b?.result ?? last!), capacity: curve } };
}
