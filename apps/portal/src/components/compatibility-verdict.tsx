import { cx } from "./ui";

/* The compatibility verdict under the product's mode, and under each stricter one. Server- and client-safe. */

export interface IssueView {
  direction: string;
  version: number;
  rule: string;
  path: string;
  location: string;
  message: string;
}

export function IssueList({ issues, testId = "compatibility-issues" }: { issues: IssueView[]; testId?: string }) {
  return (
    <ul className="space-y-2" data-testid={testId}>
      {issues.map((i, n) => (
        <li key={n} className="rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-900 ring-1 ring-rose-200">
          <p data-testid="issue-message">{i.message}</p>
          <p className="mt-0.5 font-mono text-xs text-rose-700">
            {i.rule} · {i.location}
          </p>
        </li>
      ))}
    </ul>
  );
}

export function Verdict({
  mode,
  compatible,
  checkedVersions,
  issues,
}: {
  mode: string;
  compatible: boolean;
  checkedVersions: number[];
  issues: IssueView[];
}) {
  const against = checkedVersions.length ? checkedVersions.map((v) => `v${v}`).join(", ") : "no earlier version";
  return (
    <div className="space-y-2" data-testid="compatibility-verdict" data-compatible={compatible}>
      <p className={cx("text-sm font-medium", compatible ? "text-emerald-800" : "text-rose-800")}>
        {compatible ? `Compatible under ${mode}` : `Not compatible under ${mode}`}
        <span className="font-normal text-slate-600"> — checked against {against}</span>
      </p>
      {issues.length > 0 && <IssueList issues={issues} />}
    </div>
  );
}

/** One row per stricter mode: would this change pass if the product were stricter? */
export function StricterModes({ modes }: { modes: { mode: string; compatible: boolean; issueCount?: number; issues?: unknown[] }[] }) {
  if (modes.length === 0) return <p className="text-sm text-slate-600">No mode is stricter than this one.</p>;
  return (
    <table className="text-sm" data-testid="stricter-modes">
      <caption className="sr-only">Verdict under stricter modes</caption>
      <tbody>
        {modes.map((m) => {
          const count = m.issueCount ?? m.issues?.length ?? 0;
          return (
            <tr key={m.mode}>
              <th scope="row" className="py-0.5 pr-4 text-left font-mono text-xs font-medium text-slate-700">{m.mode}</th>
              <td className={cx("py-0.5", m.compatible ? "text-emerald-800" : "text-rose-800")}>
                {m.compatible ? "compatible" : `not compatible (${count} issue${count === 1 ? "" : "s"})`}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
