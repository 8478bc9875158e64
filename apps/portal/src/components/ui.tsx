import type { ComponentProps, ReactNode } from "react";
import { Link } from "./link";

/* Small, consistent building blocks. Server- and client-safe (no hooks). */

export function cx(...classes: (string | false | null | undefined)[]): string {
  return classes.filter(Boolean).join(" ");
}

type Variant = "primary" | "secondary" | "danger" | "ghost";
const VARIANTS: Record<Variant, string> = {
  primary: "bg-indigo-600 text-white hover:bg-indigo-700 disabled:bg-indigo-300",
  secondary: "bg-white text-slate-800 ring-1 ring-slate-300 hover:bg-slate-50 disabled:text-slate-400",
  danger: "bg-rose-600 text-white hover:bg-rose-700 disabled:bg-rose-300",
  ghost: "text-slate-700 hover:bg-slate-100",
};
const BUTTON = "inline-flex items-center justify-center gap-2 rounded-md px-3 py-2 text-sm font-medium transition-colors disabled:cursor-not-allowed";

export function Button({ variant = "primary", className, ...props }: ComponentProps<"button"> & { variant?: Variant }) {
  return <button type="button" className={cx(BUTTON, VARIANTS[variant], className)} {...props} />;
}

export function ButtonLink({ variant = "primary", className, ...props }: ComponentProps<typeof Link> & { variant?: Variant }) {
  return <Link className={cx(BUTTON, VARIANTS[variant], className)} {...props} />;
}

const STATUS_COLORS: Record<string, string> = {
  DRAFT: "bg-slate-100 text-slate-700 ring-slate-300",
  IN_REVIEW: "bg-amber-50 text-amber-800 ring-amber-300",
  REQUESTED: "bg-amber-50 text-amber-800 ring-amber-300",
  PENDING: "bg-slate-100 text-slate-700 ring-slate-300",
  RUNNING: "bg-sky-50 text-sky-800 ring-sky-300",
  APPROVED: "bg-sky-50 text-sky-800 ring-sky-300",
  PROVISIONING: "bg-sky-50 text-sky-800 ring-sky-300",
  ACTIVE: "bg-emerald-50 text-emerald-800 ring-emerald-300",
  DONE: "bg-emerald-50 text-emerald-800 ring-emerald-300",
  DEPRECATED: "bg-orange-50 text-orange-800 ring-orange-300",
  RETIRED: "bg-slate-200 text-slate-600 ring-slate-300",
  REJECTED: "bg-rose-50 text-rose-800 ring-rose-300",
  FAILED: "bg-rose-50 text-rose-800 ring-rose-300",
  REVOKED: "bg-slate-200 text-slate-600 ring-slate-300",
  PUBLIC: "bg-emerald-50 text-emerald-800 ring-emerald-300",
  INTERNAL: "bg-slate-100 text-slate-700 ring-slate-300",
  CONFIDENTIAL: "bg-orange-50 text-orange-800 ring-orange-300",
  RESTRICTED: "bg-rose-50 text-rose-800 ring-rose-300",
  // SLO verdicts and alerts.
  MET: "bg-emerald-50 text-emerald-800 ring-emerald-300",
  AT_RISK: "bg-amber-50 text-amber-800 ring-amber-300",
  BREACHED: "bg-rose-50 text-rose-800 ring-rose-300",
  FIRING: "bg-rose-50 text-rose-800 ring-rose-300",
  RESOLVED: "bg-slate-100 text-slate-700 ring-slate-300",
  NO_DATA: "bg-slate-100 text-slate-700 ring-slate-300",
  // Kafka consumer group states.
  STABLE: "bg-emerald-50 text-emerald-800 ring-emerald-300",
  EMPTY: "bg-slate-100 text-slate-700 ring-slate-300",
  PREPARINGREBALANCE: "bg-amber-50 text-amber-800 ring-amber-300",
  COMPLETINGREBALANCE: "bg-amber-50 text-amber-800 ring-amber-300",
  DEAD: "bg-rose-50 text-rose-800 ring-rose-300",
  UNKNOWN: "bg-slate-100 text-slate-700 ring-slate-300",
  // Flink job states (derived products).
  RESTARTING: "bg-amber-50 text-amber-800 ring-amber-300",
  STOPPED: "bg-slate-200 text-slate-700 ring-slate-300",
  NOT_DEPLOYED: "bg-slate-100 text-slate-700 ring-slate-300",
};

