// Fault injection for tests, in the style of franz-go kfake's ControlKey: a test
// registers a rule for an api key; each matching request asks the rule what to do.
// Rules are one-shot unless `keep` is set.
import type { Session } from "./session.ts";

export interface ControlRequest {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  session: Session;
  /** Decoded request body. */
  body: unknown;
}

export type ControlAction =
  /** Close the connection without handling the request (the request never happened). */
  | { kind: "close-before" }
  /** Handle the request (its effects happen) but close the connection instead of answering: a lost response. */
  | { kind: "drop-response" }
  /** Handle the request and hold the response for `ms` before writing it. */
  | { kind: "delay"; ms: number }
  /** Keep the request in its handler phase (in flight, its frame held) until `released` settles, then handle it. */
  | { kind: "hold"; released: Promise<void> };

export type ControlRule = (req: ControlRequest) => ControlAction | undefined;

interface Entry {
  apiKey: number;
  rule: ControlRule;
  keep: boolean;
}

export class Control {
  private entries: Entry[] = [];

  /** Add a rule; returns a function that removes it. */
  add(apiKey: number, rule: ControlRule, opts: { keep?: boolean } = {}): () => void {
    const entry: Entry = { apiKey, rule, keep: opts.keep ?? false };
    this.entries.push(entry);
    return () => {
      this.entries = this.entries.filter((e) => e !== entry);
    };
  }

  dropResponseOnce(apiKey: number): () => void {
    return this.add(apiKey, () => ({ kind: "drop-response" }));
  }

  closeOnce(apiKey: number): () => void {
    return this.add(apiKey, () => ({ kind: "close-before" }));
  }

  delayResponses(apiKey: number, ms: number): () => void {
    return this.add(apiKey, () => ({ kind: "delay", ms }), { keep: true });
  }

  /** Every request of `apiKey` stays in flight until the returned function is called (and the rule is removed). */
  holdHandlers(apiKey: number): () => void {
    let release = (): void => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const remove = this.add(apiKey, () => ({ kind: "hold", released }), { keep: true });
    return () => {
      remove();
      release();
    };
  }

  clear(): void {
    this.entries = [];
  }

  /** First rule (in registration order) that acts on the request wins. */
  decide(req: ControlRequest): ControlAction | undefined {
    for (const e of this.entries) {
      if (e.apiKey !== req.apiKey) continue;
      const action = e.rule(req);
      if (action === undefined) continue;
      if (!e.keep) this.entries = this.entries.filter((x) => x !== e);
      return action;
    }
    return undefined;
  }
}
