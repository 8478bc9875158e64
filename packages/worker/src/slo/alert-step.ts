/*
 * Alert evaluation after each observation cycle (after the time-lag and
 * freshness steps): the catalog's evaluateAlerts applies the rules with their
 * hysteresis and notifies. Its own module so the observer knows nothing of it.
 */
import { evaluateAlerts, type AlertOptions } from "@kappa/catalog";
import type { ObservationCycle, ObservationStep } from "../observe/observer.ts";

export class AlertStep implements ObservationStep {
  readonly name = "alerts";
  constructor(private readonly options: AlertOptions) {}

  async run(cycle: ObservationCycle): Promise<void> {
    const result = await evaluateAlerts(cycle.db, this.options, new Date(cycle.now));
    if (result.fired.length + result.resolved.length > 0) cycle.log.info("alerts", { fired: result.fired.length, resolved: result.resolved.length });
  }
}