export function Badge({ value, label }: { value: string; label?: string }) {
  return (
    <span className={cx("inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset whitespace-nowrap", STATUS_COLORS[value] ?? STATUS_COLORS.DRAFT)}>
      {label ?? value.replace(/_/g, " ")}
    </span>
  );
}

export function Card({ title, actions, children, className }: { title?: ReactNode; actions?: ReactNode; children: ReactNode; className?: string }) {
  return (
    <section className={cx("rounded-lg bg-white p-4 shadow-sm ring-1 ring-slate-200 sm:p-5", className)}>
      {(title || actions) && (
        <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
          {title && <h2 className="text-base font-semibold text-slate-900">{title}</h2>}
          {actions}
        </div>
      )}
      {children}
    </section>
  );
}

export function PageHeader({ title, description, actions }: { title: ReactNode; description?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="mb-6 flex flex-wrap items-start justify-between gap-4">
      <div className="min-w-0">
        <h1 className="text-2xl font-semibold tracking-tight text-slate-900">{title}</h1>
        {description && <div className="mt-1 text-sm text-slate-600">{description}</div>}
      </div>
      {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
    </div>
  );
}

/** Errors are announced to screen readers as they appear. */
export function ErrorAlert({ message, children }: { message?: string | null; children?: ReactNode }) {
  return (
    <div role="alert" aria-live="assertive">
      {(message || children) && (
        <div className="rounded-md bg-rose-50 p-3 text-sm text-rose-800 ring-1 ring-rose-200">
          {message}
          {children}
        </div>
      )}
    </div>
  );
}

export function Notice({ children }: { children: ReactNode }) {
  return (
    <div role="status" aria-live="polite" className="rounded-md bg-emerald-50 p-3 text-sm text-emerald-800 ring-1 ring-emerald-200">
      {children}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="rounded-lg border border-dashed border-slate-300 bg-white p-8 text-center">
      <p className="font-medium text-slate-800">{title}</p>
      {children && <div className="mt-1 text-sm text-slate-600">{children}</div>}
    </div>
  );
}

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <div role="status" aria-live="polite" className="flex items-center gap-2 py-6 text-sm text-slate-600">
      <span className="h-4 w-4 animate-spin rounded-full border-2 border-slate-300 border-t-indigo-600" aria-hidden="true" />
      {label}
    </div>
  );
}

export const inputClass =
  "block w-full rounded-md border-0 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 placeholder:text-slate-400 focus:ring-2 focus:ring-indigo-600 disabled:bg-slate-100 disabled:text-slate-500 aria-[invalid=true]:ring-rose-500";

/**
 * A labelled field with its hint and its error messages, wired with
 * aria-describedby / aria-invalid so assistive tech reads them with the input.
 */
export function Field({
  id,
  label,
  hint,
  errors,
  children,
  className,
  notes,
}: {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  errors?: string[] | undefined;
  /** Extra lines under the field (policy verdicts); must carry the id `${id}-notes`. */
  notes?: ReactNode;
  children: (props: { id: string; "aria-describedby"?: string; "aria-invalid"?: boolean }) => ReactNode;
  className?: string;
}) {
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = errors?.length ? `${id}-error` : undefined;
  const notesId = notes ? `${id}-notes` : undefined;
  const describedBy = [hintId, errorId, notesId].filter(Boolean).join(" ") || undefined;
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      <div className="mt-1">{children({ id, "aria-describedby": describedBy, "aria-invalid": errorId ? true : undefined })}</div>
      {hint && (
        <p id={hintId} className="mt-1 text-xs text-slate-500">
          {hint}
        </p>
      )}
      {errorId && (
        <p id={errorId} className="mt-1 text-sm text-rose-700" data-field-error>
          {errors?.join(" ")}
        </p>
      )}
      {notes}
    </div>
  );
}

export function DefinitionList({ items }: { items: [ReactNode, ReactNode][] }) {
  return (
    <dl className="grid grid-cols-1 gap-x-6 gap-y-3 text-sm sm:grid-cols-2">
      {items.map(([term, value], i) => (
        <div key={i} className="min-w-0">
          <dt className="text-slate-500">{term}</dt>
          <dd className="mt-0.5 break-words font-medium text-slate-900">{value}</dd>
        </div>
      ))}
    </dl>
  );
}
